import MigrationCore

/// A kind of phone to rehearse on (`Config/devices/NAME.json`, docs/CONTRACT.md §7): its launch
/// watchdog, how full its disk is, how much memory the app may hold, the SQLite it ships
/// and the connection settings its platform uses.
public struct DeviceProfile: Sendable, Equatable {
    public var name: String
    public var description: String
    /// The SQLite the device ships: a step that uses a newer feature fails, or warns with
    /// `sqlite_check: warn`. Nil for the SQLite Preflight links (no check).
    public var sqliteVersion: SQLiteVersion?
    /// How the device's platform builds SQLite (its compile options): which engine its
    /// workers run on (`SQLiteEngine`). `host` for the SQLite Preflight links.
    public var sqliteBuild: SQLiteBuild
    /// Where the app runs its migration, which sets the watchdog when none is given.
    public var entryPoint: EntryPoint?
    /// Wall-clock budget of one launch, in the device's time; nil for no watchdog.
    public var watchdogMs: Int?
    /// Free disk space; nil for unlimited.
    public var freeBytes: Int64?
    /// Resident memory past which the low-memory killer ends the app; nil for no limit.
    public var memoryLimitBytes: Int64?
    public var launches: Int
    /// How many times slower than this machine the device is, for `clock: wall`: the
    /// watchdog kills at `watchdogMs / timeScale` of this machine's time.
    public var timeScale: Double
    /// How fast the device does a migration's work, for `clock: device`; nil for a profile
    /// that means this machine (`default`).
    public var speed: SpeedModel?
    public var connection: ConnectionSettings
    /// What a sync guarantees, for the power-loss sweep.
    public var durability: Durability

    /// `watchdogMs` nil takes the entry point's watchdog.
    public init(
        name: String, description: String = "", sqliteVersion: SQLiteVersion? = nil, sqliteBuild: SQLiteBuild = .host,
        entryPoint: EntryPoint? = nil,
        watchdogMs: Int? = nil, freeBytes: Int64? = nil, memoryLimitBytes: Int64? = nil, launches: Int = 5,
        timeScale: Double = 1, speed: SpeedModel? = nil, connection: ConnectionSettings = ConnectionSettings(),
        durability: Durability = Durability()
    ) {
        self.name = name
        self.description = description
        self.sqliteVersion = sqliteVersion
        self.sqliteBuild = sqliteBuild
        self.entryPoint = entryPoint
        self.watchdogMs = watchdogMs ?? entryPoint?.watchdogMs
        self.freeBytes = freeBytes
        self.memoryLimitBytes = memoryLimitBytes
        self.launches = launches
        self.timeScale = timeScale
        self.speed = speed
        self.connection = connection
        self.durability = durability
    }

    /// No watchdog, unlimited space: what runs when nothing is chosen.
    public static let builtInDefault = DeviceProfile(
        name: "default", description: "No watchdog, unlimited space, SQLite's own defaults")

    /// Where on the phone the migration runs; each place has its own watchdog
    /// (docs/FIDELITY.md: AOSP's ActivityManagerService and ActiveServices; Apple's launch and
    /// background task limits).
    public enum EntryPoint: String, Sendable, CaseIterable {
        /// Android: on the main thread, as input dispatch waits: an ANR after 5 s.
        case mainThread = "main_thread"
        /// Android: in `Application.onCreate` (bind application): 15 s.
        case applicationStart = "application_start"
        /// Android: while a content provider is published: 10 s, and the process is removed.
        case contentProvider = "content_provider"
        /// iOS: during the launch, before the first scene is up: about 20 s (`0x8badf00d`).
        case launch
        /// iOS: in a background task: about 30 s.
        case backgroundTask = "background_task"

        public var watchdogMs: Int {
            switch self {
            case .mainThread: return 5_000
            case .applicationStart: return 15_000
            case .contentProvider: return 10_000
            case .launch: return 20_000
            case .backgroundTask: return 30_000
            }
        }
    }
}
