/// The loop of one app framework over the pending steps (docs/CONTRACT.md §1 `runner`): where the
/// transactions go, and when the version is recorded. Each step itself runs through
/// `Migrator.runStep`, the same for every runner.
protocol MigrationRunner {
    /// Runs the steps pending in `run` up to its target.
    func run(_ run: MigrationRun) -> Migrator.Ending
}

extension Runner {
    var migrationRunner: MigrationRunner {
        switch self {
        case .perStep: return PerStepRunner()
        case .grdb: return GRDBRunner()
        case .sqliteOpenHelper: return SQLiteOpenHelperRunner(room: false)
        case .room: return SQLiteOpenHelperRunner(room: true)
        case .drift: return DriftRunner()
        }
    }
}

/// One `BEGIN IMMEDIATE` per step, `user_version` set inside it: a kill loses at most the
/// step (or batch) in progress.
struct PerStepRunner: MigrationRunner {
    func run(_ run: MigrationRun) -> Migrator.Ending {
        var version = run.standing.version
        for step in run.pendingSteps {
            if let stopped = run.run(step, commit: .ownTransaction) { return stopped.ending }
            version = step.version
        }
        return run.finish(at: version)
    }
}

/// GRDB's `DatabaseMigrator.runMigrations`: the migrations whose identifiers are not in
/// `grdb_migrations`, in the order registered, each in its own `BEGIN IMMEDIATE` with its
/// row, with deferred foreign key checks when foreign keys are on (`Migration.run`).
struct GRDBRunner: MigrationRunner {
    func run(_ run: MigrationRun) -> Migrator.Ending {
        let pending = run.pendingSteps
        guard let first = pending.first else { return run.finish(at: run.standing.version) }
        do {
            try GRDBMigrations.create(run.connection)
        } catch {
            return run.fail(first, error.isDiskFull ? .diskFull : .failed, Failure(
                kind: error.isDiskFull ? Failure.Kind.diskFull : Failure.Kind.sqlError, step: first.version,
                message: "cannot create \(GRDBMigrations.table), where GRDB records applied migrations: \(error.message)",
                statement: error.sql, sqliteCode: error.code))
        }
        for step in pending {
            if let stopped = run.run(step, commit: .grdbMigration(deferredForeignKeys: run.plan.foreignKeys)) {
                return stopped.ending
            }
        }
        return run.finish(at: run.target)
    }
}

/// Drift's `onUpgrade` (`onCreate` for a file at version 0): no transaction, so every
/// statement commits on its own; the version is written once, after the last step. A kill
/// in the middle leaves what the finished statements did at the old version, and the next
/// launch runs the same steps again.
struct DriftRunner: MigrationRunner {
    func run(_ run: MigrationRun) -> Migrator.Ending {
        let pending = run.pendingSteps
        guard let last = pending.last else { return run.finish(at: run.standing.version) }
        let note = "drift runs the steps without a transaction: what the statements before it did stays committed, and user_version stays \(run.standing.version)"
        // `MigrationStrategy.onCreate`'s default, `createAll()`, for a file at version 0.
        if run.standing.version == 0 {
            if let stopped = run.create(commit: .autocommit, failureNote: note) { return stopped.ending }
        } else {
            for step in pending {
                if let stopped = run.run(step, commit: .autocommit, failureNote: note) { return stopped.ending }
            }
        }
        do {
            try run.recordVersion(run.target)
        } catch {
            return run.fail(last, error.isDiskFull ? .diskFull : .failed, Failure(
                kind: error.isDiskFull ? Failure.Kind.diskFull : Failure.Kind.sqlError, step: last.version,
                message: "cannot write user_version \(run.target) after the last step: \(error.message); \(note)",
                statement: error.sql, sqliteCode: error.code))
        }
        run.versionCommitted(run.target)
        return run.finish(at: run.target)
    }
}
