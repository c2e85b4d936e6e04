/// What Room does inside the transaction in which it opens a file whose version is not its
/// own, beyond running the migrations: androidx `room-runtime` `RoomOpenHelper.android.kt`
/// (to 2.6) and `RoomConnectionManager.kt` (2.7), which do the same in this: `onCreate`
/// (create every table, validate a file that was not empty, write the identity hash),
/// `onMigrate` (find the path, `onPreMigrate`, the migrations, `onValidateSchema`, the
/// identity hash), and without a path the destructive fallback or "A migration from X to
/// Y was required but not found"; then `onOpen` (the identity check). `SQLiteOpenHelperRunner`
/// calls these in that order.
enum RoomOpenHelper {
    /// No migration path from the file's version, and no fallback that applies.
    static func missingMigration(_ run: MigrationRun) -> Failure {
        let version = run.standing.version
        let why: String
        if version > run.target {
            why = "the file is at user_version \(version), above the target \(run.target), and the plan has no step down"
        } else if version < run.plan.baseVersion {
            why = "the file is at user_version \(version), below the plan's base version \(run.plan.baseVersion), the oldest its steps start from"
        } else {
            why = "the file is at user_version \(version), and no path of the plan's steps leads from there to \(run.target) (Room's findMigrationPath: from each version, the step that goes furthest without passing the target)"
        }
        return Failure(
            kind: Failure.Kind.missingMigration,
            message: "\(why): Room fails at every launch with \"A migration from \(version) to \(run.target) was required but not found\"\(fallbackNote(run))")
    }

    private static func fallbackNote(_ run: MigrationRun) -> String {
        switch run.plan.room?.destructiveFallback ?? .off {
        case .off: return " (the plan's room_destructive_fallback is off)"
        case .always: return ""
        case .onDowngrade: return " (the app's fallbackToDestructiveMigrationOnDowngrade applies only to a downgrade)"
        case .from(let versions): return " (fallbackToDestructiveMigrationFrom names \(versions.sorted().map(String.init).joined(separator: ", ")), not \(run.standing.version))"
        }
    }

    /// Whether the app's destructive fallback erases a file that has no migration path
    /// (`DatabaseConfiguration.isMigrationRequired`, negated).
    static func erases(_ run: MigrationRun) -> Bool {
        run.plan.room?.destructiveFallback.erases(from: run.standing.version, to: run.target) ?? false
    }

    /// `hasEmptySchema`: nothing in `sqlite_master` but Android's `android_metadata`.
    static func isEmpty(_ connection: Connection) throws(SQLiteError) -> Bool {
        try connection.integer("SELECT count(*) FROM main.sqlite_schema WHERE name != 'android_metadata'") == 0
    }

    /// `onPreMigrate`: the generated code drops Room's FTS content sync triggers
    /// (`DBUtil.dropFtsSyncTriggers`, every trigger named `room_fts_content_sync_...`).
    static func dropFTSSyncTriggers(_ connection: Connection) throws(SQLiteError) {
        let triggers = try connection.rows(
            "SELECT name FROM main.sqlite_schema WHERE type = 'trigger' AND substr(name, 1, 22) = 'room_fts_content_sync_'")
        for row in triggers {
            guard let name = row[0].textValue else { continue }
            try connection.execute("DROP TRIGGER IF EXISTS \(SQLText.quote(name))")
        }
    }

    /// When Room validates the schema, which decides what it throws.
    enum Validation {
        /// `onMigrate`, after the path's migrations (the last one given).
        case migrated(after: Step?)
        /// `onCreate` on a version-0 file that held tables.
        case prepackaged
        /// `onOpen` on a file at the app's version without `room_master_table`.
        case opened
    }

    /// The schema Room was built with: the fresh install's, built with the platform's
    /// connection and functions in a file of its own beside the database.
    private static func schemaBuiltWith(_ run: MigrationRun) -> Verifier {
        Verifier(
            plan: run.plan, target: run.target, mode: .off, freshInstallPath: run.connection.path + "-room-expected",
            connection: run.migrator.settings.connection, sqliteVersion: run.migrator.settings.sqliteVersion)
    }

    /// `onValidateSchema` on the file as it is, against the schema Room was built with (the
    /// fresh install's, built in a file of its own beside the database and removed again).
    /// Nil when it passes; else the failure Room throws: "Migration didn't properly handle"
    /// after the migrations, "Pre-packaged database has an invalid schema" otherwise.
    static func validateSchema(_ run: MigrationRun, _ moment: Validation) -> Failure? {
        let verifier = schemaBuiltWith(run)
        let validation = RoomSchemaValidation(version: run.plan.room?.version ?? .newestRead)
        var step: Step?
        if case .migrated(let last) = moment { step = last }
        let mismatches: [RoomSchemaValidation.Mismatch]
        do throws(Verifier.FreshInstallFailure) {
            mismatches = try verifier.withFreshInstall { expected throws(SQLiteError) in
                try validation.mismatches(expected: expected, found: run.connection)
            }
        } catch {
            return Failure(
                kind: Failure.Kind.schemaValidation, step: step?.version,
                message: "Room's schema validation cannot be rehearsed: \(error.message)")
        }
        guard !mismatches.isEmpty else { return nil }
        let names = mismatches.map(\.name).joined(separator: ", ")
        let details = mismatches.flatMap(\.differences).joined(separator: "; ")
        let compared = "as Room's validation compares them (room \(validation.version)): \(details)"
        let rolledBack = "Room throws inside the transaction in which it opens the file, so everything rolls back, at every launch: the database stays at version \(run.standing.version)"
        let message: String
        switch moment {
        case .migrated:
            message = "Migration didn't properly handle: \(names). After step \(step?.version ?? run.target), \(compared). \(rolledBack)"
        case .prepackaged:
            message = "Pre-packaged database has an invalid schema: \(names). The file was at user_version 0 but held tables, so Room created what was missing (CREATE ... IF NOT EXISTS) and validated it, \(compared). \(rolledBack)"
        case .opened:
            message = "Pre-packaged database has an invalid schema: \(names). The file is at version \(run.target) without room_master_table, so Room's onOpen validates it, \(compared). Room throws this in onOpen, at every launch"
        }
        return Failure(kind: Failure.Kind.schemaValidation, step: step?.version, message: message)
    }

    /// The entity tables and views of the schema the app was built with (the fresh
    /// install's), which the destructive fallback drops.
    struct Entity {
        var name: String
        var isView: Bool
    }

    static func entities(_ run: MigrationRun) throws(Verifier.FreshInstallFailure) -> [Entity] {
        let verifier = schemaBuiltWith(run)
        return try verifier.withFreshInstall { expected throws(SQLiteError) in
            let ignored = Runner.room.frameworkTables
            return try expected.rows("SELECT name, type FROM main.sqlite_schema WHERE type IN ('table', 'view') ORDER BY rowid")
                .compactMap { row in row[0].textValue.map { Entity(name: $0, isView: row[1].textValue == "view") } }
                .filter { !ignored.contains(SQLNormalizer.fold($0.name)) && !$0.name.hasPrefix("sqlite_") }
        }
    }

    /// The destructive fallback's `dropAllTables` as Room's compiler writes it: each entity
    /// table and view, `DROP ... IF EXISTS`. Answers what that erased, in words.
    static func dropAllTables(_ entities: [Entity], _ connection: Connection) throws(SQLiteError) -> String {
        let present = Set(try UserTable.list(connection).map { SQLNormalizer.fold($0.name) })
        var rows: Int64 = 0
        var tables = 0
        for entity in entities where !entity.isView && present.contains(SQLNormalizer.fold(entity.name)) {
            rows += try connection.integer("SELECT count(*) FROM \(SQLText.quote(entity.name))")
            tables += 1
        }
        for entity in entities {
            try connection.execute("DROP \(entity.isView ? "VIEW" : "TABLE") IF EXISTS \(SQLText.quote(entity.name))")
        }
        return "\(rows) row\(rows == 1 ? "" : "s") in \(tables) table\(tables == 1 ? "" : "s")"
    }

    /// `updateIdentity`: the identity hash of the target version into `room_master_table`.
    static func updateIdentity(_ run: MigrationRun) throws(SQLiteError) {
        guard let hash = run.plan.roomIdentityHash(at: run.target) else { return }
        try RoomMasterTable.write(identityHash: hash, run.connection)
    }
}

// MARK: - onOpen

extension RoomOpenHelper {
    /// `onOpen`'s `checkIdentity`, once the file is at the app's version (after the open
    /// helper's transaction, or at once when there was nothing to do): a `room_master_table`
    /// whose hash is not the app's throws "Room cannot verify the data integrity" at every
    /// launch; a file without the table is validated as a pre-packaged one and given the
    /// hash. Only when the plan knows the target's identity hash (Room always knows its own);
    /// nil when the file passes.
    static func checkIdentity(_ run: MigrationRun) -> Failure? {
        guard let expected = run.plan.roomIdentityHash(at: run.target) else { return nil }
        do throws(SQLiteError) {
            let hasTable = try run.connection.integer(
                "SELECT count(*) FROM main.sqlite_schema WHERE type = 'table' AND name = '\(RoomMasterTable.table)'") > 0
            guard hasTable else {
                if let invalid = validateSchema(run, .opened) { return invalid }
                try updateIdentity(run)
                return nil
            }
            let found = try run.connection.rows("SELECT identity_hash FROM \(RoomMasterTable.table) WHERE id = \(RoomMasterTable.rowID) LIMIT 1")
                .first?[0].textValue
            guard found != expected else { return nil }
            return Failure(
                kind: Failure.Kind.identityMismatch,
                message: "Room cannot verify the data integrity: the file is at version \(run.target), but room_master_table holds the identity hash \(found ?? "(none)") where the app's is \(expected) (\"Looks like you've changed schema but forgot to update the version number\"). Room throws this in onOpen, at every launch")
        } catch {
            return Failure(
                kind: Failure.Kind.sqlError, message: "cannot read room_master_table: \(error.message)",
                statement: error.sql, sqliteCode: error.code)
        }
    }
}

extension Plan {
    /// The identity hash Room leaves in `room_master_table` at `version`: the plan's
    /// `room_identity_hashes` entry, or for the newest version `room_identity_hash`.
    public func roomIdentityHash(at version: Int) -> String? {
        room?.identityHashes[version] ?? (version == newestVersion ? roomIdentityHash : nil)
    }
}
