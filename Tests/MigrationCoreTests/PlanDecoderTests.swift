import Testing
import TestSupport
@testable import MigrationCore

@Suite("Plan decoding")
struct PlanDecoderTests {
    func decode(_ json: String) throws(PlanError) -> Plan {
        try PlanDecoder.decode(Array(json.utf8))
    }

    func rejection(_ json: String) -> String? {
        do {
            _ = try decode(json)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func decodesTheRepositoryPlan() throws {
        let plan = try NotesHistory.plan()
        #expect(plan.name == "notes")
        #expect(plan.newestVersion == 6)
        #expect(plan.applicationID == 1_296_190_513)
        #expect(plan.steps.map(\.action.kind) == [.sql, .sql, .sql, .rebuild, .sql, .backfill])
        #expect(plan.freshInstall?.version == 6)
        #expect(plan.sha256.count == 64)
    }

    @Test func splitsSQLIntoStatementsKeepingTriggerBodiesWhole() throws {
        let plan = try decode("""
            {"name": "t", "steps": [{"version": 1, "sql": "CREATE TABLE a(x); CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; SELECT 2; END; -- done"}]}
            """)
        guard case .sql(let statements) = plan.steps[0].action else {
            Issue.record("not a sql step")
            return
        }
        #expect(statements.count == 2)
        #expect(statements[1].hasSuffix("END"))
    }

    @Test(arguments: [
        (#"{"name": "t", "steps": [], "colour": 1}"#, "plan: unknown key \"colour\""),
        (#"{"name": "t", "steps": [{"version": 2, "sql": "SELECT 1"}]}"#, "step 1: \"version\" is 2"),
        (#"{"name": "t", "steps": [{"version": 1, "name": "a"}]}"#, "step 1 (\"a\"): needs exactly one of"),
        (#"{"name": "t", "steps": [{"version": 1, "sql": "SELECT 1", "backfill": {"table": "a", "set": "x = 1"}}]}"#, "found \"sql\" and \"backfill\""),
        (#"{"name": "t", "steps": [{"version": 1, "sql": "  ;  "}]}"#, "\"sql\" has no statement"),
        (#"{"name": "t", "steps": [{"version": 1, "sql": "VACUUM"}]}"#, "VACUUM cannot run inside a transaction"),
        (#"{"name": "t", "steps": [{"version": 1, "sql": "PRAGMA foreign_keys = ON"}]}"#, "PRAGMA foreign_keys does nothing"),
        (#"{"name": "t", "steps": [{"version": 1, "sql": "pragma journal_mode=wal"}]}"#, "PRAGMA journal_mode cannot change"),
        (#"{"name": "t", "steps": [{"version": 1, "sql": "PRAGMA main.user_version = 3"}]}"#, "PRAGMA user_version is set by Preflight"),
        (#"{"name": "t", "steps": [{"version": 1, "sql": ["CREATE TABLE a(x)", "COMMIT"]}]}"#, "COMMIT is not allowed"),
        (#"{"name": "t", "steps": [{"version": 1, "sql": "SAVEPOINT s"}]}"#, "SAVEPOINT is not allowed"),
        (#"{"name": "t", "steps": [{"version": 1, "rebuild": {"table": "a", "columns": "x", "select": "x", "batch_rows": 0}}]}"#, "\"batch_rows\" must be between"),
        (#"{"name": "t", "steps": [{"version": 1, "rebuild": {"table": "a", "columns": "x", "select": "x", "colour": 1}}]}"#, "rebuild: unknown key \"colour\""),
        (#"{"name": "t", "steps": [{"version": 1, "rebuild": {"table": "a", "columns": "x", "select": "x", "options": "WITHOUT ROWID -- x"}}]}"#, "\"options\" may hold WITHOUT ROWID and STRICT"),
        (#"{"name": "t", "steps": [{"version": 1, "rebuild": {"table": "a", "columns": "x", "select": "x", "options": "STRICT\u00a0"}}]}"#, "\"options\" may hold WITHOUT ROWID and STRICT"),
        (#"{"name": "t", "steps": [{"version": 1, "sql": "SELECT 1", "row_loss": "yes"}]}"#, "\"row_loss\" can only be \"allowed\""),
        (#"{"name": "t", "steps": [{"version": 1, "sql": "SELECT 1"}], "fresh_install": {"version": 2, "sql": "SELECT 1"}}"#, "fresh_install: \"version\" is 2"),
        (#"[1, 2]"#, "must be a JSON object"),
        (#"{"name": "#, "not valid JSON"),
    ])
    func rejectsWithAMessageNamingStepAndProblem(json: String, expected: String) {
        let message = rejection(json)
        #expect(message?.contains(expected) == true, "got: \(message ?? "accepted")")
    }

    @Test func rebuildOptionsAreWordsAndCommas() throws {
        let plan = try decode(#"{"name": "t", "steps": [{"version": 1, "rebuild": {"table": "a", "columns": "x PRIMARY KEY", "select": "x", "options": "without rowid,\n strict"}}]}"#)
        guard case .rebuild(let rebuild) = plan.steps[0].action else {
            Issue.record("not a rebuild step")
            return
        }
        #expect(rebuild.options == "without rowid,\n strict")
    }

    @Test func aCommentMentioningVacuumIsNotAVacuum() throws {
        let plan = try decode(#"{"name": "t", "steps": [{"version": 1, "sql": "-- no VACUUM here\nCREATE TABLE a(x)"}]}"#)
        #expect(plan.steps.count == 1)
    }

    @Test func stepHashDependsOnTheStepAloneAndIsStable() throws {
        let first = try decode(#"{"name": "t", "steps": [{"version": 1, "name": "a", "sql": "CREATE TABLE a(x)"}]}"#)
        let reordered = try decode(#"{"steps": [{"sql": "CREATE TABLE a(x)", "name": "a", "version": 1}], "name": "other"}"#)
        let changed = try decode(#"{"name": "t", "steps": [{"version": 1, "name": "a", "sql": "CREATE TABLE a(y)"}]}"#)
        #expect(first.steps[0].definitionHash == reordered.steps[0].definitionHash)
        #expect(first.steps[0].definitionHash != changed.steps[0].definitionHash)
    }

    @Test func applicationIDAcceptsUnsignedThirtyTwoBitValues() throws {
        let plan = try decode(#"{"name": "t", "application_id": 4294967295, "steps": []}"#)
        #expect(plan.applicationID == -1)
        #expect(rejection(#"{"name": "t", "application_id": 4294967296, "steps": []}"#)?.contains("32 bits") == true)
    }
}
