import CSQLite
import Foundation

/// Migrates one database file with a plan: the library an app could embed to run its
/// own migrations on device, and what Preflight's worker runs for each launch.
///
/// The header is read before any SQL; the gate refuses newer and foreign files; then
/// each pending step runs in its own transaction (chunked steps in many small ones),
/// with `user_version` advanced inside the step's last transaction. What happens is
/// reported as `MigrationEvent`s.
///
///     let migrator = Migrator(plan: plan, settings: MigrationSettings())
///     let ending = migrator.migrate(databaseAt: path) { event in print(event.event) }
public final class Migrator {
    public let plan: Plan
    public let settings: MigrationSettings
    let spaceMeter: SpaceMeter?
    private let clock = ContinuousClock()

    public init(plan: Plan, settings: MigrationSettings, spaceMeter: SpaceMeter? = nil) {
        self.plan = plan
        self.settings = settings
        self.spaceMeter = spaceMeter
    }

    /// How one call to `migrate` ended.
    public enum Ending: Sendable, Equatable {
        /// The target was reached.
        case reached(version: Int)
        /// The run stopped: refused, failed, disk full or not a database.
        case stopped(Outcome, Failure)
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
        if case .stopped(let outcome, let failure) = ending, outcome == .invalidDatabase || failure.step == nil {
            var event = MigrationEvent(.stepFailed)
            event.outcome = outcome
            event.failure = failure
            stamped(event)
        }
        return ending
    }

    private func run(path: String, emit: @escaping (MigrationEvent) -> Void) -> Ending {
        // 1. The header, before SQLite parses anything.
        let header = DatabaseHeader.read(path: path)
        let freshFile: Bool
        switch header {
        case .invalid(let reason):
            return .stopped(.invalidDatabase, Failure(kind: Failure.Kind.invalidDatabase, message: reason))
        case .empty:
            freshFile = true
        case .database(let fields):
            freshFile = false
            if case .refuse(let failure) = gate.check(userVersion: Int(fields.userVersion), applicationID: fields.applicationID) {
                return .stopped(.refused, failure)
            }
        }
        // 2. Open, then ask SQLite again: a WAL can hold a newer header than the file's.
        let connection: Connection
        let decision: Gate.Decision
        let opened: MigrationEvent
        do {
            connection = try Connection(path: path, vfs: spaceMeter?.vfsName)
            for pragma in settings.connection.pragmas(freshFile: freshFile) { try connection.execute(pragma) }
            try connection.execute("PRAGMA foreign_keys = \(plan.foreignKeys ? "ON" : "OFF")")
            _ = try connection.integer("SELECT count(*) FROM sqlite_schema")
            let userVersion = try connection.userVersion
            let applicationID = Int32(truncatingIfNeeded: try connection.integer("PRAGMA application_id"))
            decision = gate.check(userVersion: userVersion, applicationID: applicationID)
            opened = try openedEvent(connection, userVersion: userVersion, applicationID: applicationID)
        } catch {
            return .stopped(.invalidDatabase, Failure(
                kind: Failure.Kind.invalidDatabase, message: "SQLite cannot read the file: \(error.message)",
                sqliteCode: error.code))
        }
        emit(opened)
        // A file without an application id is adopted by the first step that applies.
        var adoptApplicationID: Int32?
        switch decision {
        case .refuse(let failure): return .stopped(.refused, failure)
        case .proceed(let adopt): adoptApplicationID = adopt
        }
        // 3. A rebuild already applied whose old table a killed launch left half purged.
        do {
            try TableRebuild.finishPendingPurge(connection: connection, plan: plan) { purged in
                var event = MigrationEvent(.batchCommitted, version: purged.step)
                event.rows = purged.rows
                event.batches = purged.batches
                event.cursor = purged.cursor
                emit(event)
            }
        } catch where error.isDiskFull {
            // Clean-up only: the rows are safe; a later launch with room finishes it.
            connection.rollbackIfNeeded()
        } catch {
            return .stopped(.failed, Failure(
                kind: Failure.Kind.sqlError,
                message: "cannot finish removing the old rows of an applied rebuild: \(error.message)",
                statement: error.sql, sqliteCode: error.code))
        }
        // 4. The steps, each in its own transaction(s).
        var version = opened.userVersion ?? 0
        var batchesThisLaunch = 0
        while version < target, let step = plan.step(version: version + 1) {
            let context = StepContext(
                connection: connection, plan: plan, step: step, faults: settings.faults,
                adoptApplicationID: adoptApplicationID, batchesThisLaunch: batchesThisLaunch,
                spaceMeter: spaceMeter, emit: emit)
            if let stopped = runStep(step, context: context, emit: emit) { return stopped }
            batchesThisLaunch = context.launchBatchCount
            adoptApplicationID = nil
            version = step.version
        }
        var finished = MigrationEvent(.finished)
        finished.userVersion = version
        emit(finished)
        return .reached(version: version)
    }

    private var gate: Gate { Gate(plan: plan, target: target) }

    private func openedEvent(_ connection: Connection, userVersion: Int, applicationID: Int32) throws(SQLiteError) -> MigrationEvent {
        var event = MigrationEvent(.opened)
        event.userVersion = userVersion
        event.applicationID = applicationID
        event.journalMode = try connection.scalar("PRAGMA journal_mode").textValue
        if let pending = try ProgressStore(connection: connection).pending() {
            event.version = pending.step
            event.cursor = pending.cursor
            event.batches = pending.batches
            event.rows = pending.rows
        }
        return event
    }

    /// Runs one step; nil when it applied, the run's ending otherwise.
    private func runStep(_ step: Step, context: StepContext, emit: (MigrationEvent) -> Void) -> Ending? {
        let stepStart = clock.now
        spaceMeter?.beginStep(step.version)
        var startedEvent = MigrationEvent(.stepStarted, version: step.version)
        startedEvent.name = step.name
        startedEvent.stepKind = step.action.kind
        do {
            // Started before the estimate: the estimate is the step's own work (it reads the
            // tables the step touches), and a kill during it is a kill in this step.
            emit(startedEvent)
            let estimate = SpaceEstimator(connection: context.connection).estimate(step)
            settings.faults.stepStarting(step.version)
            if settings.spaceCheck == .estimate, let estimate, let free = spaceMeter?.freeBytes(), estimate > free {
                return stop(step, .refused, Failure(
                    kind: Failure.Kind.insufficientSpace, step: step.version,
                    message: "step \(step.version) (\"\(step.name)\") needs about \(estimate) bytes of free space, but only \(free) are free",
                    neededBytes: estimate, freeBytes: free), stepStart: stepStart, emit: emit)
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
            return stop(step, diskFull ? .diskFull : .failed, Failure(
                kind: diskFull ? Failure.Kind.diskFull : Failure.Kind.sqlError, step: step.version,
                message: diskFull
                    ? "the disk filled during step \(step.version) (\"\(step.name)\"): \(error.message); the step rolled back"
                    : "step \(step.version) (\"\(step.name)\") failed: \(error.message)",
                statement: error.sql, sqliteCode: error.code), stepStart: stepStart, emit: emit)
        }
    }

    private func stop(
        _ step: Step, _ outcome: Outcome, _ failure: Failure, stepStart: ContinuousClock.Instant,
        emit: (MigrationEvent) -> Void
    ) -> Ending {
        var event = MigrationEvent(.stepFailed, version: step.version)
        event.outcome = outcome
        event.failure = failure
        event.estimatedBytes = failure.neededBytes
        event.elapsedMs = milliseconds(clock.now - stepStart)
        event.space = spaceMeter?.stepSpace()
        emit(event)
        return .stopped(outcome, failure)
    }

    private func executor(for step: Step) -> StepExecutor {
        switch step.action {
        case .sql(let statements): return SQLStep(statements: statements)
        case .rebuild(let rebuild): return TableRebuild(rebuild: rebuild)
        case .backfill(let backfill): return ChunkedBackfill(backfill: backfill)
        }
    }
}

