import CSQLite

/// What the layer above the migrator may do at the moments of a migration that matter
/// for durability: look, or stop the migration right there.
///
/// An app passes no hooks. A test harness may end its own process at a chosen
/// checkpoint (Preflight's fault injection), or answer `.abandon` to stop a step
/// in-process without cleanup.
public protocol MigrationHooks {
    /// Called at every checkpoint the migration passes, in order.
    func reached(_ checkpoint: MigrationCheckpoint) -> MigrationHookAnswer
}

/// A moment of a migration at which `MigrationHooks` are asked.
public enum MigrationCheckpoint: Sendable, Equatable {
    /// A step is about to do its work (its `step_started` event and estimate are done).
    case stepStarting(version: Int)
    /// The new table of a rebuild was created and committed.
    case afterCreate
    /// The last batch of a rebuild's copy or of a backfill committed.
    case afterLastBatch
    /// Inside a rebuild's swap transaction, before its COMMIT.
    case insideSwap
    /// Inside a `sql` step's transaction, before its COMMIT.
    case insideStep
    /// A batch committed; `count` batches have committed since `migrate` began, over all steps.
    case batchesCommitted(count: Int)
    /// Inside a transaction of the purge of a rebuild's old table, before its COMMIT.
    case insidePurge
    /// A transaction of the purge of a rebuild's old table committed (the step's own
    /// purge, or one an earlier launch left).
    case purgeBatchCommitted
}

/// What the hooks want done at a checkpoint.
public enum MigrationHookAnswer: Sendable, Equatable {
    case proceed
    /// Stop at once: the step throws `SQLiteError.abandoned` and does no cleanup. A
    /// transaction it has open stays open until the connection closes, which rolls it
    /// back exactly as the journal recovery after a crash would.
    case abandon
}

extension SQLiteError {
    /// What a step throws when the hooks answered `.abandon`; every step and transaction
    /// helper lets it through untouched.
    public static let abandoned = SQLiteError(
        code: SQLITE_INTERRUPT, message: "abandoned at a checkpoint by the migration's hooks")
}
