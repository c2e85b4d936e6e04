/// How the migrator runs: everything the app (or a rehearsal of it) chooses.
public struct MigrationSettings: Sendable, Equatable {
    /// The version to migrate to; nil for the plan's newest.
    public var target: Int?
    public var spaceCheck: SpaceCheck
    public var connection: ConnectionSettings

    public init(target: Int? = nil, spaceCheck: SpaceCheck = .estimate, connection: ConnectionSettings = ConnectionSettings()) {
        self.target = target
        self.spaceCheck = spaceCheck
        self.connection = connection
    }

    /// Whether a step is refused when its space estimate exceeds the free space.
    public enum SpaceCheck: String, Sendable, Codable {
        /// Estimate each step before it runs; refuse it when it would not fit.
        case estimate
        /// Run every step; a disk that fills stops it with SQLITE_FULL.
        case off
    }
}

/// The connection settings of the app's platform that change what a migration costs.
public struct ConnectionSettings: Sendable, Equatable, Codable {
    /// `PRAGMA secure_delete`: Android's SQLite turns it on, so freed pages are overwritten.
    public var secureDelete: Bool?
    /// `PRAGMA journal_mode` for a file that does not say (a fresh install).
    public var journalMode: String?
    /// `PRAGMA synchronous`, e.g. "NORMAL" or "FULL".
    public var synchronous: String?

    public init(secureDelete: Bool? = nil, journalMode: String? = nil, synchronous: String? = nil) {
        self.secureDelete = secureDelete
        self.journalMode = journalMode
        self.synchronous = synchronous
    }

    enum CodingKeys: String, CodingKey {
        case secureDelete = "secure_delete", journalMode = "journal_mode", synchronous
    }

    static let journalModes: Set<String> = ["DELETE", "TRUNCATE", "PERSIST", "WAL"]
    static let synchronousModes: Set<String> = ["OFF", "NORMAL", "FULL", "EXTRA"]

    /// Statements that apply these settings to a connection just opened.
    func pragmas(freshFile: Bool) -> [String] {
        var result: [String] = []
        if let secureDelete { result.append("PRAGMA secure_delete = \(secureDelete ? "ON" : "OFF")") }
        if let synchronous, Self.synchronousModes.contains(synchronous.uppercased()) {
            result.append("PRAGMA synchronous = \(synchronous.uppercased())")
        }
        if freshFile, let journalMode, Self.journalModes.contains(journalMode.uppercased()) {
            result.append("PRAGMA journal_mode = \(journalMode.uppercased())")
        }
        return result
    }
}
