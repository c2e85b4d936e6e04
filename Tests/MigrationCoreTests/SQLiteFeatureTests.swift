import Foundation
import Testing
import TestSupport
@testable import MigrationCore

/// The features a statement uses, read from SQLite's tokens: each feature where the grammar
/// puts it, and the same words as names, strings or comments not.
@Suite("SQLite features by version")
struct SQLiteFeatureTests {
    private let ancient = SQLiteVersion(3, 0, 0)

    private func plan(_ steps: [String]) throws -> Plan {
        let items = steps.enumerated().map { index, step in #"{"version": \#(index + 1), "name": "s\#(index + 1)", \#(step)}"# }
        return try PlanDecoder.decode(Array(#"{"name": "t", "steps": [\#(items.joined(separator: ", "))]}"#.utf8))
    }

    /// The feature names `sql` (one `sql` step) uses.
    private func features(_ sql: String) throws -> [String] {
        try plan([#""sql": \#(JSONValue.quoted(sql))"#]).steps[0].sqliteFeatures(missingFrom: ancient).map(\.feature.name)
    }

    @Test(arguments: [
        ("INSERT INTO t(a) VALUES (1) ON CONFLICT(a) DO UPDATE SET b = excluded.b", "UPSERT (ON CONFLICT ... DO)"),
        ("INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING", "UPSERT (ON CONFLICT ... DO)"),
        ("ALTER TABLE t RENAME COLUMN a TO b", "ALTER TABLE RENAME COLUMN"),
        ("ALTER TABLE main.t RENAME a TO b", "ALTER TABLE RENAME COLUMN"),
        ("SELECT rank() OVER (ORDER BY a) FROM t", "window functions (OVER)"),
        ("SELECT sum(a) FILTER (WHERE a > 0) OVER w FROM t WINDOW w AS (ORDER BY a)", "window functions (OVER)"),
        ("CREATE TABLE t(a INT, b INT GENERATED ALWAYS AS (a * 2) STORED)", "generated columns"),
        ("CREATE TABLE t(a INT, b INT AS (a * 2))", "generated columns"),
        ("ALTER TABLE t ADD COLUMN b INT AS (a * 2) VIRTUAL", "generated columns"),
        ("UPDATE t SET a = iif(b, 1, 2)", "the function iif()"),
        ("ALTER TABLE t DROP COLUMN a", "ALTER TABLE DROP COLUMN"),
        ("ALTER TABLE \"t\" DROP a", "ALTER TABLE DROP COLUMN"),
        ("DELETE FROM t WHERE a IS NULL RETURNING id", "RETURNING"),
        ("INSERT INTO t DEFAULT VALUES RETURNING *", "RETURNING"),
        ("UPDATE t SET a = sqrt(b)", "the math function sqrt()"),
        ("CREATE TABLE t(a INTEGER PRIMARY KEY) STRICT", "STRICT tables"),
        ("CREATE TABLE t(a INTEGER PRIMARY KEY) WITHOUT ROWID, STRICT", "STRICT tables"),
        ("SELECT value FROM json_each('[1]')", "the JSON function json_each()"),
        ("UPDATE t SET a = b ->> '$.x'", "the JSON operators -> and ->>"),
        ("UPDATE t SET a = unixepoch()", "the function unixepoch()"),
    ])
    func aFeatureIsFoundWhereTheGrammarPutsIt(sql: String, feature: String) throws {
        #expect(try features(sql) == [feature], "\(sql)")
    }

    @Test(arguments: [
        // Names that are also feature words.
        "CREATE TABLE t(id INTEGER PRIMARY KEY, over INTEGER, returning TEXT, \"strict\" INT, do INT, window INT)",
        "SELECT over, returning FROM t WHERE over > 1",
        "UPDATE t SET returning = 1 WHERE returning IS NULL",
        "CREATE TABLE log(x); INSERT INTO log(x) VALUES (1); CREATE INDEX log_x ON log(x)",
        "CREATE TABLE IF NOT EXISTS pi(a REFERENCES log(x), b DECIMAL(10, 2))",
        "WITH pi(x) AS (SELECT 1) SELECT x FROM pi",
        "CREATE VIEW iif(a) AS SELECT 1",
        "ALTER TABLE t RENAME TO u",
        "ALTER TABLE t ADD COLUMN drop_at INTEGER DEFAULT (CAST('1' AS INTEGER))",
        // Strings and comments.
        "INSERT INTO t VALUES ('DROP COLUMN', 'ON CONFLICT DO NOTHING', 'a ->> b') -- RETURNING iif(1)",
        "/* ALTER TABLE t DROP COLUMN x */ SELECT 'x' AS \"->>\"",
        // Older forms of the same ideas.
        "INSERT OR REPLACE INTO t VALUES (1)",
        "CREATE TABLE u(a INTEGER UNIQUE ON CONFLICT REPLACE)",
        "CREATE TABLE v AS SELECT * FROM t",
    ])
    func namesStringsAndCommentsAreNoFeature(sql: String) throws {
        #expect(try features(sql) == [], "\(sql)")
    }

    @Test func aStepListsEachFeatureOfEachStatementOnlyWhereTheVersionLacksIt() throws {
        let step = try plan([#""sql": ["ALTER TABLE t DROP COLUMN a; ALTER TABLE t RENAME b TO c", "ALTER TABLE u DROP COLUMN x"]"#]).steps[0]
        let on328 = step.sqliteFeatures(missingFrom: try #require(SQLiteVersion("3.28")))
        #expect(on328.map(\.feature) == [.dropColumn, .dropColumn])
        #expect(on328.map(\.statement) == ["ALTER TABLE t DROP COLUMN a", "ALTER TABLE u DROP COLUMN x"])
        let on322 = step.sqliteFeatures(missingFrom: try #require(SQLiteVersion("3.22.0")))
        #expect(on322.map(\.feature) == [.dropColumn, .renameColumn, .dropColumn])
        #expect(step.sqliteFeatures(missingFrom: try #require(SQLiteVersion("3.35.0"))).isEmpty)
    }

    @Test func aRebuildsAndABackfillsPartsAreReadInTheirStatements() throws {
        let steps = try plan([
            #""rebuild": {"table": "t", "columns": "id INTEGER PRIMARY KEY, a INT, twice INT AS (a * 2)", "select": "id, iif(a > 0, a, 0)", "options": "STRICT", "batch_rows": 10}"#,
            #""backfill": {"table": "t", "set": "a = unixepoch()", "where": "a ->> '$.b' IS NULL", "batch_rows": 10}"#,
        ]).steps
        #expect(steps[0].sqliteFeatures(missingFrom: ancient).map(\.feature.name) == [
            "generated columns", "STRICT tables", "the function iif()",
        ])
        #expect(steps[1].sqliteFeatures(missingFrom: ancient).map(\.feature.name) == [
            "the function unixepoch()", "the JSON operators -> and ->>",
        ])
    }

    @Test func versionsCompareAsNumbers() throws {
        let versions = try ["3.9", "3.22", "3.28.0", "3.43.2", "3.100"].map { try #require(SQLiteVersion($0)) }
        #expect(versions == versions.sorted())
        #expect(SQLiteVersion("3.28") == SQLiteVersion("3.28.0"))
        #expect(SQLiteVersion("3.28")?.description == "3.28")
        for bad in ["3", "3.x", "v3.28", "3.28.0.1", "", "3..1", " 3.28"] { #expect(SQLiteVersion(bad) == nil, "\(bad)") }
    }

    /// With the device's version in the settings, the step fails before it runs, naming the
    /// feature and both versions; without it, the linked SQLite runs it.
    @Test func theMigratorFailsAStepTheDevicesSQLiteCannotRun() throws {
        let directory = TemporaryDirectory("sqlite-features")
        let plan = try self.plan([
            #""sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT)""#,
            #""sql": "ALTER TABLE t DROP COLUMN b""#,
        ])
        let path = try FixtureDatabase.create(
            at: directory.file("t.db"), sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT); PRAGMA user_version = 1;")
        let old = MigrationSettings(sqliteVersion: SQLiteVersion("3.28"))
        guard case .stopped(.failed, let failure) = Migrator(plan: plan, settings: old).migrate(databaseAt: path, emit: { _ in }) else {
            Issue.record("the step ran on SQLite 3.28")
            return
        }
        #expect(failure.kind == "sqlite_too_old")
        #expect(failure.step == 2)
        #expect(failure.statement == "ALTER TABLE t DROP COLUMN b")
        #expect(failure.message.contains("ALTER TABLE DROP COLUMN") && failure.message.contains("3.35.0") && failure.message.contains("3.28"))
        #expect(try FixtureDatabase.userVersion(at: path) == 1)
        #expect(try Connection(path: path).rows("SELECT name FROM pragma_table_info('t')").count == 3)

        let current = MigrationSettings(sqliteVersion: SQLiteVersion("3.35.0"))
        #expect(Migrator(plan: plan, settings: current).migrate(databaseAt: path, emit: { _ in }) == .reached(version: 2))
    }
}
