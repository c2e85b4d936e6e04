/// Android's `SQLiteOpenHelper.getDatabaseLocked` (also SQLDelight and sqflite on it):
/// `beginTransaction()` (`BEGIN EXCLUSIVE`), `onUpgrade` over every pending version,
/// `setVersion(new)`, commit (for an empty file at version 0, the plan's steps from 1 play
/// the part of `onCreate`). A kill or a failure anywhere rolls the whole path back, and
/// the next launch starts it again from the same version.
///
/// Room (`room: true`, `RoomOpenHelper.onUpgrade`) does more inside the same transaction:
/// it fails a file it has no migration for, validates the schema the steps left against
/// the one it was built with (here: the fresh install's), and writes its identity hash.
struct SQLiteOpenHelperRunner: MigrationRunner {
    let room: Bool

    func run(_ run: MigrationRun) -> Migrator.Ending {
        let from = run.standing.version
        if room {
            do {
                if let missing = try RoomChecks.missingMigration(run) { return .stopped(.failed, missing) }
            } catch {
                return .stopped(.failed, Failure(
                    kind: Failure.Kind.sqlError, message: "cannot read the file's tables: \(error.message)",
                    statement: error.sql, sqliteCode: error.code))
            }
        }
        let pending = run.pendingSteps
        guard let first = pending.first, let last = pending.last else { return run.finish(at: from) }
        let note = "runner \(run.plan.runner.rawValue) runs every pending step in one transaction: the whole path rolled back, and the database stays at version \(from)"
        do {
            try run.connection.execute("BEGIN EXCLUSIVE")
        } catch {
            return fail(run, at: first, error, "cannot begin the upgrade's transaction: \(error.message)")
        }
        for step in pending {
            if let stopped = run.run(step, commit: .enclosingTransaction, failureNote: note) {
                if !stopped.abandoned { run.connection.rollbackIfNeeded() }
                return stopped.ending
            }
        }
        do {
            if room {
                if let invalid = RoomChecks.validateSchema(run, after: last) {
                    run.connection.rollbackIfNeeded()
                    return run.fail(last, .failed, invalid)
                }
                if let hash = run.plan.roomIdentityHash { try RoomMasterTable.write(identityHash: hash, run.connection) }
            }
            try run.recordVersion(run.target)
            try run.connection.execute("COMMIT")
        } catch {
            run.connection.rollbackIfNeeded()
            return fail(run, at: last, error, "cannot end the upgrade: \(error.message); \(note)")
        }
        run.versionCommitted(run.target)
        return run.finish(at: run.target)
    }

    private func fail(_ run: MigrationRun, at step: Step, _ error: SQLiteError, _ message: String) -> Migrator.Ending {
        run.fail(step, error.isDiskFull ? .diskFull : .failed, Failure(
            kind: error.isDiskFull ? Failure.Kind.diskFull : Failure.Kind.sqlError, step: step.version, message: message,
            statement: error.sql, sqliteCode: error.code))
    }
}
