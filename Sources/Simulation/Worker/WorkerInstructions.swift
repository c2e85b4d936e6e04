import MigrationCore

/// What the parent hands a worker, in the job directory's `workerInstructions` file: the
/// plan as the user gave it and the settings of the simulated device. Files, not
/// arguments, so that nothing the user wrote ends up on a command line.
struct WorkerInstructions: Codable, Sendable {
    var plan: String
    var target: Int?
    var spaceCheck: MigrationSettings.SpaceCheck
    var verify: Verifier.Mode
    var connection: ConnectionSettings
    /// The device's SQLite, and whether a step that needs a newer one fails (`fail`) or
    /// runs for the parent to warn about (`warn`).
    var sqliteVersion: SQLiteVersion?
    var sqliteCheck: RunOptions.SQLiteCheck
    /// Row counts of the input, for the verifier's `rows_lost`; set after inspection.
    var tablesBefore: [String: Int64]?
    /// The input's version: only steps after it ran in this run (and may allow row loss).
    var startVersion: Int?
    /// Under `clock: device`, the speed a launch's work is charged at.
    var deviceSpeed: SpeedModel?
    /// Under `clock: device`, the launch's budget in device milliseconds: the migrating
    /// worker kills itself when its device clock passes it.
    var deviceWatchdogMs: Int?

    enum CodingKeys: String, CodingKey {
        case plan, target, spaceCheck = "space_check", verify, connection, sqliteVersion = "sqlite_version"
        case sqliteCheck = "sqlite_check", tablesBefore = "tables_before"
        case startVersion = "start_version", deviceSpeed = "device_speed", deviceWatchdogMs = "device_watchdog_ms"
    }
}

/// The single line an `inspect` or `verify` worker prints.
struct WorkerReport: Codable, Sendable {
    /// Inspection: the input's tables and journal mode.
    var tables: [String: Int64]?
    /// Inspection and verification: virtual tables that could not be counted, with SQLite's
    /// reason (`TableCounts.uncounted`).
    var uncountedTables: [String: String]?
    var journalMode: String?
    /// Inspection: "ok", or why SQLite cannot read the file.
    var readable: String?
    /// Verification.
    var final: FinalState?
    var problems: [String]?
    /// Where the file stands, as the plan's runner keeps versions (every task).
    var point: DurablePoint?
    /// Fingerprint: the file's end state.
    var endState: EndState?
    /// Inspection: the input's quick_check (`InputCheck`), on this machine and on the device.
    var checkMs: Int?
    var checkDevice: DeviceTime?

    enum CodingKeys: String, CodingKey {
        case tables, uncountedTables = "uncounted_tables", journalMode = "journal_mode", readable, final, problems, point, endState = "end_state"
        case checkMs = "check_ms", checkDevice = "check_device"
    }
}
