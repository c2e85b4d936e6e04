import Foundation

/// Checks a migrated database after its last step and fills the report's `final` section
/// (docs/CONTRACT.md §3): integrity, foreign keys, rows lost, and the schema compared with a
/// fresh install of the same version.
///
///     let verifier = Verifier(plan: plan, target: 5, mode: .full, freshInstallPath: scratchPath)
///     let verification = try verifier.verify(connection: connection, tablesBefore: inputTables)
///     if !verification.passed { ... outcome verification_failed ... }
///
/// The migrated file is only read, through the connection the caller opened (perhaps
/// through the space VFS). The fresh install is built in a new file at
/// `freshInstallPath`, removed afterwards.
public struct Verifier: Sendable {
    public let plan: Plan
    public let target: Int
    public let mode: Mode
    /// Where the fresh install is built: an empty file made there, then removed with its
    /// journal or WAL. Whatever was there before is removed first.
    public let freshInstallPath: String
    /// The platform's connection settings, under which the fresh install is built too
    /// (with `legacy_alter_table` a step can succeed that fails without it).
    public let connection: ConnectionSettings
    /// The device's SQLite: the fresh install has the functions of it that Preflight
    /// provides, as the migration does (`MigrationSettings.defineFunctions`).
    public let sqliteVersion: SQLiteVersion?

    /// How thoroughly the file's integrity is checked; the other checks always run.
    public enum Mode: String, Sendable, Codable {
        /// `PRAGMA integrity_check`.
        case full
        /// `PRAGMA quick_check`: no index-against-table cross-check.
        case quick
        /// No integrity check.
        case off
    }

    /// What `verify` compares the migrated schema with.
    public enum SchemaComparison: Sendable {
        /// A fresh install, built then (`freshInstallSnapshot()`).
        case freshInstall
        /// A fresh install the caller built already: it needs only the plan, so it can
        /// be built before the migration ends.
        case builtFreshInstall(Result<SchemaSnapshot, FreshInstallFailure>)
        /// Nothing: the run stopped short of its target and only the file's state is
        /// wanted (`schema_matches_fresh_install` and `schema_diff` stay nil).
        case none
    }

    /// How many lines of `integrity_check` / `quick_check` the report keeps.
    static let integrityLines = 10

    public init(
        plan: Plan, target: Int, mode: Mode, freshInstallPath: String, connection: ConnectionSettings = ConnectionSettings(),
        sqliteVersion: SQLiteVersion? = nil
    ) {
        self.plan = plan
        self.target = target
        self.mode = mode
        self.freshInstallPath = freshInstallPath
        self.connection = connection
        self.sqliteVersion = sqliteVersion
    }

    /// Verifies the database open on `connection`.
    ///
    /// - Parameters:
    ///   - tablesBefore: row counts of the input, before any step ran (`TableCounts`).
    ///   - startVersion: the input's user_version; only steps after it applied in this
    ///     run and can allow a loss of rows. Nil counts every step up to the version reached.
    ///   - schema: what the schema is compared with.
    /// - Throws: only when SQLite cannot read the migrated database at all; every failed
    ///   check is a sentence in `problems` instead.
    public func verify(
        connection: Connection, tablesBefore: [String: Int64], startVersion: Int? = nil,
        schema: SchemaComparison = .freshInstall
    ) throws(SQLiteError) -> Verification {
        var final = FinalState()
        var problems: [String] = []

        let userVersion = try connection.userVersion
        final.userVersion = userVersion
        // The version as the plan's runner keeps it (GRDB: in grdb_migrations).
        let reached = try Standing.read(connection, plan: plan).version
        if reached != target {
            let kept = plan.runner.keepsUserVersion ? "version" : "migration"
            problems.append("the database is at \(kept) \(reached) after the run, not at the target \(target)")
        }

        // Integrity: the only check `verify: off` skips.
        let integrity = checkIntegrity(connection)
        final.integrity = integrity
        if integrity != "ok" && integrity != Self.notChecked {
            let pragma = mode == .quick ? "quick_check" : "integrity_check"
            problems.append("PRAGMA \(pragma) reports damage: \(integrity.split(separator: "\n").first ?? "")")
        }

        // Foreign keys: cheap next to integrity, so always.
        do {
            let violations = try countForeignKeyViolations(connection)
            final.foreignKeyViolations = violations
            if violations > 0 {
                problems.append("\(violations) \(violations == 1 ? "row violates" : "rows violate") a foreign key (PRAGMA foreign_key_check)")
            }
        } catch {
            problems.append("PRAGMA foreign_key_check cannot run: \(error.message)")
        }

        // Rows.
        let tablesAfter = try TableCounts.count(connection)
        final.tables = tablesAfter.rows
        let (lost, lossProblems) = rowsLost(
            before: tablesBefore, after: tablesAfter.rows, appliedSteps: (startVersion ?? 0)..<max(startVersion ?? 0, reached))
        final.rowsLost = lost
        problems += lossProblems
        let uncounted = tablesAfter.uncounted

        // Schema.
        let freshInstall: Result<SchemaSnapshot, FreshInstallFailure>
        switch schema {
        case .none: return Verification(final: final, problems: problems, uncountedTables: uncounted)
        case .freshInstall: freshInstall = Result { () throws(FreshInstallFailure) in try freshInstallSnapshot() }
        case .builtFreshInstall(let built): freshInstall = built
        }
        // The framework's own tables (grdb_migrations, room_master_table) are not the app's schema.
        let upgraded = try SchemaSnapshot.read(connection).removingTables(plan.runner.frameworkTables)
        do {
            let diff = SchemaDiff(upgraded: upgraded, freshInstall: try freshInstall.get().removingTables(plan.runner.frameworkTables))
            final.schemaMatchesFreshInstall = diff.isEmpty
            final.schemaDiff = diff.lines
            // Under Room the differences are reported, not failed: Room's own validation
            // (`RoomOpenHelper`) judged the schema inside the upgrade's transaction, and what
            // it does not compare (a default no entity declares, a trigger, a table it does
            // not know) no launch of the app ever checks.
            if plan.runner != .room, let first = diff.lines.first {
                problems.append(
                    diff.lines.count == 1
                        ? "the schema differs from a fresh install: \(first)"
                        : "the schema differs from a fresh install in \(diff.lines.count) ways (see schema_diff), first: \(first)")
            }
        } catch {
            problems.append(error.message)
        }
        return Verification(final: final, problems: problems, uncountedTables: uncounted)
    }

    // MARK: - Integrity and foreign keys

    public static let notChecked = "not checked"

    /// "ok", the first lines `integrity_check` / `quick_check` reports, or "not checked".
    private func checkIntegrity(_ connection: Connection) -> String {
        let pragma: String
        switch mode {
        case .off: return Self.notChecked
        case .quick: pragma = "quick_check"
        case .full: pragma = "integrity_check"
        }
        do {
            let checked = try connection.withoutCellSizeCheck { () throws(SQLiteError) in
                try connection.rows("PRAGMA main.\(pragma)(\(Self.integrityLines))")
            }
            let lines = checked.compactMap { $0.first?.textValue }
            return lines.isEmpty ? "ok" : lines.joined(separator: "\n")
        } catch {
            return "PRAGMA \(pragma) failed: \(error.message)"
        }
    }

    /// The number of rows `PRAGMA foreign_key_check` reports, counted without keeping them.
    private func countForeignKeyViolations(_ connection: Connection) throws(SQLiteError) -> Int {
        let statement = try connection.prepare("PRAGMA main.foreign_key_check")
        try statement.bind([])
        var count = 0
        while try statement.step() { count += 1 }
        return count
    }

    // MARK: - Rows lost

    /// Tables with fewer rows than before, and a sentence for each loss no step allowed.
    ///
    /// A table that no longer exists is not counted: the plan dropped or renamed it, which
    /// the schema comparison judges. Preflight's own `_preflight_*` tables never count.
    /// A virtual table is counted under its own name (`TableCounts`), so a step that deletes
    /// from an FTS table concerns that table, not its shadow tables.
    func rowsLost(
        before: [String: Int64], after: [String: Int64], appliedSteps versions: Range<Int>
    ) -> ([String: Int64], [String]) {
        var lost: [String: Int64] = [:]
        var problems: [String] = []
        for (table, countBefore) in before.sorted(by: { $0.key < $1.key }) where !TableCounts.isInternal(table) {
            guard let countAfter = after[table], countAfter < countBefore else { continue }
            lost[table] = countBefore - countAfter
            let allowed = plan.steps.contains { step in
                step.fromVersion >= versions.lowerBound && step.version <= versions.upperBound && step.rowLossAllowed
                    && Self.step(step, concerns: table)
            }
            if !allowed {
                problems.append(
                    "\(countBefore - countAfter) of \(countBefore) rows of table \(table) were lost, and no applied step with \"row_loss\": \"allowed\" concerns that table")
            }
        }
        return (lost, problems)
    }

    /// Whether `step` works on `table`: the table of a rebuild or backfill, or for a `sql`
    /// step, a table whose name appears as a name (not inside a string) in its SQL.
    ///
    /// Why the text and not SQLite's authorizer: the step has already run, and its
    /// statements cannot be prepared again against the schema it left (a table it created
    /// exists now, one it dropped does not). A name in the text is what the step's author
    /// wrote; it errs towards allowing (a column alias spelled like the table also counts),
    /// which is right for a step whose author declared that it removes rows. A loss that
    /// only a cascade or a trigger causes in a table the step does not name is reported.
    static func step(_ step: Step, concerns table: String) -> Bool {
        let name = SQLNormalizer.fold(table)
        switch step.action {
        case .rebuild(let rebuild): return SQLNormalizer.fold(rebuild.table) == name
        case .backfill(let backfill): return SQLNormalizer.fold(backfill.table) == name
        case .sql(let statements):
            return statements.contains { statement in
                SQLNormalizer.tokens(statement).contains { token in
                    (token.kind == .identifier || token.kind == .keyword) && token.name == name
                }
            }
        }
    }

    // MARK: - Fresh install

    /// Why the fresh install could not be built; the message is a problem sentence.
    public struct FreshInstallFailure: Error {
        public var message: String
    }

    /// The schema of a fresh install of `target`: the plan's `fresh_install` script when it
    /// is for that version, otherwise steps 1...target replayed on an empty file, as an
    /// app installed at that version would have done.
    public func freshInstallSnapshot() throws(FreshInstallFailure) -> SchemaSnapshot {
        try withFreshInstall { connection throws(SQLiteError) in try SchemaSnapshot.read(connection) }
    }

    /// `read`'s answer on a connection to the fresh install of `target` (built as
    /// `freshInstallSnapshot` says), which is removed afterwards.
    func withFreshInstall<T>(_ read: (Connection) throws(SQLiteError) -> T) throws(FreshInstallFailure) -> T {
        let files = DatabaseFiles(freshInstallPath)
        // A journal or WAL left by a verification cut short would be replayed into the new file.
        files.remove()
        let path = files.path
        guard FileManager.default.createFile(atPath: path, contents: Data()) else {
            throw FreshInstallFailure(message: "the fresh install for the schema comparison cannot be created at \(path)")
        }
        defer { files.remove() }
        if let script = plan.freshInstall, script.version == target, target == plan.newestVersion {
            try runScript(script, path: path)
        } else {
            try replaySteps(path: path)
        }
        do throws(SQLiteError) {
            return try read(try Connection(path: path, readOnly: true))
        } catch {
            throw FreshInstallFailure(message: "the fresh install cannot be read: \(error.message)")
        }
    }

    /// The platform's settings for the fresh install, without its syncs: the file is
    /// scratch, read once and removed, and `synchronous` changes no schema. A sync per
    /// replayed step was most of what a long plan's replay cost.
    var scratchConnection: ConnectionSettings {
        var settings = connection
        settings.synchronous = "OFF"
        return settings
    }

    /// How the fresh install is built: the platform's connection, the device's functions,
    /// every step run (the migration itself judged the steps against the device's SQLite).
    private var replaySettings: MigrationSettings {
        MigrationSettings(
            target: target, spaceCheck: .off, connection: scratchConnection, sqliteVersion: sqliteVersion,
            refusesNewerSQL: false)
    }

    private func runScript(_ script: FreshInstall, path: String) throws(FreshInstallFailure) {
        do throws(SQLiteError) {
            let connection = try Connection(path: path)
            try replaySettings.defineFunctions(on: connection)
            for pragma in scratchConnection.pragmas(freshFile: true) { try connection.execute(pragma) }
            try connection.execute("PRAGMA foreign_keys = \(plan.foreignKeys ? "ON" : "OFF")")
            try connection.execute("BEGIN IMMEDIATE")
            do throws(SQLiteError) {
                for statement in script.sql { try connection.runPlanStatement(statement) }
                try connection.execute("COMMIT")
            } catch {
                connection.rollbackIfNeeded()
                throw error
            }
        } catch {
            var message = "the plan's fresh_install script fails, so the schema cannot be compared: \(error.message)"
            if let sql = error.sql { message += " in: \(sql)" }
            throw FreshInstallFailure(message: message)
        }
    }

    private func replaySteps(path: String) throws(FreshInstallFailure) {
        // Step by step whatever the app's runner: an empty file ends with the same schema,
        // and Room's runner, which builds this fresh install, must not build another.
        var replayed = plan
        replayed.runner = .perStep
        let migrator = Migrator(plan: replayed, settings: replaySettings)
        if case .stopped(_, let failure) = migrator.migrate(databaseAt: path, emit: { _ in }) {
            throw FreshInstallFailure(
                message: "replaying steps \(plan.baseVersion) to \(target) on an empty database fails, so the schema cannot be compared: \(failure.message)")
        }
    }
}

extension SchemaSnapshot {
    /// The snapshot without the tables `names` (folded) and their indexes and triggers.
    fileprivate func removingTables(_ names: Set<String>) -> SchemaSnapshot {
        guard !names.isEmpty else { return self }
        return SchemaSnapshot(
            tables: tables.filter { !names.contains($0.key) }, indexes: indexes.filter { !names.contains($0.value.table) },
            triggers: triggers.filter { !names.contains($0.value.table) }, views: views)
    }
}
