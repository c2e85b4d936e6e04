/// One call to `Migrator.migrate` once the file is open and has passed the gate: what a
/// runner works with to run the pending steps.
final class MigrationRun {
    let migrator: Migrator
    let connection: Connection
    /// Where the file stood when it was opened.
    let standing: Standing
    let emit: (MigrationEvent) -> Void
    /// The application id to write with the first transaction that records a version
    /// (adopting a file that had 0); nil once written, or when there is none to write.
    private var adoptApplicationID: Int32?
    private var batchesThisLaunch = 0

    init(
        migrator: Migrator, connection: Connection, standing: Standing, adoptApplicationID: Int32?,
        emit: @escaping (MigrationEvent) -> Void
    ) {
        self.migrator = migrator
        self.connection = connection
        self.standing = standing
        self.adoptApplicationID = adoptApplicationID
        self.emit = emit
    }

    var plan: Plan { migrator.plan }
    var target: Int { migrator.target }
    var pendingSteps: [Step] { standing.pendingSteps(in: plan, through: target) }

    /// Runs `step` through `Migrator.runStep`, committed as `commit` says; nil when it applied.
    func run(_ step: Step, commit: StepCommit, failureNote: String? = nil) -> Migrator.StepStop? {
        let recordsItself = commit.recordsStep
        let context = StepContext(
            connection: connection, plan: plan, step: step, commit: commit, hooks: migrator.hooks,
            adoptApplicationID: recordsItself ? adoptApplicationID : nil, batchesThisLaunch: batchesThisLaunch,
            spaceMeter: migrator.spaceMeter, emit: emit)
        let stopped = migrator.runStep(step, context: context, failureNote: failureNote, emit: emit)
        batchesThisLaunch = context.launchBatchCount
        if stopped == nil, recordsItself { adoptApplicationID = nil }
        return stopped
    }

    /// Records the version the whole path reached, under a runner that does so once at its
    /// end (sqliteopenhelper, room, drift): the adopted application id, then `user_version`.
    func recordVersion(_ version: Int) throws(SQLiteError) {
        if let adoptApplicationID { try connection.execute("PRAGMA application_id = \(adoptApplicationID)") }
        try connection.execute("PRAGMA user_version = \(version)")
        adoptApplicationID = nil
    }

    /// Reports the version that `recordVersion` wrote as durable (call after it committed).
    func versionCommitted(_ version: Int) {
        var event = MigrationEvent(.versionCommitted)
        event.userVersion = version
        emit(event)
    }

    /// The `finished` event and the ending of a run that reached `version`.
    func finish(at version: Int) -> Migrator.Ending {
        var finished = MigrationEvent(.finished)
        finished.userVersion = version
        emit(finished)
        return .reached(version: version)
    }

    /// Fails the run at `step` (outside `runStep`: a check of the runner's own).
    func fail(_ step: Step, _ stop: Migrator.Stop, _ failure: Failure) -> Migrator.Ending {
        migrator.stop(step, stop, failure, emit: emit)
    }
}
