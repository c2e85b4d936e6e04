import MigrationCore

/// A kind of phone to rehearse on (`Config/devices/NAME.json`): its launch watchdog,
/// how full its disk is, and the SQLite settings its platform uses.
public struct DeviceProfile: Sendable, Equatable {
    public var name: String
    public var description: String
    /// Wall-clock budget of one launch; nil for no watchdog.
    public var watchdogMs: Int?
    /// Free disk space; nil for unlimited.
    public var freeBytes: Int64?
    public var launches: Int
    /// The oldest SQLite the platform ships, e.g. "3.22.0": steps that need newer get a warning.
    public var minSQLiteVersion: String?
    public var connection: ConnectionSettings

    public init(
        name: String, description: String = "", watchdogMs: Int? = nil, freeBytes: Int64? = nil, launches: Int = 5,
        minSQLiteVersion: String? = nil, connection: ConnectionSettings = ConnectionSettings()
    ) {
        self.name = name
        self.description = description
        self.watchdogMs = watchdogMs
        self.freeBytes = freeBytes
        self.launches = launches
        self.minSQLiteVersion = minSQLiteVersion
        self.connection = connection
    }

    /// No watchdog, unlimited space: what runs when nothing is chosen.
    public static let builtInDefault = DeviceProfile(
        name: "default", description: "No watchdog, unlimited space, SQLite's own defaults")
}
