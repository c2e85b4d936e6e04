import Testing
import TestSupport
@testable import MigrationCore

/// The decode-time half of the confinement: a fragment Preflight splices into its own
/// statement is exactly one fragment, an `indexes`/`triggers` entry exactly one
/// statement, and a pragma outside the allow-list is refused before anything runs.
@Suite("Plan decoding: fragments are one fragment")
struct FragmentRulesTests {
    private func rebuild(_ fields: String) -> String {
        #"{"name": "t", "steps": [{"version": 1, "name": "r", "rebuild": {"table": "notes", \#(fields)}}]}"#
    }

    private func backfill(_ fields: String) -> String {
        #"{"name": "t", "steps": [{"version": 1, "name": "b", "backfill": {"table": "notes", \#(fields)}}]}"#
    }

    private func rejection(_ json: String) -> String? {
        do {
            _ = try PlanDecoder.decode(Array(json.utf8))
            return nil
        } catch {
            return error.message
        }
    }

    @Test(arguments: [
        // The attack of issue 16: close CREATE TABLE's parenthesis, commit, copy the file out.
        (#""columns": "id INTEGER PRIMARY KEY, title TEXT); COMMIT; VACUUM INTO '/tmp/pwned.db'; BEGIN; CREATE TABLE zz(a", "select": "id, title""#,
         #"step 1 ("r"), rebuild: "columns" must be one fragment of SQL, but it closes a parenthesis it did not open"#),
        (#""columns": "id INTEGER PRIMARY KEY; ATTACH DATABASE 'x' AS x", "select": "id""#, #""columns" must be one fragment of SQL, but it holds a ";""#),
        (#""columns": "id INTEGER PRIMARY KEY, CHECK (id > 0", "select": "id""#, "leaves 1 parenthesis open"),
        (#""columns": "id INTEGER PRIMARY KEY -- the key", "select": "id""#, "ends inside a comment"),
        (#""columns": "id INTEGER PRIMARY KEY /* the key", "select": "id""#, "ends inside a comment"),
        (#""columns": "id INTEGER PRIMARY KEY, title TEXT DEFAULT 'x", "select": "id""#, "holds text SQLite cannot read"),
        (#""columns": "id", "select": "id FROM notes; DELETE FROM notes; SELECT id""#, #""select" must be one fragment of SQL, but it holds a ";""#),
        (#""columns": "id", "select": "id", "where": "1) OR (1""#, #""where" must be one fragment of SQL, but it closes a parenthesis"#),
        (#""indexes": ["CREATE INDEX i ON notes(title); PRAGMA journal_mode = OFF"], "columns": "id, title", "select": "id, title""#,
         #""indexes"[0] must be exactly one CREATE INDEX statement, but it holds 2 statements"#),
        (#""triggers": ["CREATE TRIGGER t AFTER INSERT ON notes BEGIN SELECT 1; END; ATTACH DATABASE '/tmp/o.db' AS x"], "columns": "id", "select": "id""#,
         #""triggers"[0] must be exactly one CREATE TRIGGER statement, but it holds 2 statements"#),
    ])
    func rebuildFragmentsThatReachPastThemselvesAreRefused(fields: String, expected: String) {
        let message = rejection(rebuild(fields))
        #expect(message?.contains(expected) == true, "got: \(message ?? "accepted")")
    }

    @Test(arguments: [
        (#""set": "title = 'x' WHERE 1; ATTACH DATABASE 'x' AS x""#, #"step 1 ("b"), backfill: "set" must be one fragment of SQL, but it holds a ";""#),
        (#""set": "title = lower(title)", "where": "title IS NULL) OR (1""#, #""where" must be one fragment of SQL, but it closes a parenthesis"#),
        (#""set": "title = lower(title) --""#, "ends inside a comment"),
    ])
    func backfillFragmentsThatReachPastThemselvesAreRefused(fields: String, expected: String) {
        let message = rejection(backfill(fields))
        #expect(message?.contains(expected) == true, "got: \(message ?? "accepted")")
    }

    /// What real plans write: parentheses, semicolons and brackets inside strings, quoted
    /// names and comments, comments between lines, a trigger body of several statements.
    @Test func realFragmentsPass() throws {
        let plan = try PlanDecoder.decode(Array(rebuild(#"""
            "columns": "id INTEGER PRIMARY KEY, -- the key\n title TEXT NOT NULL DEFAULT ');(' CHECK (length(title) < 100), \"a;b)\" TEXT, /* done */ UNIQUE (title)",
            "select": "id, coalesce(title, ';'), (SELECT count(*) FROM notes AS n WHERE n.id < notes.id)",
            "where": "title NOT LIKE '%)%'",
            "indexes": ["CREATE INDEX i ON notes(title);"],
            "triggers": ["CREATE TRIGGER t AFTER INSERT ON notes BEGIN UPDATE notes SET title = 'a;' WHERE id = new.id; SELECT 1; END"]
            """#).utf8))
        guard case .rebuild(let definition) = plan.steps[0].action else {
            Issue.record("not a rebuild step")
            return
        }
        #expect(definition.indexes?.count == 1 && definition.triggers?.count == 1)
        #expect(FragmentRules.problem(in: "x = (1 + (2)) /* c */") == nil)
    }

    @Test func pragmasOutsideTheAllowListAreRefusedAtDecodeTime() {
        let message = rejection(#"{"name": "t", "steps": [{"version": 1, "name": "p", "sql": "PRAGMA writable_schema = ON"}]}"#)
        #expect(message?.contains(#"step 1 ("p"): PRAGMA writable_schema is not allowed in a plan's SQL"#) == true, "got: \(message ?? "accepted")")
        let freshInstall = rejection(
            #"{"name": "t", "steps": [{"version": 1, "sql": "CREATE TABLE a(x)"}], "fresh_install": {"version": 1, "sql": "CREATE TABLE a(x); ATTACH DATABASE 'o.db' AS o"}}"#)
        #expect(freshInstall?.contains("fresh_install: ATTACH cannot run") == true, "got: \(freshInstall ?? "accepted")")
        #expect(rejection(#"{"name": "t", "steps": [{"version": 1, "sql": ["PRAGMA foreign_key_check", "PRAGMA main.table_info(a)", "PRAGMA defer_foreign_keys = ON"]}]}"#) == nil)
    }
}
