import Foundation
import Testing
import TestSupport

/// The plan's `runner` through `preflight run`: real worker processes, real SIGKILLs (the
/// test fault `after_steps`, a watchdog that allows that many steps per launch), each
/// runner's end state against its framework's loop (`FrameworkOracle`).
@Suite("Runners: the app's own migration loop", .serialized)
struct RunnerTests {
    /// The steps of the items plan, one array of statements each (versions 1...5).
    private let itemSteps = [
        ["CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"],
        ["ALTER TABLE items ADD COLUMN doubled INTEGER"],
        ["UPDATE items SET doubled = n * 2"],
        ["ALTER TABLE items ADD COLUMN label TEXT", "CREATE INDEX items_label ON items(label)"],
        ["UPDATE items SET label = 'item ' || n"],
    ]
    private let itemIDs = ["createItems", "addDoubled", "fillDoubled", "addLabel", "fillLabel"]

    /// Version 1 of the items app with 2,000 rows (under GRDB: its first migration recorded).
    private func itemsDatabase(in directory: TemporaryDirectory, grdb: Bool = false) throws -> String {
        let version = grdb
            ? "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY); INSERT INTO grdb_migrations VALUES ('createItems');"
            : "PRAGMA user_version = 1;"
        return try FixtureDatabase.create(at: directory.file(grdb ? "grdb-v1.db" : "items-v1.db"), sql: """
            CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
            \(series(2_000)) INSERT INTO items SELECT value, value FROM series;
            \(version)
            """)
    }

    /// A plan document of `steps` for `runner`, with ids when given, written to a file.
    private func plan(
        _ runner: String, steps: [[String]], ids: [String]? = nil, extra: String = "", in directory: TemporaryDirectory
    ) throws -> String {
        let stepsJSON = try steps.enumerated().map { index, statements in
            let id = ids.map { #""id": "\#($0[index])", "# } ?? ""
            let sql = try statements.map(jsonString).joined(separator: ", ")
            return #"{"version": \#(index + 1), \#(id)"name": "step \#(index + 1)", "sql": [\#(sql)]}"#
        }.joined(separator: ",\n  ")
        let path = directory.file("\(runner)-\(UUID().uuidString.prefix(6)).json")
        try Data(#"{"name": "items", "runner": "\#(runner)"\#(extra), "steps": [\#n  \#(stepsJSON)]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `preflight run` with its job directory inside `directory`.
    private func run(
        _ arguments: [String], in directory: TemporaryDirectory, fault: String? = nil
    ) throws -> PreflightProcess.Result {
        var environment = ["TMPDIR": directory.path]
        if let fault { environment["PREFLIGHT_TEST_FAULT"] = fault }
        return try PreflightProcess.run(["run"] + arguments, environment: environment)
    }

    private func copy(_ path: String, to name: String, in directory: TemporaryDirectory) throws -> String {
        let copy = directory.file(name)
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        return copy
    }

    // MARK: - Each runner against its framework's loop

    @Test(arguments: ["sqliteopenhelper", "room", "drift", "grdb"])
    func anUninterruptedRunEndsAsTheFrameworksLoopDoes(runner: String) throws {
        let directory = TemporaryDirectory("runner")
        let grdb = runner == "grdb"
        let database = try itemsDatabase(in: directory, grdb: grdb)
        let hash = "9bd4f4b3c1a8e0f2"
        let planPath = try plan(
            runner, steps: itemSteps, ids: grdb ? itemIDs : nil,
            extra: runner == "room" ? #", "room_identity_hash": "\#(hash)""# : "", in: directory)
        let result = try run(["--db", database, "--plan", planPath, "--out", directory.file("out.db")], in: directory)
        #expect(try result.decodedReport.outcome.rawValue == "completed", "\(result.stderr)")
        #expect(try result.decodedReport.plan.runner.rawValue == runner)

        let oracle = try copy(database, to: "oracle.db", in: directory)
        switch runner {
        case "grdb": try FrameworkOracle.grdb(oracle, migrations: Array(zip(itemIDs, itemSteps)).map { ($0.0, $0.1) })
        case "drift": try FrameworkOracle.drift(oracle, steps: itemSteps)
        default: try FrameworkOracle.openHelper(oracle, steps: itemSteps, roomIdentityHash: runner == "room" ? hash : nil)
        }
        #expect(try FrameworkOracle.contents(of: directory.file("out.db")) == FrameworkOracle.contents(of: oracle))
        if grdb {
            let steps = try result.decodedReport.steps
            #expect(steps.map { $0.id } == Array(itemIDs.dropFirst()))
            #expect(try result.decodedReport.final?.userVersion == 0)
        }
    }

    /// An empty file, the app's first launch: the frameworks with a create path make the
    /// fresh install's schema and run no step (`first_launch: created`); GRDB and a plan with
    /// no framework run every step (`migrated`). Each against its framework's code.
    @Test(arguments: ["sqliteopenhelper", "room", "drift", "grdb", "per_step"])
    func anEmptyFileEndsAsTheFrameworksFirstLaunchDoes(runner: String) throws {
        let directory = TemporaryDirectory("runner")
        let database = directory.file("empty.db")
        FileManager.default.createFile(atPath: database, contents: Data())
        let grdb = runner == "grdb"
        // The app's own create script: its schema of version 5, written as a whole.
        let script = [
            "CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, doubled INTEGER, label TEXT)",
            "CREATE INDEX items_label ON items(label)",
        ]
        let hash = "5e1c0d9a7b3f2e64"
        let fresh = #", "fresh_install": {"version": 5, "sql": [\#(try script.map(jsonString).joined(separator: ", "))]}"#
        let planPath = try plan(
            runner, steps: itemSteps, ids: grdb ? itemIDs : nil,
            extra: fresh + (runner == "room" ? #", "room_identity_hash": "\#(hash)""# : ""), in: directory)
        let result = try run(["--db", database, "--plan", planPath, "--out", directory.file("out.db")], in: directory)
        let report = try result.decodedReport
        #expect(report.outcome.rawValue == "completed", "\(result.stderr)")
        let creates = ["sqliteopenhelper", "room", "drift"].contains(runner)
        #expect(report.firstLaunch?.rawValue == (creates ? "created" : "migrated"))
        #expect(report.steps.count == (creates ? 0 : 5))

        let oracle = directory.file("oracle.db")
        FileManager.default.createFile(atPath: oracle, contents: Data())
        switch runner {
        case "grdb": try FrameworkOracle.grdb(oracle, migrations: Array(zip(itemIDs, itemSteps)).map { ($0.0, $0.1) })
        case "per_step": try FrameworkOracle.openHelper(oracle, steps: itemSteps)
        default:
            try FrameworkOracle.create(
                oracle, script: script, version: 5, inTransaction: runner != "drift", roomIdentityHash: runner == "room" ? hash : nil)
        }
        #expect(try FrameworkOracle.contents(of: directory.file("out.db")) == FrameworkOracle.contents(of: oracle))
    }

    /// Step 5 fails: the one transaction rolls the whole path back, drift keeps what steps 2
    /// to 4 committed at version 1, GRDB keeps migrations 2 to 4 with their rows.
    @Test(arguments: ["sqliteopenhelper", "drift", "grdb"])
    func aFailingStepEndsAsTheFrameworksLoopDoes(runner: String) throws {
        let directory = TemporaryDirectory("runner")
        let grdb = runner == "grdb"
        let database = try itemsDatabase(in: directory, grdb: grdb)
        var steps = itemSteps
        steps[4] = ["UPDATE items SET label = 'item ' || missing"]
        let result = try run(
            ["--db", database, "--plan", try plan(runner, steps: steps, ids: grdb ? itemIDs : nil, in: directory),
             "--out", directory.file("out.db")], in: directory)
        #expect(try result.decodedReport.outcome.rawValue == "failed", "\(result.stderr)")
        let failure = try result.decodedReport.failure
        #expect(failure?.step == 5)
        #expect(failure?.message.contains("no such column: missing") == true)

        let oracle = try copy(database, to: "oracle.db", in: directory)
        #expect(throws: OracleFailure.self) {
            switch runner {
            case "grdb": try FrameworkOracle.grdb(oracle, migrations: Array(zip(itemIDs, steps)).map { ($0.0, $0.1) })
            case "drift": try FrameworkOracle.drift(oracle, steps: steps)
            default: try FrameworkOracle.openHelper(oracle, steps: steps)
            }
        }
        let contents = try FrameworkOracle.contents(of: directory.file("out.db"))
        #expect(contents == (try FrameworkOracle.contents(of: oracle)))
        // Under every runner but the one transaction, steps 2 to 4 stayed.
        #expect(contents.contains { $0.contains("CREATE INDEX items_label") } == (runner != "sqliteopenhelper"))
    }

    // MARK: - Kills: a per-step runner converges, one transaction around the path loops

    @Test func theSamePlanConvergesStepByStepAndCrashLoopsInOneTransaction() throws {
        let directory = TemporaryDirectory("runner")
        let database = try itemsDatabase(in: directory)
        let input = try FrameworkOracle.contents(of: database)
        // The watchdog allows two steps per launch: the third step of every launch is killed.
        let perStep = try run(
            ["--db", database, "--plan", try plan("per_step", steps: itemSteps, in: directory), "--out", directory.file("per-step.db")],
            in: directory, fault: "after_steps=2")
        #expect(try perStep.decodedReport.outcome.rawValue == "completed_after_kills", "\(perStep.stderr)")
        let stepLaunches = try perStep.decodedReport.launches
        #expect(stepLaunches.map { $0.fromVersion } == [1, 3])
        #expect(stepLaunches.map { $0.reachedVersion } == [3, 5])
        #expect(stepLaunches.map { $0.rolledBack } == [true, false])
        let oracle = try copy(database, to: "oracle.db", in: directory)
        try FrameworkOracle.openHelper(oracle, steps: itemSteps)
        #expect(try FrameworkOracle.contents(of: directory.file("per-step.db")) == FrameworkOracle.contents(of: oracle))

        let openHelper = try run(
            ["--db", database, "--plan", try plan("sqliteopenhelper", steps: itemSteps, in: directory), "--out", directory.file("helper.db")],
            in: directory, fault: "after_steps=2")
        let report = try openHelper.decodedReport
        #expect(report.outcome.rawValue == "crash_loop", "\(openHelper.stderr)")
        let launches = report.launches
        #expect(launches.count == 1)
        #expect(launches.first?.fromVersion == 1)
        #expect(launches.first?.reachedVersion == 1)
        #expect(launches.first?.rolledBack == true)
        let failure = report.failure
        #expect(failure?.step == 4)
        #expect(failure?.message.contains("rolled back steps 2 to 4") == true, "\(failure)")
        #expect(failure?.message.contains("in the runner's transaction around the whole path") == true, "\(failure)")
        #expect(report.final?.userVersion == 1)
        // Steps 2 and 3 ran, and the kill undid them with the rest of the path.
        let statuses = report.steps.map(\.status.rawValue)
        #expect(statuses == ["interrupted", "interrupted", "interrupted", "skipped"])
        #expect(try FrameworkOracle.contents(of: directory.file("helper.db")) == input)

        // The summary and JUnit say which runner ran.
        let text = try run(
            ["--db", database, "--plan", try plan("sqliteopenhelper", steps: itemSteps, in: directory), "--format", "text"],
            in: directory, fault: "after_steps=2")
        let summary = String(decoding: text.stdout, as: UTF8.self)
        #expect(summary.contains("runner sqliteopenhelper"), "\(summary)")
        #expect(summary.contains("launch 1: v1 -> v1, killed after"), "\(summary)")
        let junit = try run(
            ["--db", database, "--plan", try plan("sqliteopenhelper", steps: itemSteps, in: directory), "--format", "junit"],
            in: directory, fault: "after_steps=2")
        #expect(String(decoding: junit.stdout, as: UTF8.self).contains(#"<property name="runner" value="sqliteopenhelper"/>"#))
    }

    // MARK: - Drift: a killed path is run again on the file it left

    @Test func aDriftPathKilledAfterAnAddColumnFailsOnTheDuplicateColumnAtEveryLaunch() throws {
        let directory = TemporaryDirectory("runner")
        let database = try itemsDatabase(in: directory)
        // Launch 1 runs step 2 (its ADD COLUMN commits on its own) and is killed as step 3 starts.
        let result = try run(
            ["--db", database, "--plan", try plan("drift", steps: itemSteps, in: directory), "--out", directory.file("out.db")],
            in: directory, fault: "launch=1,after_steps=1")
        let report = try result.decodedReport
        #expect(report.outcome.rawValue == "crash_loop", "\(result.stderr)")
        let failure = report.failure
        #expect(failure?.kind.rawValue == "sql_error")
        #expect(failure?.step == 2)
        #expect(failure?.statement == "ALTER TABLE items ADD COLUMN doubled INTEGER")
        #expect(failure?.message.contains("duplicate column name: doubled") == true, "\(failure)")
        let launches = report.launches
        #expect(launches.map { $0.ended.rawValue } == ["killed", "failed"])
        #expect(launches.map { $0.fromVersion } == [1, 1])
        // Nothing was running at the kill: what step 2 did stays, at version 1.
        #expect(launches.first?.rolledBack == false)

        // Drift's loop: killed after step 2, then run again from the version it still finds.
        let oracle = try copy(database, to: "oracle.db", in: directory)
        try FrameworkOracle.drift(oracle, steps: itemSteps, stoppingAfter: 2)
        #expect(throws: OracleFailure(statement: "ALTER TABLE items ADD COLUMN doubled INTEGER", message: "duplicate column name: doubled")) {
            try FrameworkOracle.drift(oracle, steps: itemSteps)
        }
        #expect(try FrameworkOracle.contents(of: directory.file("out.db")) == FrameworkOracle.contents(of: oracle))
    }

    // MARK: - Room

    @Test func roomFailsAMigrationThatForgetsAnIndexOfTheFreshInstallAndRollsItBack() throws {
        let directory = TemporaryDirectory("runner")
        let database = try itemsDatabase(in: directory)
        let input = try FrameworkOracle.contents(of: database)
        // Step 4 forgets the index that the app's own schema (the fresh install) has.
        var forgetful = itemSteps
        forgetful[3] = ["ALTER TABLE items ADD COLUMN label TEXT"]
        let freshInstall = #", "fresh_install": {"version": 5, "sql": ["CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, doubled INTEGER, label TEXT)", "CREATE INDEX items_label ON items(label)"]}"#
        let result = try run(
            ["--db", database, "--plan", try plan("room", steps: forgetful, extra: freshInstall, in: directory),
             "--out", directory.file("out.db")], in: directory)
        let report = try result.decodedReport
        #expect(report.outcome.rawValue == "failed", "\(result.stderr)")
        let failure = report.failure
        #expect(failure?.kind.rawValue == "schema_validation")
        let message = failure?.message ?? ""
        #expect(message.contains("Migration didn't properly handle: items"), "\(message)")
        #expect(message.contains("the indexes of items are none, expected items_label(label ASC)"), "\(message)")
        #expect(message.contains("at every launch"))
        #expect(report.steps.last?.status.rawValue == "failed")
        #expect(try FrameworkOracle.contents(of: directory.file("out.db")) == input)

        // With the index, Room's check passes and its identity hash is written with the version.
        let hash = "0f3d9a61c5b2e7d4"
        let complete = try run(
            ["--db", database, "--plan",
             try plan("room", steps: itemSteps, extra: freshInstall + #", "room_identity_hash": "\#(hash)""#, in: directory),
             "--out", directory.file("complete.db")], in: directory)
        #expect(try complete.decodedReport.outcome.rawValue == "completed", "\(complete.stderr)")
        let written = try RawDatabase(directory.file("complete.db")).rows("SELECT id, identity_hash FROM room_master_table")
        #expect(written == [["42", "'\(hash)'"]])
    }

    /// A version-0 file that holds tables (a pre-packaged database): Room's `onCreate` runs
    /// its `createAllTables` (the fresh install, `CREATE TABLE IF NOT EXISTS`) into it and
    /// validates it; the rows stay. Without a fresh install the plan's own `CREATE TABLE`
    /// stands for it, and finds the table there.
    @Test func roomCreatesIntoAPrepackagedFile() throws {
        let directory = TemporaryDirectory("runner")
        let database = try FixtureDatabase.create(at: directory.file("v0.db"), sql: """
            CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, doubled INTEGER, label TEXT);
            CREATE INDEX items_label ON items(label); INSERT INTO items VALUES (1, 1, 2, 'one');
            """)
        let freshInstall = #", "fresh_install": {"version": 5, "sql": ["CREATE TABLE IF NOT EXISTS items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, doubled INTEGER, label TEXT)", "CREATE INDEX IF NOT EXISTS items_label ON items(label)"]}"#
        let result = try run(
            ["--db", database, "--plan", try plan("room", steps: itemSteps, extra: freshInstall, in: directory),
             "--out", directory.file("out.db")], in: directory)
        let report = try result.decodedReport
        #expect(report.outcome.rawValue == "completed", "\(result.stderr)")
        #expect(report.firstLaunch?.rawValue == "created")
        #expect(report.steps.isEmpty)
        #expect(try RawDatabase(directory.file("out.db")).rows("SELECT * FROM items") == [["1", "1", "2", "'one'"]])

        let bare = try run(["--db", database, "--plan", try plan("room", steps: itemSteps, in: directory)], in: directory)
        #expect(try bare.decodedReport.outcome.rawValue == "failed", "\(bare.stderr)")
        let failure = try bare.decodedReport.failure
        #expect(failure?.kind.rawValue == "sql_error")
        #expect(failure?.message.contains("table items already exists") == true, "\(failure)")
        #expect(failure?.message.contains("a pre-packaged file needs the plan's fresh_install") == true, "\(failure)")
        // The same file under per_step is migrated from version 0 and fails on its step 1.
        let perStep = try run(["--db", database, "--plan", try plan("per_step", steps: itemSteps, in: directory)], in: directory)
        #expect(try perStep.decodedReport.failure?.kind.rawValue == "sql_error")
        #expect(try perStep.decodedReport.firstLaunch?.rawValue == "migrated")
    }

    /// Room's destructive fallback: a verdict of its own, exit status 1, and a message that
    /// says what was erased.
    @Test func roomsDestructiveFallbackIsDataErased() throws {
        let directory = TemporaryDirectory("runner")
        let database = try itemsDatabase(in: directory)
        // The app's history starts at version 2: nothing migrates a version-1 file.
        let path = directory.file("fallback.json")
        try Data("""
            {"name": "items", "runner": "room", "base_version": 2, "room_destructive_fallback": "always", "steps": [
              {"version": 2, "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, doubled INTEGER)"},
              {"version": 3, "sql": "ALTER TABLE items ADD COLUMN label TEXT"}]}
            """.utf8).write(to: URL(fileURLWithPath: path))
        let result = try run(["--db", database, "--plan", path, "--out", directory.file("out.db")], in: directory)
        #expect(result.status == 1)
        let report = try result.decodedReport
        #expect(report.outcome.rawValue == "data_erased", "\(result.stderr)")
        #expect(report.failure?.kind.rawValue == "data_erased")
        #expect(report.failure?.message.contains("The user's data is erased: 2000 rows in 1 table") == true, "\(report.failure)")
        #expect(report.firstLaunch?.rawValue == "created")
        #expect(report.final?.userVersion == 3)
        #expect(report.final?.tables?["items"] == 0)
    }

    // MARK: - GRDB

    @Test func grdbFailsTheMigrationThatBreaksAForeignKeyAndKeepsTheOnesBefore() throws {
        let directory = TemporaryDirectory("runner")
        let database = try FixtureDatabase.create(at: directory.file("library.db"), sql: """
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY); INSERT INTO grdb_migrations VALUES ('createAuthors');
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO author VALUES (1, 'Ann'), (2, 'Bo');
            """)
        let migrations = [
            ("createAuthors", ["CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT)"]),
            ("createBooks", ["CREATE TABLE book(id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES author(id), title TEXT)"]),
            // Foreign keys are off inside the transaction (deferred): only the check finds it.
            ("seedBooks", ["INSERT INTO book(author_id, title) VALUES (1, 'x'), (3, 'orphan')"]),
        ]
        let result = try run(
            ["--db", database, "--plan", try plan("grdb", steps: migrations.map(\.1), ids: migrations.map(\.0), in: directory),
             "--out", directory.file("out.db")], in: directory)
        let report = try result.decodedReport
        #expect(report.outcome.rawValue == "failed", "\(result.stderr)")
        let failure = report.failure
        #expect(failure?.step == 3)
        #expect(failure?.statement == "PRAGMA foreign_key_check")
        #expect(failure?.message.contains("FOREIGN KEY constraint failed") == true)
        let steps = report.steps
        #expect(steps.map { $0.id } == ["createBooks", "seedBooks"])
        #expect(steps.map { $0.status.rawValue } == ["applied", "failed"])
        let launch = report.launches.first
        #expect(launch?.fromVersion == 1)
        #expect(launch?.fromID == "createAuthors")

        let oracle = try copy(database, to: "oracle.db", in: directory)
        #expect(throws: OracleFailure.self) { try FrameworkOracle.grdb(oracle, migrations: migrations) }
        #expect(try FrameworkOracle.contents(of: directory.file("out.db")) == FrameworkOracle.contents(of: oracle))
    }

    @Test func grdbResumesAtTheFirstMigrationWithoutItsRow() throws {
        let directory = TemporaryDirectory("runner")
        let database = try itemsDatabase(in: directory, grdb: true)
        // One migration per launch: each launch commits one and is killed as the next starts.
        let result = try run(
            ["--db", database, "--plan", try plan("grdb", steps: itemSteps, ids: itemIDs, in: directory),
             "--out", directory.file("out.db")], in: directory, fault: "after_steps=1")
        let report = try result.decodedReport
        #expect(report.outcome.rawValue == "completed_after_kills", "\(result.stderr)")
        let launches = report.launches
        #expect(launches.map { $0.fromVersion } == [1, 2, 3, 4])
        #expect(launches.map { $0.fromID } == Array(itemIDs.prefix(4)))
        #expect(launches.map { $0.ended.rawValue } == ["killed", "killed", "killed", "finished"])
        let recorded = try RawDatabase(directory.file("out.db")).rows("SELECT identifier FROM grdb_migrations ORDER BY rowid")
        #expect(recorded == itemIDs.map { ["'\($0)'"] })

        // A migration the plan does not register: a newer app's file.
        try FixtureDatabase.execute("INSERT INTO grdb_migrations VALUES ('fromTheFuture')", at: database)
        let refused = try run(["--db", database, "--plan", try plan("grdb", steps: itemSteps, ids: itemIDs, in: directory)], in: directory)
        #expect(try refused.decodedReport.outcome.rawValue == "refused")
        #expect(try refused.decodedReport.failure?.kind.rawValue == "future_version")
    }

    // MARK: - Plans a runner cannot run

    @Test func aChunkedStepUnderAOneTransactionRunnerIsAnInvalidPlan() throws {
        let directory = TemporaryDirectory("runner")
        let database = try itemsDatabase(in: directory)
        let path = directory.file("chunked.json")
        try Data(#"""
            {"name": "items", "runner": "sqliteopenhelper", "steps": [
              {"version": 1, "name": "create", "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"},
              {"version": 2, "name": "fill", "backfill": {"table": "items", "set": "n = n + 1"}}]}
            """#.utf8).write(to: URL(fileURLWithPath: path))
        let result = try run(["--db", database, "--plan", path], in: directory)
        #expect(result.status == 2)
        #expect(result.stderr.contains(#"step 2 ("fill"): a backfill commits a batch at a time, which runner sqliteopenhelper cannot do"#), "\(result.stderr)")
    }
}

/// `text` as a JSON string literal.
private func jsonString(_ text: String) throws -> String {
    String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
}
