import CSQLite
import Foundation
import Testing
import TestSupport
@testable import MigrationCore

/// The run-time half of the confinement: hostile SQL that the plan decoder would have
/// refused is put into decoded plans by hand, so that what stops it here is the
/// authorizer and the one-statement prepare, not the decoder.
@Suite("Plan SQL is confined when it runs, whatever got past the decoder")
struct PlanConfinementTests {
    let directory = TemporaryDirectory("confine")

    /// A notes table at version 1, and a plan whose step 2 rebuilds it.
    private func notes() throws -> String {
        try FixtureDatabase.create(
            at: directory.file("notes.db"),
            sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT); INSERT INTO notes(title) VALUES ('a'), ('b'); PRAGMA user_version = 1;")
    }

    private func plan(step2: String, freshInstall: String = "") throws -> Plan {
        try PlanDecoder.decode(Array("""
            {"name": "t", "steps": [
              {"version": 1, "sql": "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT)"},
              {"version": 2, "name": "two", \(step2)}]\(freshInstall)}
            """.utf8))
    }

    private let rebuild = #""rebuild": {"table": "notes", "columns": "id INTEGER PRIMARY KEY, title TEXT", "select": "id, title"}"#

    /// Changes step 2's rebuild after decoding, as if the decoder had let it through.
    private func rebuildPlan(_ change: (inout Rebuild) -> Void) throws -> Plan {
        var plan = try plan(step2: rebuild)
        guard case .rebuild(var definition) = plan.steps[1].action else { throw HarnessFailure("step 2 is not a rebuild") }
        change(&definition)
        plan.steps[1].action = .rebuild(definition)
        return plan
    }

    /// Another SQLite file on the server, outside anything the job owns.
    private func bystander() throws -> (path: String, sha256: String) {
        let path = try FixtureDatabase.create(at: directory.file("other.db"), sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1);")
        return (path, FixtureDatabase.sha256(of: path))
    }

    private func migrationFailure(_ path: String, _ plan: Plan) -> Failure? {
        let ending = Migrator(plan: plan, settings: MigrationSettings()).migrate(databaseAt: path) { _ in }
        guard case .stopped(.failed, let failure) = ending else { return nil }
        return failure
    }

    @Test func aColumnsFragmentThatEndsTheCreateDoesNotVacuumInto() throws {
        let path = try notes()
        let target = directory.file("pwned.db")
        // Both the space estimate (its scratch database) and the step itself create the new table.
        let plan = try rebuildPlan { $0.columns = "id INTEGER PRIMARY KEY, title TEXT); COMMIT; VACUUM INTO '\(target)'; BEGIN; CREATE TABLE zz(a" }
        let failure = try #require(migrationFailure(path, plan))
        #expect(failure.step == 2)
        #expect(failure.message.contains("more than one statement"), "\(failure.message)")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try FixtureDatabase.userVersion(at: path) == 1)
    }

    @Test func anAttachInASQLStepIsRefusedByTheAuthorizer() throws {
        let path = try notes()
        let other = try bystander()
        var plan = try plan(step2: #""sql": "CREATE TABLE x(a)""#)
        plan.steps[1].action = .sql(["ATTACH DATABASE '\(other.path)' AS x", "INSERT INTO x.t VALUES (666)"])
        let failure = try #require(migrationFailure(path, plan))
        #expect(failure.sqliteCode == SQLITE_AUTH)
        #expect(failure.message.contains("step 2") && failure.message.contains("ATTACH"), "\(failure.message)")
        #expect(FixtureDatabase.sha256(of: other.path) == other.sha256)
    }

    @Test func anAttachAfterATriggerEntryDoesNotRun() throws {
        let path = try notes()
        let other = try bystander()
        let plan = try rebuildPlan {
            $0.triggers = ["CREATE TRIGGER tr AFTER INSERT ON notes BEGIN SELECT 1; END; ATTACH DATABASE '\(other.path)' AS x; INSERT INTO x.t VALUES (666)"]
        }
        let failure = try #require(migrationFailure(path, plan))
        #expect(failure.message.contains("more than one statement"), "\(failure.message)")
        #expect(FixtureDatabase.sha256(of: other.path) == other.sha256)
        #expect(try FixtureDatabase.userVersion(at: path) == 1)
    }

    @Test func aBackfillSetThatEndsTheUpdateDoesNotRunWhatFollows() throws {
        let path = try notes()
        let other = try bystander()
        var plan = try plan(step2: #""backfill": {"table": "notes", "set": "title = upper(title)"}"#)
        guard case .backfill(var backfill) = plan.steps[1].action else { throw HarnessFailure("step 2 is not a backfill") }
        backfill.set = "title = 'x' WHERE 1; ATTACH DATABASE '\(other.path)' AS x; UPDATE notes SET title = title"
        plan.steps[1].action = .backfill(backfill)
        let failure = try #require(migrationFailure(path, plan))
        #expect(failure.message.contains("more than one statement"), "\(failure.message)")
        #expect(FixtureDatabase.sha256(of: other.path) == other.sha256)
    }

    /// The upload is as untrusted as the plan: SQLite opens a file whose schema entry has
    /// statements after its CREATE, and a rebuild recreates the old table's indexes from it.
    @Test func aFilesOwnIndexSQLIsOneConfinedStatementToo() throws {
        let other = try bystander()
        let path = try notes()
        try FixtureDatabase.execute("CREATE INDEX notes_title ON notes(title)", at: path)
        try rawSQLite(path, """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = sql || '; ATTACH ''\(other.path)'' AS x; CREATE TABLE x.pwned(a)' WHERE name = 'notes_title';
            """)
        let failure = try #require(migrationFailure(path, try plan(step2: rebuild)))
        #expect(failure.message.contains("more than one statement"), "\(failure.message)")
        #expect(FixtureDatabase.sha256(of: other.path) == other.sha256)
    }

    @Test(arguments: [
        ("COMMIT", "transaction statements"), ("SAVEPOINT s", "transaction statements"),
        ("PRAGMA writable_schema = ON", "PRAGMA writable_schema = ON"),
        ("PRAGMA journal_mode = OFF", "PRAGMA journal_mode = OFF"),
        // Pragma table functions run their pragma while the statement steps.
        ("SELECT * FROM pragma_optimize", "PRAGMA optimize"),
        ("CREATE TABLE j AS SELECT * FROM pragma_journal_mode", "PRAGMA journal_mode"),
    ])
    func statementsThatTakePreflightsPlaceAreRefused(sql: String, refused: String) throws {
        let path = try notes()
        var plan = try plan(step2: #""sql": "CREATE TABLE x(a)""#)
        plan.steps[1].action = .sql(["CREATE TABLE before(a)", sql, "CREATE TABLE after(a)"])
        let failure = try #require(migrationFailure(path, plan))
        #expect(failure.sqliteCode == SQLITE_AUTH)
        #expect(failure.message.contains(refused) && failure.message.contains("not allowed"), "\(failure.message)")
        #expect(failure.statement == sql)
        // The step rolled back whole: nothing before the refused statement stayed.
        let tables = try Connection(path: path).rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        #expect(tables.map { $0[0].textValue } == ["notes"])
        #expect(try FixtureDatabase.userVersion(at: path) == 1)
    }

    @Test func vacuumIntoArrivesAsAnAttachAndIsRefused() throws {
        let connection = try Connection(path: try notes())
        let target = directory.file("copy.db")
        #expect {
            try connection.runPlanStatement("VACUUM INTO '\(target)'")
        } throws: { error in
            (error as? SQLiteError)?.code == SQLITE_AUTH && (error as? SQLiteError)?.message.contains("VACUUM INTO") == true
        }
        // Not even Preflight's own SQL attaches: the connection allows no attached database.
        #expect(throws: SQLiteError.self) { try connection.execute("VACUUM INTO '\(target)'") }
        #expect(throws: SQLiteError.self) { try connection.execute("ATTACH DATABASE '\(target)' AS x") }
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func aFreshInstallScriptIsConfined() throws {
        let path = try notes()
        let other = try bystander()
        var plan = try plan(step2: #""sql": "CREATE TABLE x(a)""#)
        plan.freshInstall = FreshInstall(version: 2, sql: [
            "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT)", "CREATE TABLE x(a)",
            "ATTACH DATABASE '\(other.path)' AS o", "INSERT INTO o.t VALUES (666)",
        ])
        #expect(Migrator(plan: plan, settings: MigrationSettings()).migrate(databaseAt: path) { _ in } == .reached(version: 2))
        let verification = try Verifier(plan: plan, target: 2, mode: .quick, freshInstallPath: directory.file("fresh.db"))
            .verify(connection: Connection(path: path), tablesBefore: [:])
        #expect(verification.problems.contains { $0.contains("fresh_install") && $0.contains("ATTACH") }, "\(verification.problems)")
        #expect(FixtureDatabase.sha256(of: other.path) == other.sha256)
    }

    /// What real migrations use still runs, SQLite's own virtual tables included (their
    /// modules read pragmas of their own while the plan's statements run).
    @Test func allowedPragmasAndVirtualTablesRun() throws {
        let path = try notes()
        var plan = try plan(step2: #""sql": "CREATE TABLE x(a)""#)
        plan.steps[1].action = .sql([
            "PRAGMA defer_foreign_keys = ON", "PRAGMA legacy_alter_table = ON", "PRAGMA foreign_key_check",
            "PRAGMA main.table_info(notes)", "PRAGMA index_list(notes)", "PRAGMA quick_check",
            "CREATE TABLE info AS SELECT name FROM pragma_table_xinfo('notes')",
            "CREATE VIRTUAL TABLE f4 USING fts4(title)", "CREATE VIRTUAL TABLE f5 USING fts5(title)",
            "CREATE VIRTUAL TABLE r USING rtree(id, x0, x1)", "INSERT INTO f4(title) SELECT title FROM notes",
            "INSERT INTO f5(title) SELECT title FROM notes", "INSERT INTO f5(f5) VALUES ('integrity-check')",
            "INSERT INTO r VALUES (1, 0, 1)", "CREATE TABLE sizes AS SELECT name, pgsize FROM dbstat",
        ])
        #expect(Migrator(plan: plan, settings: MigrationSettings()).migrate(databaseAt: path) { _ in } == .reached(version: 2))
        #expect(try FixtureDatabase.count("info", at: path) == 2)
        #expect(try FixtureDatabase.count("f5", at: path) == 2)
    }

    /// The cost class still comes from the actions the authorizer records while it confines.
    @Test func theAuthorizerStillRecords() throws {
        let connection = try Connection(path: try notes())
        let (_, actions) = try connection.preparePlanStatementRecordingActions("CREATE INDEX t ON notes(title)")
        #expect(actions.contains { $0.code == SQLITE_CREATE_INDEX && $0.first == "t" && $0.second == "notes" })
        // A refused statement is refused with its actions recorded first.
        #expect(throws: SQLiteError.self) { try connection.preparePlanStatementRecordingActions("DETACH x") }
    }

    @Test func thePolicysPragmaList() {
        #expect(PlanSQLPolicy.allowsPragma("TABLE_INFO", argument: "notes"))
        #expect(PlanSQLPolicy.allowsPragma("defer_foreign_keys", argument: "ON"))
        #expect(PlanSQLPolicy.allowsPragma("page_size", argument: nil))
        #expect(!PlanSQLPolicy.allowsPragma("page_size", argument: "512"))
        for name in ["writable_schema", "journal_mode", "user_version", "foreign_keys", "temp_store_directory", "optimize"] {
            #expect(!PlanSQLPolicy.allowsPragma(name, argument: nil))
        }
    }

    /// The sqlite3 shell: what an attacker would use to craft a file (Preflight's own
    /// connections are defensive and cannot write the schema).
    private func rawSQLite(_ path: String, _ sql: String) throws {
        let result = try TestProcess.run("/usr/bin/sqlite3", [path, sql])
        guard result.status == 0 else { throw HarnessFailure("sqlite3 failed on \(path): \(result.stderr)") }
    }
}

struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
