/// Android's `SQLiteOpenHelper.getDatabaseLocked` (also SQLDelight's `AndroidSqliteDriver`
/// and sqflite on it): a file whose version is not the app's gets one `BEGIN EXCLUSIVE`, in
/// which `onCreate` runs for version 0 (the plan's `fresh_install`, which is what SQLDelight's
/// `Schema.create` and an app's `onCreate` run; without one, the plan's steps from an empty
/// file stand for it) and `onUpgrade` for any other (the pending steps), then
/// `setVersion(new)` and the commit. A kill or a failure anywhere rolls it all back, and the
/// next launch starts again from the same version.
///
/// Room (`room: true`; `RoomOpenHelper`) does more in the same transaction: it picks the
/// path (`findMigrationPath`), fails a file it has no path for or erases it (the destructive
/// fallback), validates the schema the migrations or a pre-packaged file left against the
/// one it was built with, and writes its identity hash.
struct SQLiteOpenHelperRunner: MigrationRunner {
    let room: Bool

    /// What the open helper does with the file, decided before its transaction begins.
    private enum Opening {
        /// `onCreate`; `prepackaged` when Room finds tables in the version-0 file.
        case create(prepackaged: Bool)
        case migrate([Step])
        /// Room's destructive fallback: drop the app's tables, then `onCreate`'s tables.
        case erase
    }

    func run(_ run: MigrationRun) -> Migrator.Ending {
        let from = run.standing.version
        guard from != run.target else { return open(run) }
        let opening: Opening
        if from == 0 {
            do throws(SQLiteError) {
                let prepackaged = room ? !(try RoomOpenHelper.isEmpty(run.connection)) : false
                opening = .create(prepackaged: prepackaged)
            } catch {
                return .stopped(.failed, Failure(
                    kind: Failure.Kind.sqlError, message: "cannot read the file's schema: \(error.message)",
                    statement: error.sql, sqliteCode: error.code))
            }
        } else if let path = run.plan.migrationPath(from: from, to: run.target) {
            opening = .migrate(path)
        } else if room && RoomOpenHelper.erases(run) {
            opening = .erase
        } else if room {
            return .stopped(.failed, RoomOpenHelper.missingMigration(run))
        } else {
            // The gate refuses what no path leads from (a negative or newer version).
            return run.finish(at: from)
        }
        let note = "runner \(run.plan.runner.rawValue) runs the whole upgrade in one transaction: it all rolled back, and the database stays at version \(from)"
        do {
            try run.connection.execute("BEGIN EXCLUSIVE")
        } catch {
            return fail(run, error, "cannot begin the upgrade's transaction: \(error.message)")
        }
        let last: Step?
        switch opening {
        case .create(let prepackaged):
            let hint = prepackaged && run.freshInstallForTarget == nil
                ? "; the plan has no fresh_install, so its steps stand for Room's createAllTables, which makes each table with CREATE TABLE IF NOT EXISTS: a pre-packaged file needs the plan's fresh_install (the exported schema's createSql)"
                : ""
            if let stopped = run.create(commit: .enclosingTransaction, failureNote: note + hint) { return rollBack(run, stopped) }
            last = nil
            if prepackaged, let invalid = RoomOpenHelper.validateSchema(run, .prepackaged) {
                run.connection.rollbackIfNeeded()
                return .stopped(.failed, invalid)
            }
        case .migrate(let path):
            if room {
                do {
                    try RoomOpenHelper.dropFTSSyncTriggers(run.connection)
                } catch {
                    run.connection.rollbackIfNeeded()
                    return fail(run, error, "Room's onPreMigrate cannot drop its FTS sync triggers: \(error.message); \(note)")
                }
            }
            for step in path {
                if let stopped = run.run(step, commit: .enclosingTransaction, failureNote: note) { return rollBack(run, stopped) }
            }
            last = path.last
            if room, let invalid = RoomOpenHelper.validateSchema(run, .migrated(after: path.last)) {
                run.connection.rollbackIfNeeded()
                if let step = path.last { return run.fail(step, .failed, invalid) }
                return .stopped(.failed, invalid)
            }
        case .erase:
            if let stopped = erase(run, note: note) { return stopped }
            last = nil
        }
        do {
            if room { try RoomOpenHelper.updateIdentity(run) }
            try run.recordVersion(run.target)
            try run.connection.execute("COMMIT")
        } catch {
            run.connection.rollbackIfNeeded()
            return fail(run, error, "cannot end the upgrade: \(error.message); \(note)", at: last)
        }
        run.versionCommitted(run.target)
        return open(run)
    }

    /// The file at the target: Room's `onOpen` checks its identity, then the run ends there.
    private func open(_ run: MigrationRun) -> Migrator.Ending {
        if room, let failure = RoomOpenHelper.checkIdentity(run) { return .stopped(.failed, failure) }
        return run.finish(at: run.target)
    }

    /// `dropAllTables` then `createAllTables`, in the transaction: the `database_erased`
    /// event says what the fallback erased. Nil when done.
    private func erase(_ run: MigrationRun, note: String) -> Migrator.Ending? {
        let entities: [RoomOpenHelper.Entity]
        do throws(Verifier.FreshInstallFailure) {
            entities = try RoomOpenHelper.entities(run)
        } catch {
            run.connection.rollbackIfNeeded()
            return .stopped(.failed, Failure(
                kind: Failure.Kind.sqlError, message: "Room's destructive fallback cannot be rehearsed: \(error.message)"))
        }
        let erased: String
        do {
            erased = try RoomOpenHelper.dropAllTables(entities, run.connection)
        } catch {
            run.connection.rollbackIfNeeded()
            return fail(run, error, "Room's destructive fallback cannot drop the app's tables: \(error.message); \(note)")
        }
        var event = MigrationEvent(.databaseErased)
        event.userVersion = run.standing.version
        event.failure = Failure(
            kind: Failure.Kind.dataErased,
            message: "Room found no migration from version \(run.standing.version) to \(run.target), and the app's destructive fallback (room_destructive_fallback) applies: Room dropped every table of the app and created them anew, empty. The user's data is erased: \(erased)")
        run.emit(event)
        if let stopped = run.create(commit: .enclosingTransaction, failureNote: note) { return rollBack(run, stopped) }
        return nil
    }

    private func rollBack(_ run: MigrationRun, _ stopped: Migrator.StepStop) -> Migrator.Ending {
        if !stopped.abandoned { run.connection.rollbackIfNeeded() }
        return stopped.ending
    }

    private func fail(_ run: MigrationRun, _ error: SQLiteError, _ message: String, at step: Step? = nil) -> Migrator.Ending {
        let failure = Failure(
            kind: error.isDiskFull ? Failure.Kind.diskFull : Failure.Kind.sqlError, step: step?.version, message: message,
            statement: error.sql, sqliteCode: error.code)
        let stop: Migrator.Stop = error.isDiskFull ? .diskFull : .failed
        guard let step else { return .stopped(stop, failure) }
        return run.fail(step, stop, failure)
    }
}
