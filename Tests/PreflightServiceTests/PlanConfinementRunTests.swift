import Foundation
import Glibc
import Testing
import TestSupport
import MigrationCore
import Simulation

/// Issue 16's attacks on the release build, kept as tests through the real `preflight
/// run`: plan SQL is confined by mechanism (decoder, authorizer, one-statement prepare,
/// the worker's Landlock sandbox), and what real migrations do still runs.
@Suite("preflight run: plan SQL stays inside the job")
struct PlanConfinementRunTests {
    let directory = TemporaryDirectory("confine-run")

    private func notes() throws -> String {
        try FixtureDatabase.create(
            at: directory.file("notes.db"),
            sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT); INSERT INTO notes(title) VALUES ('a'), ('b'); PRAGMA user_version = 1;")
    }

    /// A plan whose step 1 made the notes table and whose step 2 is `step2`.
    private func planFile(step2: String, extra: String = "") throws -> String {
        let path = directory.file("plan-\(UUID().uuidString.prefix(8)).json")
        try Data("""
            {"name": "attack", "steps": [
              {"version": 1, "name": "create", "sql": "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT)"},
              {"version": 2, "name": "attack", \(step2)}]\(extra)}
            """.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Another SQLite file on the server, outside the job directory.
    private func bystander() throws -> (path: String, sha256: String) {
        let path = try FixtureDatabase.create(at: directory.file("other.db"), sql: "CREATE TABLE t(a); INSERT INTO t VALUES (1);")
        return (path, FixtureDatabase.sha256(of: path))
    }

    private func run(_ plan: String, environment: [String: String] = [:]) throws -> PreflightProcess.Result {
        try PreflightProcess.run(["run", "--db", try notes(), "--plan", plan], environment: environment)
    }

    @Test func aVacuumIntoSmuggledInColumnsIsAPlanError() throws {
        let target = "/tmp/preflight-pwned-\(UUID().uuidString).db"
        let plan = try planFile(step2: """
            "rebuild": {"table": "notes", "select": "id, title",
              "columns": "id INTEGER PRIMARY KEY, title TEXT); COMMIT; VACUUM INTO '\(target)'; BEGIN; CREATE TABLE zz(a"}
            """)
        let result = try run(plan)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(#"step 2 ("attack"), rebuild: "columns" must be one fragment of SQL"#), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test(arguments: [
        (#""sql": ["ATTACH DATABASE 'OTHER' AS x", "INSERT INTO x.t VALUES (666)"]"#,
         #"step 2 ("attack"): ATTACH cannot run inside a transaction"#),
        (#""rebuild": {"table": "notes", "columns": "id INTEGER PRIMARY KEY, title TEXT", "select": "id, title", "triggers": ["CREATE TRIGGER tr AFTER INSERT ON notes BEGIN SELECT 1; END; ATTACH DATABASE 'OTHER' AS x; INSERT INTO x.t VALUES (666)"]}"#,
         #"step 2 ("attack"), rebuild: "triggers"[0] must be exactly one CREATE TRIGGER statement, but it holds 3 statements"#),
    ])
    func anAttachIsRefusedAndTheOtherFileIsUnchanged(step2: String, refusal: String) throws {
        let other = try bystander()
        let result = try run(try planFile(step2: step2.replacingOccurrences(of: "OTHER", with: other.path)))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(refusal), "\(result.stderr)")
        #expect(FixtureDatabase.sha256(of: other.path) == other.sha256)
    }

    @Test func anIndexEntryWithAPragmaAfterItIsAPlanError() throws {
        let plan = try planFile(step2: """
            "rebuild": {"table": "notes", "columns": "id INTEGER PRIMARY KEY, title TEXT", "select": "id, title",
              "indexes": ["CREATE INDEX notes_title ON notes(title); PRAGMA journal_mode = OFF"]}
            """)
        let result = try run(plan)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(#""indexes"[0] must be exactly one CREATE INDEX statement"#), "\(result.stderr)")
    }

    @Test func aFreshInstallWithAnAttachIsRefused() throws {
        let other = try bystander()
        let plan = try planFile(
            step2: #""sql": "CREATE INDEX notes_title ON notes(title)""#,
            extra: #", "fresh_install": {"version": 2, "sql": "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT); ATTACH DATABASE '\#(other.path)' AS x; CREATE TABLE x.pwned(a)"}"#)
        let result = try run(plan)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("fresh_install: ATTACH"), "\(result.stderr)")
        #expect(FixtureDatabase.sha256(of: other.path) == other.sha256)
    }

    @Test func aPragmaOutsideTheAllowListIsAPlanError() throws {
        let result = try run(try planFile(step2: #""sql": "PRAGMA writable_schema = ON""#))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(#"step 2 ("attack"): PRAGMA writable_schema is not allowed in a plan's SQL; it may use"#), "\(result.stderr)")
    }

    /// A pragma the decoder cannot see (a table function runs it while the statement
    /// steps) is refused by the authorizer in the worker: the step fails, named.
    @Test func aPragmaTableFunctionIsRefusedWhenItRuns() throws {
        let result = try run(try planFile(step2: #""sql": ["CREATE TABLE kept(a)", "CREATE TABLE j AS SELECT * FROM pragma_journal_mode"]"#))
        #expect(result.status == 1)
        let report = try result.decodedReport
        #expect(report.outcome == .failed)
        #expect(report.failure?.step == 2)
        #expect(report.failure?.message.contains(#"step 2 ("attack") failed: PRAGMA journal_mode is not allowed in a plan's SQL"#) == true,
            "\(report.failure?.message ?? "no failure")")
        #expect(report.final?.userVersion == 1)
    }

    @Test func allowedPragmasStillRun() throws {
        let plan = try planFile(
            step2: #"""
                "sql": ["PRAGMA defer_foreign_keys = ON", "PRAGMA foreign_key_check", "PRAGMA table_info(notes)",
                        "PRAGMA integrity_check", "CREATE TABLE info AS SELECT name FROM pragma_table_info('notes')",
                        "CREATE VIRTUAL TABLE search USING fts5(title)", "INSERT INTO search(title) SELECT title FROM notes"]
                """#)
        let result = try run(plan)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.decodedReport
        #expect(report.outcome == .completed)
        #expect(report.final?.tables?["info"] == 2)
        #expect(report.final?.schemaMatchesFreshInstall == true)
    }

    /// With Landlock, a worker cannot create a file outside its job directory, even where
    /// the user running Preflight may (the test-only `create_file` fault tries, after the
    /// sandbox is in place, at each step's start). The run itself is unharmed. Without
    /// Landlock the same fault creates the file: the test sees which one this kernel is.
    @Test func aWorkerCannotCreateAFileOutsideItsJobDirectory() throws {
        let outside = "/tmp/preflight-escape-\(UUID().uuidString)"
        defer { unlink(outside) }
        let result = try run(
            try planFile(step2: #""sql": "CREATE INDEX notes_title ON notes(title)""#),
            environment: [Worker.faultVariable: "create_file=\(outside)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.decodedReport.outcome == .completed)
        let attempt = "test fault create_file \(outside): "
        switch WorkerSandbox.fileSandbox {
        case .landlock:
            #expect(result.stderr.contains(attempt + "errno \(EACCES)"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: outside))
        case .none:
            #expect(result.stderr.contains(attempt + "created"), "\(result.stderr)")
        }
    }

    @Test func healthSaysWhetherWorkersAreSandboxed() throws {
        let server = try ServerProcess()
        let health = server.get("/healthz")
        #expect(health.status == 200)
        #expect(health.json["sandbox"] as? String == WorkerSandbox.fileSandbox.name)
    }
}
