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

    /// The plan's `fresh_install` when it makes the target's schema (it is the newest
    /// version's); nil otherwise.
    var freshInstallForTarget: FreshInstall? {
        guard let script = plan.freshInstall, script.version == target, target == plan.newestVersion else { return nil }
        return script
    }

    /// The framework's create path (`onCreate`, `createAll`) on an empty or version-0 file:
    /// the plan's `fresh_install` for the target, each statement committed as `commit` says
    /// (inside the runner's transaction, or on its own); without one, the steps of the
    /// plan's path from an empty file to the target stand for it. Emits `create_started`
    /// first. Nil when it ran; else how it stopped.
    func create(commit: StepCommit, failureNote: String) -> Migrator.StepStop? {
        var started = MigrationEvent(.createStarted)
        started.userVersion = standing.version
        emit(started)
        guard let script = freshInstallForTarget else {
            guard let path = plan.migrationPath(from: 0, to: target) else {
                return Migrator.StepStop(ending: .stopped(.failed, Failure(
                    kind: Failure.Kind.sqlError,
                    message: "the plan has no fresh_install for version \(target) and no path of steps from an empty file to it, so the schema of version \(target) cannot be created")), abandoned: false)
            }
            for step in path {
                if let stopped = run(step, commit: commit, failureNote: failureNote) { return stopped }
            }
            return nil
        }
        do throws(SQLiteError) {
            for statement in script.sql { try connection.runPlanStatement(statement) }
            return nil
        } catch {
            let stop: Migrator.Stop = error.isDiskFull ? .diskFull : .failed
            return Migrator.StepStop(ending: .stopped(stop, Failure(
                kind: error.isDiskFull ? Failure.Kind.diskFull : Failure.Kind.sqlError,
                message: "the fresh install, which the framework runs to create the schema of version \(target) on a file at version \(standing.version), failed: \(error.message); \(failureNote)",
                statement: error.sql, sqliteCode: error.code)), abandoned: false)
        }
    }

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
