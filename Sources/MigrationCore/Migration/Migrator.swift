import CSQLite
import Foundation

/// Migrates one database file with a plan: the library an app could embed to run its
/// own migrations on device (Preflight's rehearsals run it the same way).
///
/// The header is read before any SQL; the gate refuses newer and foreign files; then the
/// plan's runner (`Runner`) runs the pending steps the way the app's framework does: each
/// in its own transaction (chunked steps in many small ones) with the version recorded
/// inside the step's last one, or all in one transaction, or statement by statement. What
/// happens is reported as `MigrationEvent`s.
///
///     let migrator = Migrator(plan: plan, settings: MigrationSettings())
///     let ending = migrator.migrate(databaseAt: path) { event in print(event.event) }
public final class Migrator {
    public let plan: Plan
    public let settings: MigrationSettings
    let spaceMeter: SpaceMeter?
    let hooks: MigrationHooks?
    let workMeter: WorkMeter?
    private let clock = ContinuousClock()

    /// - Parameters:
    ///   - spaceMeter: where free space and each step's space come from; nil for unmetered.
    ///   - hooks: asked at every checkpoint (`MigrationCheckpoint`); nil for none.
    ///   - workMeter: hears of SQLite's work on the migrating connection; nil for none.
    public init(
        plan: Plan, settings: MigrationSettings, spaceMeter: SpaceMeter? = nil, hooks: MigrationHooks? = nil,
        workMeter: WorkMeter? = nil
    ) {
        self.plan = plan
        self.settings = settings
        self.spaceMeter = spaceMeter
        self.hooks = hooks
        self.workMeter = workMeter
    }

    public var target: Int { settings.target ?? plan.newestVersion }

    public func migrate(databaseAt path: String, emit: @escaping (MigrationEvent) -> Void) -> Ending {
        let started = clock.now
        let stamped: (MigrationEvent) -> Void = { [clock, started] event in
            var event = event
            event.atMs = milliseconds(clock.now - started)
            emit(event)
        }
        let ending = run(path: path, emit: stamped)
        if case .stopped(let stop, let failure) = ending, stop == .invalidDatabase || failure.step == nil {
            var event = MigrationEvent(.stepFailed)
            event.stop = stop
            event.failure = failure
            stamped(event)
        }
        return ending
    }

    private func run(path: String, emit: @escaping (MigrationEvent) -> Void) -> Ending {
        // 1. The header, before SQLite parses anything. (GRDB's version is not in it.)
        let header = DatabaseHeader.read(path: path)
        let freshFile: Bool
        switch header {
        case .invalid(let reason):
            // SQLite plays a journal back (or reads the WAL) before it reads page 1: a page 1
            // that a power cut left half written is for that recovery to mend, or to refuse
            // when SQLite opens the file below.
            guard DatabaseHeader.holdsBytes(DatabaseFiles(path).journal) || DatabaseHeader.holdsBytes(DatabaseFiles(path).wal) else {
                return .stopped(.invalidDatabase, Failure(kind: Failure.Kind.invalidDatabase, message: reason))
            }
            freshFile = false
        case .empty:
            freshFile = true
        case .database(let fields):
            freshFile = false
            if plan.runner.keepsUserVersion,
                case .refuse(let failure) = gate.check(userVersion: Int(fields.userVersion), applicationID: fields.applicationID)
            {
                return .stopped(.refused, failure)
            }
        }
        // 2. Open, then ask SQLite again: a WAL can hold a newer header than the file's.
        let connection: Connection
        let standing: Standing
        let decision: Gate.Decision
        let opened: MigrationEvent
        do {
            connection = try open(path: path, freshFile: freshFile)
            standing = try Standing.read(connection, plan: plan)
            let applicationID = Int32(truncatingIfNeeded: try connection.integer("PRAGMA application_id"))
            decision = gate.check(standing, applicationID: applicationID)
            opened = try openedEvent(connection, standing: standing, applicationID: applicationID)
        } catch {
            return .stopped(.invalidDatabase, Failure(
                kind: Failure.Kind.invalidDatabase, message: "SQLite cannot read the file: \(error.message)",
                sqliteCode: error.code))
        }
        emit(opened)
        // A file without an application id is adopted by the first step that applies.
        let adoptApplicationID: Int32?
        switch decision {
        case .refuse(let failure): return .stopped(.refused, failure)
        case .proceed(let adopt): adoptApplicationID = adopt
        }
        // 3. A rebuild already applied whose old table a killed launch left half purged.
        do {
            try TableRebuild.finishPendingPurge(
                connection: connection, plan: plan, emit: emit,
                checkpoint: { [hooks] (point) throws(SQLiteError) in
                    if hooks?.reached(point) == .abandon { throw SQLiteError.abandoned }
                })
        } catch where error.isDiskFull {
            // Clean-up only: the rows are safe; a later launch with room finishes it.
            connection.rollbackIfNeeded()
        } catch {
            return .stopped(.failed, Failure(
                kind: Failure.Kind.sqlError,
                message: "cannot finish removing the old rows of an applied rebuild: \(error.message)",
                statement: error.sql, sqliteCode: error.code))
        }
        // 4. The pending steps, as the app's framework runs them.
        let run = MigrationRun(
            migrator: self, connection: connection, standing: standing, adoptApplicationID: adoptApplicationID, emit: emit)
        return plan.runner.migrationRunner.run(run)
    }

    private var gate: Gate { Gate(plan: plan, target: target) }

    /// `body`'s result; its work, the migrator's own, is not the app's (`WorkMeter`).
    private func ownWork<T>(_ body: () -> T) -> T {
        workMeter?.ownWorkStarted()
        defer { workMeter?.ownWorkEnded() }
        return body()
    }

    /// Opens the file as the app's platform and framework do: the platform's connection
    /// settings, then the plan's foreign keys. Every runner's connection is made here.
    private func open(path: String, freshFile: Bool) throws(SQLiteError) -> Connection {
        let connection = try Connection(path: path, vfs: spaceMeter?.vfsName)
        try settings.defineFunctions(on: connection)
        if let workMeter { try connection.reportWork(to: workMeter) }
        for pragma in settings.connection.pragmas(freshFile: freshFile) { try connection.execute(pragma) }
        try connection.execute("PRAGMA foreign_keys = \(plan.foreignKeys ? "ON" : "OFF")")
        _ = try connection.integer("SELECT count(*) FROM sqlite_schema")
        return connection
    }

    private func openedEvent(
        _ connection: Connection, standing: Standing, applicationID: Int32
    ) throws(SQLiteError) -> MigrationEvent {
        var event = MigrationEvent(.opened)
        event.userVersion = standing.version
        event.id = standing.id
        event.applicationID = applicationID
        event.journalMode = try connection.scalar("PRAGMA journal_mode").textValue
        if let pending = try ProgressStore(connection: connection).pending() {
            event.version = pending.step
            event.cursor = pending.cursor
            event.batches = pending.batches
            event.rows = pending.rows
            event.phase = pending.phase
        }
        return event
    }

    /// How a step that `runStep` ran did not apply.
    struct StepStop {
        var ending: Ending
        /// The hooks abandoned the step: what it had open stays open, as after a kill.
        var abandoned: Bool
    }

    /// Runs one step: its `step_started` event, the space estimate and check, the step's
    /// work (committed as `context.commit` says), its `step_finished` event. Every runner
    /// runs its steps through here, so whatever must happen before a step touches the data
    /// happens in this one place. `failureNote` says what a failure undoes beyond the step
    /// (under a runner that does not commit step by step). Nil when the step applied.
    func runStep(_ step: Step, context: StepContext, failureNote: String?, emit: (MigrationEvent) -> Void) -> StepStop? {
        let stepStart = clock.now
        spaceMeter?.beginStep(step.version)
        var startedEvent = MigrationEvent(.stepStarted, version: step.version)
        startedEvent.name = step.name
        startedEvent.id = step.id
        startedEvent.stepKind = step.action.kind
        let note = failureNote.map { "; " + $0 } ?? ""
        do {
            // Started before the estimate: on the wall clock the estimate's time is in the
            // step's (it reads the tables the step touches), and a kill during it is a kill in
            // this step. The work meter leaves it out: the app does not estimate.
            emit(startedEvent)
            // The device's SQLite would refuse the statement: the step fails as it would there.
            if let tooOld = settings.sqliteFailure(of: step) {
                return StepStop(ending: stop(step, .failed, tooOld, stepStart: stepStart, emit: emit), abandoned: false)
            }
            // The device's SQLite would run it, and Preflight's cannot: no prediction.
            if let beyond = settings.engineFailure(of: step) {
                return StepStop(ending: stop(step, .failed, beyond, stepStart: stepStart, emit: emit), abandoned: false)
            }
            // Only when there is a free-space limit for it to refuse the step against: the
            // estimate reads every page of the tables the step touches, work that only the
            // refusal needs, and that would otherwise only lengthen the launch the watchdog
            // times.
            let free = settings.spaceCheck == .estimate ? spaceMeter?.freeBytes() : nil
            let estimate = free == nil ? nil : ownWork { SpaceEstimator(connection: context.connection).estimate(step) }
            try context.checkpoint(.stepStarting(version: step.version))
            if let estimate, let free, estimate > free {
                let ending = stop(step, .refused, Failure(
                    kind: Failure.Kind.insufficientSpace, step: step.version,
                    message: "step \(step.version) (\"\(step.name)\") needs about \(estimate) bytes of free space, but only \(free) are free\(note)",
                    neededBytes: estimate, freeBytes: free), stepStart: stepStart, emit: emit)
                return StepStop(ending: ending, abandoned: false)
            }
            let work = try executor(for: step).run(context)
            var finished = MigrationEvent(.stepFinished, version: step.version)
            finished.elapsedMs = milliseconds(clock.now - stepStart)
            finished.costClass = work.costClass
            finished.rows = work.rows
            finished.batches = work.batches
            finished.swapMs = work.swapMs
            finished.estimatedBytes = estimate
            finished.space = work.space ?? spaceMeter?.stepSpace()
            if work.cleanupPending {
                finished.warning = "the disk filled while the old table's rows were being removed after step \(step.version) applied; the rows are safe in the new table, and the next launch with room finishes the clean-up"
            }
            emit(finished)
            return nil
        } catch {
            let diskFull = error.isDiskFull
            let ending = stop(step, diskFull ? .diskFull : .failed, Failure(
                kind: diskFull ? Failure.Kind.diskFull : Failure.Kind.sqlError, step: step.version,
                message: diskFull
                    ? "the disk filled during step \(step.version) (\"\(step.name)\"): \(error.message); the step rolled back\(note)"
                    : "step \(step.version) (\"\(step.name)\") failed: \(error.message)\(note)",
                statement: error.sql, sqliteCode: error.code), stepStart: stepStart, emit: emit)
            return StepStop(ending: ending, abandoned: error == .abandoned)
        }
    }

    /// Emits the `step_failed` event of `step` and answers the run's ending.
    func stop(
        _ step: Step, _ stop: Stop, _ failure: Failure, stepStart: ContinuousClock.Instant? = nil,
        emit: (MigrationEvent) -> Void
    ) -> Ending {
        var event = MigrationEvent(.stepFailed, version: step.version)
        event.stop = stop
        event.failure = failure
        event.estimatedBytes = failure.neededBytes
        event.elapsedMs = stepStart.map { milliseconds(clock.now - $0) }
        event.space = spaceMeter?.stepSpace()
        emit(event)
        return .stopped(stop, failure)
    }

    private func executor(for step: Step) -> StepExecutor {
        switch step.action {
        case .sql(let statements):
            let checks = settings.sqliteVersion.map { $0 >= SQLiteFeature.addColumnChecksRows } ?? true
            return SQLStep(statements: statements, checksAddedColumns: checks)
        case .rebuild(let rebuild): return TableRebuild(rebuild: rebuild)
        case .backfill(let backfill): return ChunkedBackfill(backfill: backfill)
        }
    }
}
