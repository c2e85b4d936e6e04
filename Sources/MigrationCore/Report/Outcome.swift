/// How a run ended (CONTRACT §3). Exactly one per report.
public enum Outcome: String, Sendable, Codable, CaseIterable {
    case completed
    case completedAfterKills = "completed_after_kills"
    case watchdogKilled = "watchdog_killed"
    case crashLoop = "crash_loop"
    case refused
    case diskFull = "disk_full"
    case failed
    case verificationFailed = "verification_failed"
    case invalidDatabase = "invalid_database"

    /// What a person reads next to the outcome in a summary.
    public var meaning: String {
        switch self {
        case .completed: return "target reached in the first launch, verification passed"
        case .completedAfterKills: return "target reached, but only after the watchdog killed one or more launches"
        case .watchdogKilled: return "every launch was killed; each made progress, but the launches ran out"
        case .crashLoop: return "a launch was killed without durable progress: the app can never get past it"
        case .refused: return "refused before touching the data"
        case .diskFull: return "the disk filled in the middle of a step; the step rolled back"
        case .failed: return "a step failed and rolled back"
        case .verificationFailed: return "target reached, but verification failed"
        case .invalidDatabase: return "not an SQLite database"
        }
    }
}

/// Why a run did not complete: `failure` in the report.
public struct Failure: Sendable, Codable, Equatable {
    /// What went wrong, e.g. `future_version`, `sql_error`, `insufficient_space`.
    public var kind: String
    public var step: Int?
    public var message: String
    public var statement: String?
    public var sqliteCode: Int32?
    public var neededBytes: Int64?
    public var freeBytes: Int64?

    public init(
        kind: String, step: Int? = nil, message: String, statement: String? = nil, sqliteCode: Int32? = nil,
        neededBytes: Int64? = nil, freeBytes: Int64? = nil
    ) {
        self.kind = kind
        self.step = step
        self.message = message
        self.statement = statement
        self.sqliteCode = sqliteCode
        self.neededBytes = neededBytes
        self.freeBytes = freeBytes
    }

    enum CodingKeys: String, CodingKey {
        case kind, step, message, statement
        case sqliteCode = "sqlite_code"
        case neededBytes = "needed_bytes"
        case freeBytes = "free_bytes"
    }

    /// Reasons the gate refuses a file, and the other kinds this module produces.
    public enum Kind {
        public static let futureVersion = "future_version"
        public static let foreignApplicationID = "foreign_application_id"
        public static let insufficientSpace = "insufficient_space"
        public static let invalidDatabase = "invalid_database"
        public static let sqlError = "sql_error"
        public static let diskFull = "disk_full"
        public static let verification = "verification"
        public static let watchdog = "watchdog"
        public static let workerCrashed = "worker_crashed"
    }
}
