import Foundation
import Testing
import TestSupport
import MigrationCore

/// `preflight plan import` and `run --plan DIR` on fixtures laid out as each tool lays
/// them out (Fixtures/PlanImport): the task app's three versions, which
/// `tasks.plan.json` writes by hand.
@Suite struct PlanImportTests {
    static let fixtures = Repository.path("Tests/PreflightServiceTests/Fixtures/PlanImport")

    /// The task app's version 1, as that version's own SQL made it.
    static let version1 = "CREATE TABLE task (id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0);"

    private func steps(_ imported: ImportedPlan) throws -> [Step] {
        try PlanDecoder.decode(imported.document).steps
    }

    func statements(_ step: Step) -> [String] {
        guard case .sql(let statements) = step.action else { return [] }
        return statements
    }

    /// A copy of a SQLDelight fixture project, MODULE the folder of its Gradle module, with
    /// `databases/1.db` made by FIRSTSCHEMA, the SQL of version 1, as SQLDelight's
    /// generateSqlDelightSchema would have written it at that release.
    static func sqldelightProject(
        _ fixture: String = "sqldelight", module: String = "app", firstSchema: String? = version1, in directory: TemporaryDirectory
    ) throws -> String {
        let copy = directory.file(fixture)
        try FileManager.default.copyItem(atPath: fixtures + "/" + fixture, toPath: copy)
        let project = copy + "/" + module
        if let firstSchema {
            let sourceSet = FileManager.default.fileExists(atPath: project + "/src/commonMain") ? "commonMain" : "main"
            let databases = project + "/src/\(sourceSet)/sqldelight/databases"
            try FileManager.default.createDirectory(atPath: databases, withIntermediateDirectories: true)
            try FixtureDatabase.create(at: databases + "/1.db", sql: firstSchema + ";PRAGMA user_version = 1;")
        }
        return project
    }

    // MARK: - Layouts

    @Test func flywayFilesBecomeStepsNamedAfterThem() throws {
        let imported = try PlanImport(layout: .flyway, directory: Self.fixtures + "/flyway").makePlan()
        let steps = try steps(imported)
        #expect(steps.map(\.name) == ["V1__create_tasks.sql", "V2__task_log.sql", "V2_1__priority.sql"])
        #expect(steps.map(\.version) == [1, 2, 3])
        // Split as SQLite splits: a `;` in a string, a comment or a trigger body ends nothing.
        let second = statements(steps[1])
        #expect(second.count == 3)
        #expect(second[0].hasSuffix("ALTER TABLE task ADD COLUMN note TEXT DEFAULT 'a; b'"))
        #expect(second[2].hasPrefix("CREATE TRIGGER task_done") && second[2].hasSuffix("'done; logged');\nEND"))
        #expect(statements(steps[2]).count == 2)
        #expect(imported.notes.contains { $0.contains("R__open_tasks_view.sql") })
        #expect(imported.notes.contains { $0.contains("1, 2, 2.1") })
        #expect(try MigrationLayout.detect(in: Self.fixtures + "/flyway") == .flyway)
    }

    @Test func numberedFilesKeepTheirVersions() throws {
        let imported = try PlanImport(layout: .sqlDir, directory: Self.fixtures + "/sql-dir").makePlan()
        #expect(try steps(imported).map(\.name) == ["001_create_tasks.sql", "002_task_log.sql", "003_priority.sql"])
        #expect(imported.notes.isEmpty, "\(imported.notes)")
        #expect(imported.name == "sql-dir")
        #expect(try MigrationLayout.detect(in: Self.fixtures + "/sql-dir") == .sqlDir)
    }

    @Test func sqldelightVersionsAreItsOwn() throws {
        let directory = TemporaryDirectory("import")
        let project = try Self.sqldelightProject(in: directory)
        let imported = try PlanImport(layout: .sqldelight, directory: project).makePlan()
        let plan = try PlanDecoder.decode(imported.document)
        // Step 1 creates version 1 (databases/1.db); N.sqm migrates N to N + 1.
        #expect(plan.steps.map(\.name) == ["1.db", "1.sqm", "2.sqm"])
        #expect(imported.name == "app")
        let fresh = try #require(plan.freshInstall)
        #expect(fresh.version == 3)
        let script = fresh.sql.joined(separator: "\n")
        // SQLDelight's dialect is gone: the import, the labelled queries, `AS Boolean`.
        #expect(!script.contains("import") && !script.contains("selectAll") && !script.contains("SELECT *"))
        #expect(!script.contains("AS Boolean"))
        #expect(script.contains("done INTEGER NOT NULL DEFAULT 0"))
        // Tables first, then the index and the trigger that name them.
        let kinds = fresh.sql.map { statement in
            ["TABLE", "INDEX", "TRIGGER"].first { statement.contains("CREATE \($0)") } ?? "?"
        }
        #expect(kinds == ["TABLE", "TABLE", "INDEX", "TRIGGER"])
        for folder in [project, project + "/src/main/sqldelight", project + "/src/main/sqldelight/migrations"] {
            #expect(try MigrationLayout.detect(in: folder) == .sqldelight, "\(folder)")
            #expect(try PlanDecoder.decode(PlanImport(layout: .sqldelight, directory: folder).makePlan().document).steps.count == 3)
        }
    }

    @Test func aKotlinMultiplatformModuleKeepsItsSchemaInCommonMain() throws {
        let directory = TemporaryDirectory("import")
        let project = try Self.sqldelightProject(in: directory)
        try FileManager.default.moveItem(atPath: project + "/src/main", toPath: project + "/src/commonMain")
        let imported = try PlanImport(layout: .sqldelight, directory: project).makePlan()
        #expect(imported.name == "app")
        #expect(try steps(imported).map(\.name) == ["1.db", "1.sqm", "2.sqm"])
    }

    @Test func sqldelightWithoutTheFirstSchemaSaysWhereItGoes() throws {
        let directory = TemporaryDirectory("import")
        let project = try Self.sqldelightProject(firstSchema: nil, in: directory)
        let error = #expect(throws: PlanImportError.self) {
            try PlanImport(layout: .sqldelight, directory: project).makePlan()
        }
        let message = error?.message ?? ""
        #expect(message.contains("version 1") && message.contains("databases/1.db") && message.contains("generateSqlDelightSchema"))
    }

    /// Room's schemas: the fresh install, the identity hash and the runner; its 1.json is
    /// step 1 of migrations that start at version 2.
    @Test func roomSchemasGiveTheFreshInstallAndTheHash() throws {
        let imported = try PlanImport(
            layout: .sqlDir, directory: Self.fixtures + "/room/migrations", roomSchemas: Self.fixtures + "/room/schemas"
        ).makePlan()
        let text = String(decoding: imported.document, as: UTF8.self)
        let document = try #require(JSONValue.parse(imported.document)?.objectValue)
        #expect(document["name"] == .string("TaskDatabase"))
        #expect(document["runner"] == .string("room"))
        #expect(document["room_identity_hash"] == .string("e0c5a7d2b94f61e8c3a0d7b5f2e9c4a6"))
        guard case .array(let steps)? = document["steps"] else {
            Issue.record("no steps: \(text)")
            return
        }
        #expect(steps.map { $0.objectValue?["name"] } == [.string("1.json"), .string("2_task_log.sql"), .string("3_priority.sql")])
        #expect(steps.first?.objectValue?["sql"] == .array([.string(
            "CREATE TABLE IF NOT EXISTS `task` (`id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` TEXT NOT NULL, `done` INTEGER NOT NULL DEFAULT 0)")]))
        let fresh = try #require(document["fresh_install"]?.objectValue)
        #expect(fresh["version"] == .number(3))
        guard case .array(let freshSQL)? = fresh["sql"] else {
            Issue.record("no fresh install: \(text)")
            return
        }
        let freshStatements = freshSQL.compactMap(\.stringValue)
        #expect(freshStatements.contains("CREATE INDEX IF NOT EXISTS `index_task_done` ON `task` (`done`)"))
        #expect(freshStatements.contains("CREATE VIEW `open_tasks` AS SELECT id, title FROM task WHERE done = 0"))
        #expect(!text.contains("${TABLE_NAME}") && !text.contains("${VIEW_NAME}"))
        // room_master_table and its hash are the runner's to write, as Room's open helper writes them.
        #expect(!freshStatements.contains { $0.contains("room_master_table") })
        // The keys in the contract's order, for the person who reads it.
        let order = ["\"name\"", "\"runner\"", "\"room_identity_hash\"", "\"steps\"", "\"fresh_install\""].map { key in
            text.range(of: key).map { text.distance(from: text.startIndex, to: $0.lowerBound) } ?? -1
        }
        #expect(order == order.sorted() && !order.contains(-1), "\(text)")
        #expect(try PlanDecoder.decode(imported.document).steps.count == 3)
    }

    @Test func roomVersionsMustMatchTheMigrations() throws {
        let directory = TemporaryDirectory("import")
        try Data("ALTER TABLE task ADD COLUMN note TEXT;".utf8).write(to: URL(fileURLWithPath: directory.file("2_note.sql")))
        let error = #expect(throws: PlanImportError.self) {
            try PlanImport(layout: .sqlDir, directory: directory.path, roomSchemas: Self.fixtures + "/room/schemas").makePlan()
        }
        #expect(error?.message.contains("3.json, is version 3, but the migrations reach version 2") == true, "\(String(describing: error))")
        // Flyway's 2.1 is no Room version.
        #expect(throws: PlanImportError.self) {
            try PlanImport(layout: .flyway, directory: Self.fixtures + "/flyway", roomSchemas: Self.fixtures + "/room/schemas").makePlan()
        }
    }

    @Test func foldersThatAreNoPlanSaySo() throws {
        let directory = TemporaryDirectory("import")
        func write(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory.file(name)))
        }
        func message(_ body: () throws -> Void) -> String {
            do {
                try body()
                return ""
            } catch {
                return (error as? PlanImportError)?.message ?? "\(error)"
            }
        }
        #expect(message { _ = try MigrationLayout.detect(in: directory.path) }.contains("holds no migrations"))
        try write("1_init.sql", "CREATE TABLE a(x);")
        try write("V2__more.sql", "CREATE TABLE b(y);")
        #expect(message { _ = try MigrationLayout.detect(in: directory.path) }.contains("several layouts"))
        try write("01_again.sql", "CREATE TABLE c(z);")
        let duplicate = message { _ = try PlanImport(layout: .sqlDir, directory: directory.path).makePlan() }
        #expect(duplicate.contains("01_again.sql") && duplicate.contains("1_init.sql") && duplicate.contains("both version 1"))
        let empty = TemporaryDirectory("import")
        try Data("-- nothing yet; soon\n".utf8).write(to: URL(fileURLWithPath: empty.file("1_empty.sql")))
        #expect(message { _ = try PlanImport(layout: .sqlDir, directory: empty.path).makePlan() }.contains("holds no SQL statement"))
    }

    // MARK: - The command and the round trip

    @Test func planImportWritesAValidPlan() throws {
        let directory = TemporaryDirectory("import")
        let out = directory.file("plan.json")
        let result = try PreflightProcess.run([
            "plan", "import", "--from=flyway", Self.fixtures + "/flyway", "--name", "tasks", "--out", out,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("note: left out R__open_tasks_view.sql"))
        #expect(result.stderr.contains("wrote \(out): plan tasks, 3 steps"))
        let plan = try PlanDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
        #expect(plan.name == "tasks")
        let printed = try PreflightProcess.run(["plan", "import", "--from", "sql-dir", Self.fixtures + "/sql-dir"])
        #expect(try PlanDecoder.decode(Array(printed.stdout)).steps.count == 3)
        let unknown = try PreflightProcess.run(["plan", "import", "--from", "liquibase", Self.fixtures])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("preflight plan import: --from must be room, sqldelight, flyway, sql-dir, got \"liquibase\""))
    }

    /// Importing, then running, gives what the plan written by hand gives: on a device's
    /// version 1 with rows, and on a fresh install.
    @Test(arguments: ["flyway", "sql-dir", "sqldelight", "imported file"])
    func anImportRunsAsTheHandWrittenPlan(source: String) throws {
        let directory = TemporaryDirectory("round-trip")
        let plan: String
        switch source {
        case "sqldelight": plan = try Self.sqldelightProject(in: directory)
        case "imported file":
            plan = directory.file("imported.json")
            let written = try PreflightProcess.run(["plan", "import", "--from", "sql-dir", Self.fixtures + "/sql-dir", "--out", plan])
            #expect(written.status == 0, "\(written.stderr)")
        default: plan = Self.fixtures + "/" + source
        }
        let device = try FixtureDatabase.create(
            at: directory.file("v1.db"),
            sql: Self.version1 + "INSERT INTO task(title, done) VALUES ('buy milk', 0), ('call; later', 1); PRAGMA user_version = 1;")
        let fresh = directory.file("fresh.db")
        _ = FileManager.default.createFile(atPath: fresh, contents: Data())
        for input in [device, fresh] {
            let byHand = try rehearse(input, plan: Self.fixtures + "/tasks.plan.json", out: directory.file("by-hand.db"))
            let imported = try rehearse(input, plan: plan, out: directory.file("imported.db"))
            var expected = byHand.summary
            // SQLDelight's driver (runner sqliteopenhelper) opens an empty file with
            // `Schema.create`, the .sq files' schema: no migration runs.
            if source == "sqldelight", input == fresh { expected.steps = [] }
            #expect(imported.summary == expected, "\(source) on \(input)")
            #expect(byHand.summary.outcome == "completed")
            let schemas = try [directory.file("by-hand.db"), directory.file("imported.db")].map { path in
                try SchemaSnapshot.read(Connection(path: path, readOnly: true))
            }
            #expect(schemas[0] == schemas[1], "\(source): the migrated schemas differ")
        }
    }

    /// What a run's report says that does not depend on how the plan was written.
    struct RunSummary: Equatable {
        var outcome: String?
        var userVersion: Int?
        var tables: [String: Int]?
        var integrity: String?
        var schemaMatchesFreshInstall: Bool?
        /// `final.schema_diff`, as text.
        var schemaDiff: String
        var steps: [String]
    }

    func rehearse(_ database: String, plan: String, out: String) throws -> (summary: RunSummary, stderr: String) {
        let result = try PreflightProcess.run(["run", "--db", database, "--plan", plan, "--out", out])
        let report = try #require(
            (try? JSONSerialization.jsonObject(with: result.stdout)) as? [String: Any], "\(result.stderr)")
        let final = report["final"] as? [String: Any] ?? [:]
        let steps = (report["steps"] as? [[String: Any]] ?? []).map { step in
            "v\(step["version"] ?? "") \(step["status"] ?? "") \(step["cost_class"] ?? "") \(step["kind"] ?? "")"
        }
        return (
            RunSummary(
                outcome: report["outcome"] as? String, userVersion: final["user_version"] as? Int,
                tables: final["tables"] as? [String: Int], integrity: final["integrity"] as? String,
                schemaMatchesFreshInstall: final["schema_matches_fresh_install"] as? Bool,
                schemaDiff: "\(final["schema_diff"] ?? "")", steps: steps),
            result.stderr
        )
    }
}
