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
        ("SELECT sum(a) OVER w FROM t WINDOW w AS (ORDER BY a)", "window functions (OVER)"),
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
        ("UPDATE t SET done = TRUE WHERE done IS NOT FALSE", "the constants TRUE and FALSE"),
        ("SELECT count(*) FILTER (WHERE a > 0) FROM t", "FILTER on an aggregate"),
        ("CREATE VIEW v AS SELECT * FROM t ORDER BY name NULLS LAST", "NULLS FIRST / NULLS LAST"),
        ("UPDATE t SET a = u.a FROM u WHERE u.id = t.id", "UPDATE ... FROM"),
        ("SELECT name FROM main.sqlite_schema WHERE type = 'table'", "the name sqlite_schema"),
        ("WITH c AS MATERIALIZED (SELECT 1) SELECT * FROM c", "MATERIALIZED / NOT MATERIALIZED"),
        ("WITH c AS NOT MATERIALIZED (SELECT 1) SELECT * FROM c", "MATERIALIZED / NOT MATERIALIZED"),
        ("SELECT * FROM t RIGHT JOIN u ON u.id = t.id", "RIGHT and FULL OUTER JOIN"),
        ("SELECT * FROM t FULL OUTER JOIN u USING (id)", "RIGHT and FULL OUTER JOIN"),
        ("DELETE FROM t WHERE a IS NOT DISTINCT FROM b", "IS [NOT] DISTINCT FROM"),
        ("CREATE VIEW big AS SELECT count(*) AS n FROM t HAVING n > 10", "HAVING without GROUP BY"),
        ("UPDATE t SET a = format('%d', b)", "the function format()"),
        ("UPDATE t SET a = unhex(b)", "the function unhex()"),
        ("UPDATE t SET a = octet_length(b)", "the function octet_length()"),
        ("UPDATE t SET a = timediff(b, c)", "the function timediff()"),
        ("UPDATE t SET a = concat_ws(',', b, c)", "the function concat_ws()"),
        ("SELECT string_agg(a, ',') FROM t", "the aggregate function string_agg()"),
        ("SELECT group_concat(a, ',' ORDER BY a) FROM t", "ORDER BY inside an aggregate call"),
        ("UPDATE t SET a = jsonb(b)", "the JSONB function jsonb()"),
        ("UPDATE t SET a = json_pretty(b)", "the JSON function json_pretty()"),
    ])
    func aFeatureIsFoundWhereTheGrammarPutsIt(sql: String, feature: String) throws {
        #expect(try features(sql) == [feature], "\(sql)")
    }

    @Test(arguments: [
        ("INSERT INTO t(a) VALUES (1) ON CONFLICT(a) DO NOTHING ON CONFLICT DO UPDATE SET b = 2", [
            "UPSERT (ON CONFLICT ... DO)", "several ON CONFLICT clauses, or DO UPDATE without a conflict target",
        ]),
        ("INSERT INTO t(a) VALUES (1) ON CONFLICT DO UPDATE SET b = 2", [
            "UPSERT (ON CONFLICT ... DO)", "several ON CONFLICT clauses, or DO UPDATE without a conflict target",
        ]),
        ("SELECT sum(a) FILTER (WHERE a > 0) OVER w FROM t WINDOW w AS (ORDER BY a)", [
            "FILTER on an aggregate", "window functions (OVER)",
        ]),
        ("SELECT string_agg(a, ',') OVER (ORDER BY id) FROM t", [
            "the aggregate function string_agg() as a window function", "window functions (OVER)",
        ]),
        // A trigger's two INSERTs hold one upsert each: no chain.
        ("CREATE TRIGGER up AFTER INSERT ON t BEGIN INSERT INTO u(a) VALUES (1) ON CONFLICT(a) DO NOTHING; INSERT INTO v(a) VALUES (2) ON CONFLICT(a) DO NOTHING; END", [
            "UPSERT (ON CONFLICT ... DO)",
        ]),
    ])
    func aStatementCanUseSeveralFeatures(sql: String, features expected: [String]) throws {
        #expect(try features(sql) == expected, "\(sql)")
    }

    /// An older parser stops at a token of the statement: its message names it, as written.
    @Test(arguments: [
        ("CREATE VIEW v AS SELECT * FROM t ORDER BY name nulls LAST", "the error near \"nulls\": syntax error"),
        ("ALTER TABLE t DROP COLUMN a", "the error near \"DROP\": syntax error"),
        ("DELETE FROM t RETURNING id", "the error near \"RETURNING\": syntax error"),
        ("UPDATE t SET a = b -> '$.x'", "the error near \">\": syntax error"),
        ("SELECT * FROM t LEFT JOIN u ON 1 RIGHT JOIN v ON 1", "\"RIGHT and FULL OUTER JOINs are not currently supported\""),
        ("UPDATE t SET a = unhex(b)", "\"no such function: unhex\""),
    ])
    func theOlderSQLitesMessageNamesTheTokenItStopsAt(sql: String, message: String) throws {
        let uses = try plan([#""sql": \#(JSONValue.quoted(sql))"#]).steps[0].sqliteFeatures(missingFrom: ancient)
        #expect(uses.first?.olderSQLiteSays == message, "\(sql)")
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
        // More names that are feature words, and older forms.
        "CREATE TABLE f(id INTEGER PRIMARY KEY, filter TEXT, nulls INT, materialized INT, true INT, \"false\" INT)",
        "SELECT filter, nulls FROM f ORDER BY nulls DESC",
        "SELECT t.true, f.\"false\" FROM t, f",
        "ALTER TABLE t ADD COLUMN flag INTEGER DEFAULT TRUE",
        "SELECT name FROM sqlite_master WHERE sql LIKE '%sqlite_schema%'",
        "SELECT * FROM t LEFT OUTER JOIN u ON u.id = t.id",
        "SELECT DISTINCT a FROM t WHERE a IS NOT NULL",
        "UPDATE t SET a = (SELECT max(b) FROM u WHERE u.id = t.id)",
        "CREATE TRIGGER tr AFTER UPDATE ON t BEGIN UPDATE u SET a = 1; INSERT INTO v SELECT * FROM w; END",
        "SELECT group_concat(a, ',') FROM (SELECT a FROM t ORDER BY a)",
        "SELECT count(*) FROM t WHERE a IN (SELECT b FROM u ORDER BY b LIMIT 3)",
        "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) > (SELECT 1)",
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
        #expect(failure.kind.rawValue == "sqlite_too_old")
        #expect(failure.step == 2)
        #expect(failure.statement == "ALTER TABLE t DROP COLUMN b")
        #expect(failure.message.contains("ALTER TABLE DROP COLUMN") && failure.message.contains("3.35.0") && failure.message.contains("3.28"))
        #expect(try FixtureDatabase.userVersion(at: path) == 1)
        #expect(try Connection(path: path).rows("SELECT name FROM pragma_table_info('t')").count == 3)

        let current = MigrationSettings(sqliteVersion: SQLiteVersion("3.35.0"))
        #expect(Migrator(plan: plan, settings: current).migrate(databaseAt: path, emit: { _ in }) == .reached(version: 2))
    }
}

/// Behaviour that changed between releases, on both sides of the change.
@Suite("SQLite behaviour by version")
struct SQLiteBehaviourTests {
    /// From 3.37.0 ADD COLUMN checks a new CHECK against the rows there; before, it did not.
    @Test(arguments: [("3.36", true), ("3.37.0", false), ("3.43.2", false)])
    func addColumnChecksExistingRowsFrom337(version: String, adds: Bool) throws {
        let directory = TemporaryDirectory("add-check")
        let plan = try PlanDecoder.decode(Array(#"""
            {"name": "t", "steps": [
              {"version": 1, "name": "create", "sql": "CREATE TABLE t(id INTEGER PRIMARY KEY)"},
              {"version": 2, "name": "rank", "sql": "ALTER TABLE t ADD COLUMN rank INTEGER DEFAULT 0 CHECK (rank > 0)"}]}
            """#.utf8))
        let path = try FixtureDatabase.create(
            at: directory.file("t.db"), sql: "CREATE TABLE t(id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1); PRAGMA user_version = 1;")
        let settings = MigrationSettings(sqliteVersion: SQLiteVersion(version))
        let ending = Migrator(plan: plan, settings: settings).migrate(databaseAt: path, emit: { _ in })
        if adds {
            #expect(ending == .reached(version: 2))
            #expect(try Connection(path: path).scalar("SELECT rank FROM t").integerValue == 0)
        } else {
            guard case .stopped(.failed, let failure) = ending else {
                Issue.record("the column was added on SQLite \(version)")
                return
            }
            #expect(failure.message.contains("CHECK constraint failed"), "\(failure.message)")
        }
    }
}
