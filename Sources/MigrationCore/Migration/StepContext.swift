import Foundation

/// What a step executor gets to do its work: the connection, the step, and the few
/// things every step must do the same way (stamping the version, reporting batches).
public final class StepContext {
    public let connection: Connection
    public let plan: Plan
    public let step: Step
    private let hooks: MigrationHooks?
    private let spaceMeter: SpaceMeter?
    private let emit: (MigrationEvent) -> Void
    /// The application id to write with this step (adopting a file that had 0), if any.
    private let adoptApplicationID: Int32?
    private var batchesThisLaunch: Int

    init(
        connection: Connection, plan: Plan, step: Step, hooks: MigrationHooks?, adoptApplicationID: Int32?,
        batchesThisLaunch: Int, spaceMeter: SpaceMeter?, emit: @escaping (MigrationEvent) -> Void
    ) {
        self.spaceMeter = spaceMeter
        self.connection = connection
        self.plan = plan
        self.step = step
        self.hooks = hooks
        self.adoptApplicationID = adoptApplicationID
        self.batchesThisLaunch = batchesThisLaunch
        self.emit = emit
    }

    /// Total batches committed since `migrate` began, across steps.
    var launchBatchCount: Int { batchesThisLaunch }

    /// Sets `user_version` to the step's version (and adopts the plan's application id
    /// on a file that had none). Call inside the step's last transaction, before COMMIT.
    public func stampVersion() throws(SQLiteError) {
        if let adoptApplicationID {
            try connection.execute("PRAGMA application_id = \(adoptApplicationID)")
        }
        try connection.execute("PRAGMA user_version = \(step.version)")
    }

    /// Reports a batch that has committed (call after COMMIT returned), with the step's
    /// totals so far and the cursor now durable; then asks the hooks
    /// (`.batchesCommitted`), so it throws `SQLiteError.abandoned` when they say so.
    public func batchCommitted(rows: Int64, batches: Int, cursor: [SQLiteValue]?) throws(SQLiteError) {
        var event = MigrationEvent(.batchCommitted, version: step.version)
        event.rows = rows
        event.batches = batches
        event.cursor = cursor
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
