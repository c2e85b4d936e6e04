import Foundation

/// What a step executor gets to do its work: the connection, the step, and the few
/// things every step must do the same way (stamping the version, reporting batches).
public final class StepContext {
    public let connection: Connection
    public let plan: Plan
    public let step: Step
    /// How the step's work becomes durable (the runner's choice).
    let commit: StepCommit
    private let hooks: MigrationHooks?
    private let spaceMeter: SpaceMeter?
    private let emit: (MigrationEvent) -> Void
    /// The application id to write with this step (adopting a file that had 0), if any.
    private let adoptApplicationID: Int32?
    private var batchesThisLaunch: Int

    init(
        connection: Connection, plan: Plan, step: Step, commit: StepCommit, hooks: MigrationHooks?,
        adoptApplicationID: Int32?, batchesThisLaunch: Int, spaceMeter: SpaceMeter?,
        emit: @escaping (MigrationEvent) -> Void
    ) {
        self.spaceMeter = spaceMeter
        self.connection = connection
        self.plan = plan
        self.step = step
        self.commit = commit
        self.hooks = hooks
        self.adoptApplicationID = adoptApplicationID
        self.batchesThisLaunch = batchesThisLaunch
        self.emit = emit
    }

    /// Total batches committed since `migrate` began, across steps.
    var launchBatchCount: Int { batchesThisLaunch }

    /// Records the step as applied, the way the runner keeps versions: `user_version` set
    /// to the step's version, or (GRDB) the step's row in `grdb_migrations` and, with
    /// deferred foreign key checks, `PRAGMA foreign_key_check`; and adopts the plan's
    /// application id on a file that had none. Call inside the step's last transaction,
    /// before COMMIT. Under a runner that records the version after the whole path
    /// (sqliteopenhelper, room, drift), the step records nothing itself.
    public func stampVersion() throws(SQLiteError) {
        switch commit {
        case .ownTransaction:
            try adoptApplicationIDIfNeeded()
            try connection.execute("PRAGMA user_version = \(step.version)")
        case .grdbMigration(let deferredForeignKeys):
            try adoptApplicationIDIfNeeded()
            try GRDBMigrations.record(step, connection)
            // A violation fails the migration, as GRDB turns one into SQLITE_CONSTRAINT_FOREIGNKEY.
            if deferredForeignKeys { try ForeignKeyCheck.verifyDatabase(connection) }
        case .enclosingTransaction, .autocommit:
            break
        }
    }

    private func adoptApplicationIDIfNeeded() throws(SQLiteError) {
        if let adoptApplicationID {
            try connection.execute("PRAGMA application_id = \(adoptApplicationID)")
        }
    }

    // MARK: - The transaction of a `sql` step

    /// Reports, under autocommit, that the step's next statement begins (`statement_started`):
    /// what a kill undoes there is that statement alone.
    func statementStarting() {
        if commit == .autocommit { emit(MigrationEvent(.statementStarted, version: step.version)) }
    }

    /// Opens the step's own transaction, when the runner gives it one. GRDB's deferred
    /// foreign key checks switch enforcement off first (a no-op inside a transaction).
    func beginStepTransaction() throws(SQLiteError) {
        switch commit {
        case .ownTransaction, .grdbMigration(deferredForeignKeys: false):
            try connection.execute("BEGIN IMMEDIATE")
        case .grdbMigration(deferredForeignKeys: true):
            try connection.execute("PRAGMA foreign_keys = OFF")
            try connection.execute("BEGIN IMMEDIATE")
        case .enclosingTransaction, .autocommit:
            break
        }
    }

    /// Commits the step's own transaction, when it has one.
    func commitStepTransaction() throws(SQLiteError) {
        switch commit {
        case .ownTransaction, .grdbMigration(deferredForeignKeys: false):
            try connection.execute("COMMIT")
        case .grdbMigration(deferredForeignKeys: true):
            try connection.execute("COMMIT")
            try connection.execute("PRAGMA foreign_keys = ON")
        case .enclosingTransaction, .autocommit:
            break
        }
    }

    /// After a failure: rolls back what is open. Inside the runner's transaction around the
    /// path that is the whole path, as Android ends a transaction an exception left
    /// unsuccessful; under autocommit SQLite has already undone the failing statement.
    func rollBackStep() {
        connection.rollbackIfNeeded()
        if commit == .grdbMigration(deferredForeignKeys: true) {
            // The migration stops after a failure and closes the connection: its foreign
            // key setting matters no more, and the step's own error is what the caller sees.
            try? connection.execute("PRAGMA foreign_keys = ON")
        }
    }

    /// Reports that the step's `phase` (a part of a chunked step) begins.
    func phaseStarting(_ phase: String) {
        var event = MigrationEvent(.phaseStarted, version: step.version)
        event.phase = phase
        emit(event)
    }

    /// Reports a batch of `phase` that has committed (call after COMMIT returned), with
    /// the phase's totals so far and the cursor now durable; then asks the hooks
    /// (`.batchesCommitted`), so it throws `SQLiteError.abandoned` when they say so.
    public func batchCommitted(rows: Int64, batches: Int, cursor: [SQLiteValue]?, phase: String) throws(SQLiteError) {
        var event = MigrationEvent(.batchCommitted, version: step.version)
        event.rows = rows
        event.batches = batches
        event.cursor = cursor
        event.phase = phase
        emit(event)
        batchesThisLaunch += 1
        try checkpoint(.batchesCommitted(count: batchesThisLaunch))
    }

    /// Ends the step's own space window and opens one for its clean-up (a rebuild's purge
    /// of the old table, after the version bump), and returns the step's space. What the
    /// step needs is the room to reach the new version; a clean-up short of room can wait
    /// for a later launch.
    func beginCleanup() -> StepSpace? {
        let space = spaceMeter?.stepSpace()
        spaceMeter?.beginStep(step.version)
        return space
    }

    /// Tells the hooks that the step reached `checkpoint`; throws `SQLiteError.abandoned`
    /// when they answer `.abandon`, which the caller lets through without cleanup.
    public func checkpoint(_ checkpoint: MigrationCheckpoint) throws(SQLiteError) {
        if hooks?.reached(checkpoint) == .abandon { throw SQLiteError.abandoned }
    }
}

/// What a step did, for its report line.
public struct StepWork: Sendable, Equatable {
    public var costClass: CostClass
    public var rows: Int64?
    public var batches: Int?
    public var swapMs: Int?
    /// The step's own space, when it was measured before a clean-up (`beginCleanup`).
    public var space: StepSpace?
    /// The step applied, but its clean-up ran out of room and waits for a later run.
    public var cleanupPending = false

    public init(
        costClass: CostClass, rows: Int64? = nil, batches: Int? = nil, swapMs: Int? = nil, space: StepSpace? = nil
    ) {
        self.costClass = costClass
        self.rows = rows
        self.batches = batches
        self.swapMs = swapMs
        self.space = space
    }
}

/// Runs one kind of step. Throws `SQLiteError` (with the failing statement) when the
/// step cannot be applied; by then it must have rolled back whatever it had open.
protocol StepExecutor {
    func run(_ context: StepContext) throws(SQLiteError) -> StepWork
}
