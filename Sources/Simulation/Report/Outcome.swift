import MigrationCore

/// How a run ended (docs/CONTRACT.md §3). Exactly one per report.
public enum Outcome: String, Sendable, Codable, CaseIterable {
    case completed
    case completedAfterKills = "completed_after_kills"
    case watchdogKilled = "watchdog_killed"
    case crashLoop = "crash_loop"
    case refused
    case diskFull = "disk_full"
    case failed
    case verificationFailed = "verification_failed"
    /// Room's destructive fallback erased the database and created it anew: the app opens,
    /// and the user's data is gone.
    case dataErased = "data_erased"
    case invalidDatabase = "invalid_database"

    /// What a person reads next to the outcome in a summary: the start of its meaning in
    /// docs/CONTRACT.md's outcome table (OutcomeTableTests keeps the two together).
    public var meaning: String {
        switch self {
        case .completed: return "target reached in the first launch, verification passed"
        case .completedAfterKills: return "target reached, but only after the watchdog killed one or more launches"
        case .watchdogKilled: return "every simulated launch was killed; each made durable progress, but the launches ran out"
        case .crashLoop: return "a launch was killed without durable progress: the app can never get past it"
        case .refused: return "refused before touching the data"
        case .diskFull: return "the disk filled in the middle of a step; the step rolled back"
        case .failed: return "a step failed and rolled back"
        case .verificationFailed: return "target reached, but verification failed"
        case .dataErased: return "no migration path, and the app's destructive fallback erased the user's data"
        case .invalidDatabase: return "not an SQLite database"
        }
    }
}

extension Outcome {
    /// The outcome of a run that the migrator itself stopped, in a launch that was not killed.
    public init(_ stop: Migrator.Stop) {
        switch stop {
        case .refused: self = .refused
        case .failed: self = .failed
        case .diskFull: self = .diskFull
        case .invalidDatabase: self = .invalidDatabase
        }
    }
}

extension Failure.Kind {
    /// The run ended because launches were killed (`watchdog_killed`, `crash_loop`).
    public static let watchdog = Failure.Kind(rawValue: "watchdog")
    /// A worker process died without finishing: SQLite crashed, or the process was killed.
    public static let workerCrashed = Failure.Kind(rawValue: "worker_crashed")
    /// The target was reached, but verification found problems (`verification_failed`).
    public static let verification = Failure.Kind(rawValue: "verification")
    /// The job ran past `max_job_seconds`; `failure.phase` says what was running.
    public static let timeLimit = Failure.Kind(rawValue: "time_limit")
    /// Preflight itself could not go on (a job directory, a worker that cannot start); the
    /// message says what a person can do, the log has the detail.
    public static let `internal` = Failure.Kind(rawValue: "internal")
    /// The client went away, or the service stopped, before the job ended.
    public static let cancelled = Failure.Kind(rawValue: "cancelled")
    /// A matrix cell that this shard leaves to another.
    public static let notRun = Failure.Kind(rawValue: "not_run")
}
