/// What the migrator reports as it goes, one value per event.
///
/// Events are flat records so that they travel as JSON lines: another process can read
/// them as they come, even from a process that died in the middle of a step.
/// An event about durable progress is emitted only after its transaction committed.
public struct MigrationEvent: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable {
        /// The database is open; `userVersion` and `cursor`/`version` (pending work) say where it stands.
        case opened
        case stepStarted = "step_started"
        /// The framework's create path begins instead of its migrations (Room's and
        /// `SQLiteOpenHelper`'s `onCreate`, Drift's `createAll`): the schema of the target is
        /// made as a fresh install makes it; `userVersion` is the file's version.
        case createStarted = "create_started"
        /// Room's destructive fallback dropped the app's tables, to create them anew in the
        /// same transaction: `failure` (kind `data_erased`) says why and what was lost.
        case databaseErased = "database_erased"
        /// Under a runner that autocommits (drift): a statement of the step begins. Until the
        /// next event it is the one piece of work that a kill would undo.
        case statementStarted = "statement_started"
        /// A part of a chunked step begins (`phase`: `create`, `copy`, `swap`, `purge`,
        /// `backfill`), or, without a step, the purge an earlier launch left. Until the next
        /// event, it is the work a kill would cut.
        case phaseStarted = "phase_started"
        /// A batch of a rebuild or backfill committed together with its cursor; `phase`
        /// says which part of the step (`copy`, `purge`, `backfill`), and `rows` counts the
        /// rows of that part.
        case batchCommitted = "batch_committed"
        /// The step's work is done. Under a runner that commits the whole path at its end,
        /// or that autocommits statement by statement, the version it reaches is not durable
        /// until `versionCommitted`; otherwise it committed with the step.
        case stepFinished = "step_finished"
        /// Under a runner that records the version after the whole path (sqliteopenhelper,
        /// room, drift): the version in `userVersion` committed.
        case versionCommitted = "version_committed"
        /// The step did not apply (or, without a `version`, the file was refused before any
        /// step); `stop` says why the migration stopped.
        case stepFailed = "step_failed"
        /// The migration is done; `userVersion` is the version reached.
        case finished
    }

    public var event: Kind
    /// The step this event is about (for `opened`: the step with half-done work, if any).
    public var version: Int?
    /// Where the file stands (`opened`) or what the migration reached (`finished`,
    /// `versionCommitted`): `user_version`, or under GRDB the position of the last applied step.
    public var userVersion: Int?
    /// The step's identifier (`step_started`); for `opened` under GRDB, that of the last applied step.
    public var id: String?
    public var applicationID: Int32?
    public var journalMode: String?
    public var name: String?
    public var stepKind: StepKind?
    public var costClass: CostClass?
    public var elapsedMs: Int?
    public var swapMs: Int?
    public var rows: Int64?
    public var batches: Int?
    /// Key of the last row a batch finished, as JSON values.
    public var cursor: [SQLiteValue]?
    /// The part of a chunked step (`phase_started`, `batch_committed`), or for `opened` the
    /// part its half-done work is in.
    public var phase: String?
    public var estimatedBytes: Int64?
    public var space: StepSpace?
    public var stop: Migrator.Stop?
    public var failure: Failure?
    /// Something the step did not fail for but a person should know (`step_finished`).
    public var warning: String?
    /// Peak resident memory of the process during the step (`step_finished`,
    /// `step_failed`), when the process that runs the migrator measures it.
    public var peakMemoryBytes: Int64?
    /// Milliseconds since the migrator started, for every event.
    public var atMs: Int?
    /// The launch's modelled device time at this event, when the process that runs the
    /// migrator models one (its start included).
    public var device: DeviceTime?

    public init(_ event: Kind, version: Int? = nil) {
        self.event = event
        self.version = version
    }

    enum CodingKeys: String, CodingKey {
        case event, version, userVersion = "user_version", id, applicationID = "application_id"
        case journalMode = "journal_mode", name, stepKind = "kind", costClass = "cost_class"
        case elapsedMs = "elapsed_ms", swapMs = "swap_ms", rows, batches, cursor, phase
        case estimatedBytes = "estimated_bytes", space, stop, failure, warning, peakMemoryBytes = "peak_memory_bytes"
        case atMs = "at_ms", device
    }
}

/// The parts of a chunked step, as `MigrationEvent.phase` and the step's progress row name them.
public enum ChunkPhase: String, Sendable, CaseIterable {
    /// A rebuild's new table and high-water key, in one transaction.
    case create
    /// A rebuild's rows into the new table, `batch_rows` keys per transaction.
    case copy
    /// A rebuild's one transaction that puts the new table in place and bumps the version.
    case swap
    /// After the bump, the old table emptied `batch_rows` keys per transaction, then dropped.
    case purge
    /// A backfill's updates, `batch_rows` kept rows per transaction.
    case backfill
}

/// Space a step used, from the space meter's window for that step.
public struct StepSpace: Sendable, Codable, Equatable {
    public var peakBytes: Int64
    public var peakGrowthBytes: Int64
    public var bytesWritten: Int64
    public var syncs: Int64

    public init(peakBytes: Int64, peakGrowthBytes: Int64, bytesWritten: Int64, syncs: Int64) {
        self.peakBytes = peakBytes
        self.peakGrowthBytes = peakGrowthBytes
        self.bytesWritten = bytesWritten
        self.syncs = syncs
    }

    enum CodingKeys: String, CodingKey {
        case peakBytes = "peak_bytes", peakGrowthBytes = "peak_growth_bytes", bytesWritten = "bytes_written", syncs
    }
}
