/// What Room checks inside its upgrade (`RoomOpenHelper`), beyond running the migrations.
enum RoomChecks {
    /// `onUpgrade` finds no migration path from the file's version: Room throws "A
    /// migration from X to Y was required but not found". Plans start at version 1, so a
    /// path exists from every version 0...newest-1; what remains is a negative version, and
    /// a file at version 0 that already holds tables (Room would take it for a new
    /// database, and no step migrates what those tables are from).
    static func missingMigration(_ run: MigrationRun) throws(SQLiteError) -> Failure? {
        let version = run.standing.version
        let ignored = run.plan.runner.frameworkTables
        if version == 0 {
            let tables = try UserTable.list(run.connection).map(\.name).filter { !ignored.contains(SQLNormalizer.fold($0)) }
            guard !tables.isEmpty else { return nil }
            return Failure(
                kind: Failure.Kind.missingMigration,
                message: "the file is at user_version 0 but already holds tables (\(tables.prefix(5).joined(separator: ", "))): Room takes a version-0 file for a new database, and no step of plan \"\(run.plan.name)\" migrates these tables; Room fails at every launch with \"A migration from 0 to \(run.target) was required but not found\"")
        }
        guard version < 0 else { return nil }
        return Failure(
            kind: Failure.Kind.missingMigration,
            message: "the file is at user_version \(version), and plan \"\(run.plan.name)\" has no migration from there (its steps start at version 1): Room fails at every launch with \"A migration from \(version) to \(run.target) was required but not found\"")
    }

    /// `onValidateSchema`, inside the upgrade's transaction before it commits: each table
    /// and view of the schema Room was built with (here: the fresh install's) must be as
    /// the upgrade left it: columns, keys, constraints and the table's indexes. Tables the
    /// fresh install does not have, triggers and the frameworks' own tables are not checked,
    /// as Room does not check them. Nil when the schema passes.
    static func validateSchema(_ run: MigrationRun, after last: Step) -> Failure? {
        let stays = "Room throws \"Migration didn't properly handle\" inside the upgrade's transaction, so the whole path rolls back, at every launch: the database stays at version \(run.standing.version)"
        // The fresh install is built in a file of its own beside the database, removed again.
        let settings = run.migrator.settings
        let verifier = Verifier(
            plan: run.plan, target: run.target, mode: .off, freshInstallPath: run.connection.path + "-room-expected",
            connection: settings.connection, sqliteVersion: settings.sqliteVersion)
        let expected: SchemaSnapshot
        do throws(Verifier.FreshInstallFailure) {
            expected = try verifier.freshInstallSnapshot()
        } catch {
            return Failure(
                kind: Failure.Kind.schemaValidation, step: last.version,
                message: "Room's schema validation cannot be rehearsed: \(error.message)")
        }
        let upgraded: SchemaSnapshot
        do throws(SQLiteError) {
            upgraded = try SchemaSnapshot.read(run.connection)
        } catch {
            return Failure(
                kind: Failure.Kind.schemaValidation, step: last.version,
                message: "Room's schema validation cannot read the upgraded schema: \(error.message)",
                statement: error.sql, sqliteCode: error.code)
        }
        let ignored = run.plan.runner.frameworkTables
        var unhandled: [String] = []
        var lines: [String] = []
        for name in expected.tables.keys.sorted() where !ignored.contains(name) {
            let diff = SchemaDiff(upgraded: upgraded.table(name), freshInstall: expected.table(name))
            if !diff.isEmpty {
                unhandled.append(name)
                lines += diff.lines
            }
        }
        for name in expected.views.keys.sorted() {
            let diff = SchemaDiff(
                upgraded: SchemaSnapshot(views: upgraded.views.filter { $0.key == name }),
                freshInstall: SchemaSnapshot(views: expected.views.filter { $0.key == name }))
            if !diff.isEmpty {
                unhandled.append(name)
                lines += diff.lines
            }
        }
        guard !unhandled.isEmpty else { return nil }
        return Failure(
            kind: Failure.Kind.schemaValidation, step: last.version,
            message: "Migration didn't properly handle: \(unhandled.joined(separator: ", ")). The schema after step \(last.version) differs from the fresh install's: \(lines.joined(separator: "; ")). \(stays)")
    }
}

extension SchemaSnapshot {
    /// Only the table `name` and its indexes (empty when there is no such table).
    fileprivate func table(_ name: String) -> SchemaSnapshot {
        SchemaSnapshot(
            tables: tables.filter { $0.key == name }, indexes: indexes.filter { $0.value.table == name })
    }
}
