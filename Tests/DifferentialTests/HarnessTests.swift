import Foundation
import Testing
import TestSupport

/// The harness itself: a comparison that cannot fail proves nothing, so each case here gives
/// Preflight and the oracle different SQL on purpose (or the same data in another order) and
/// checks that exactly the expected kind of disagreement is reported.
@Suite("Differential: the harness notices what it should, and only that")
struct HarnessTests {
    /// A small case whose plan runs `plan` and whose oracle runs `oracle` (the same by default).
    private func makeCase(
        _ name: String, plan: [[String]], oracle: [[String]]? = nil, seed: String? = "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c');",
        planExtras: [String: Any] = [:], stepExtras: [Int: [String: Any]] = [:]
    ) throws -> DifferentialCase {
        var steps: [[String: Any]] = []
        for (index, statements) in plan.enumerated() {
            var step: [String: Any] = ["version": index + 1, "name": "step \(index + 1)", "sql": statements]
            for (key, value) in stepExtras[index + 1] ?? [:] { step[key] = value }
            steps.append(step)
        }
        var document: [String: Any] = ["name": name, "steps": steps]
        for (key, value) in planExtras { document[key] = value }
        return DifferentialCase(
            name: name, planDocument: try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]),
            oracleSteps: oracle ?? plan, seedSQL: seed)
    }

    private let create = ["CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)"]

    @Test(arguments: Differential.Start.allCases)
    func theSameSQLAgrees(start: Differential.Start) throws {
        let testCase = try makeCase(
            "same", plan: [create, ["ALTER TABLE t ADD COLUMN w INTEGER", "UPDATE t SET w = id * 2"], ["CREATE INDEX t_w ON t(w)"]])
        #expect(try Differential.discrepancies(testCase, from: start) == [])
    }

    @Test func aDifferentValueIsAContentDifference() throws {
        let testCase = try makeCase(
            "value", plan: [create, ["UPDATE t SET v = 'x' WHERE id = 2"]], oracle: [create, ["UPDATE t SET v = 'y' WHERE id = 2"]])
        let found = try Differential.discrepancies(testCase, from: .seeded)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains("the rows of table t differ: 1 rows only in the --out file [(2,'x')], 1 only in the oracle's [(2,'y')]") == true, "\(found)")
    }

    @Test func aMissingRowIsACountContentAndRowsLostDifference() throws {
        let testCase = try makeCase(
            "count", plan: [create, ["UPDATE t SET v = v"]], oracle: [create, ["DELETE FROM t WHERE id = 3"]])
        let found = try Differential.discrepancies(testCase, from: .seeded)
        #expect(found.contains("table t has 3 rows in the --out file, 2 in the oracle's end file"), "\(found)")
        #expect(found.contains("table t has 3 rows in the report's final.tables, 2 in the oracle's end file"), "\(found)")
        #expect(found.contains { $0.hasPrefix("the rows of table t differ") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("final.rows_lost says table t lost 0 rows") }, "\(found)")
        #expect(found.count == 4, "\(found)")
    }

    @Test func aMissingIndexIsASchemaDifference() throws {
        let testCase = try makeCase(
            "schema", plan: [create, ["UPDATE t SET v = v"]], oracle: [create, ["CREATE INDEX t_v ON t(v)"]])
        let found = try Differential.discrepancies(testCase, from: .empty)
        #expect(found == ["the --out file lacks the oracle's index t_v: [\"on t: CREATE INDEX t_v ON t(v)\"]"], "\(found)")
    }

    @Test func aChangedColumnIsASchemaDifference() throws {
        let testCase = try makeCase(
            "column", plan: [create, ["ALTER TABLE t ADD COLUMN w TEXT"]], oracle: [create, ["ALTER TABLE t ADD COLUMN w INTEGER"]])
        let found = try Differential.discrepancies(testCase, from: .empty)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.hasPrefix("the schema of table t differs") == true, "\(found)")
    }

    /// Spacing is normalised away; row order and the implicit rowid of a table without an
    /// INTEGER PRIMARY KEY are not part of the fingerprint (DatabaseFingerprint says why).
    @Test func spacingAndRowOrderAreNotDifferences() throws {
        let plan = [["CREATE TABLE u(a TEXT, b INTEGER)"], ["INSERT INTO u VALUES ('p', 1), ('q', 2), ('q', 2)"]]
        let oracle = [["CREATE   TABLE u(a TEXT,\n     b INTEGER)"], ["INSERT INTO u VALUES ('q', 2), ('p', 1), ('q', 2)"]]
        let testCase = try makeCase("order", plan: plan, oracle: oracle, seed: nil)
        #expect(try Differential.discrepancies(testCase, from: .empty) == [])
    }

    @Test func aDuplicateRowIsADifference() throws {
        let plan = [["CREATE TABLE u(a TEXT, b INTEGER)"], ["INSERT INTO u VALUES ('p', 1), ('q', 2), ('q', 2)"]]
        let oracle = [["CREATE TABLE u(a TEXT, b INTEGER)"], ["INSERT INTO u VALUES ('p', 1), ('q', 2), ('p', 1)"]]
        let found = try Differential.discrepancies(try makeCase("duplicate", plan: plan, oracle: oracle, seed: nil), from: .empty)
        #expect(found == ["the rows of table u differ: 1 rows only in the --out file [('q',2)], 1 only in the oracle's [('p',1)]"], "\(found)")
    }

    /// A column without affinity keeps what it is given, so 1 and '1' are different rows.
    @Test func aTypeIsPartOfAValue() throws {
        let testCase = try makeCase(
            "type", plan: [["CREATE TABLE u(x)"], ["INSERT INTO u VALUES (1)"]],
            oracle: [["CREATE TABLE u(x)"], ["INSERT INTO u VALUES ('1')"]], seed: nil)
        let found = try Differential.discrepancies(testCase, from: .empty)
        #expect(found == ["the rows of table u differ: 1 rows only in the --out file [(1)], 1 only in the oracle's [('1')]"], "\(found)")
    }

    @Test func aStepTheOracleHasAndThePlanLacksIsAVersionDifference() throws {
        let testCase = try makeCase("versions", plan: [create, ["UPDATE t SET v = v"]], oracle: [create, ["UPDATE t SET v = v"], []])
        let found = try Differential.discrepancies(testCase, from: .seeded)
        #expect(found.contains("the report's final.user_version is 2, the oracle ends at 3"), "\(found)")
        #expect(found.contains("the --out file is at user_version 2, the oracle's at 3"), "\(found)")
    }

    @Test func aFailingStepIsAnOutcomeDifference() throws {
        let testCase = try makeCase(
            "failure", plan: [create, ["INSERT INTO nowhere VALUES (1)"]], oracle: [create, ["UPDATE t SET v = v"]])
        let found = try Differential.discrepancies(testCase, from: .seeded)
        #expect(found.first?.hasPrefix("preflight run ended failed with exit status 1") == true, "\(found)")
        #expect(found.first?.contains("no such table: nowhere") == true, "\(found)")
    }

    /// A fresh-install script unlike the steps' result: Preflight's own schema comparison fails.
    @Test func aFreshInstallMismatchIsReported() throws {
        let testCase = try makeCase(
            "fresh", plan: [create], planExtras: ["fresh_install": ["version": 1, "sql": "CREATE TABLE t(id INTEGER PRIMARY KEY)"]])
        let found = try Differential.discrepancies(testCase, from: .empty)
        #expect(found.first?.hasPrefix("preflight run ended verification_failed") == true, "\(found)")
        #expect(found.contains { $0.hasPrefix("final.schema_matches_fresh_install is false") }, "\(found)")
    }

    /// Rows a step deletes on purpose are lost on both sides; a dropped table is not a loss
    /// on either (as Verifier.rowsLost counts it).
    @Test func rowsLostAgreeForADeleteAndADrop() throws {
        let testCase = try makeCase(
            "lost", plan: [create + ["CREATE TABLE gone(x)"], ["DELETE FROM t WHERE id > 1", "DROP TABLE gone"]],
            seed: "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c'); INSERT INTO gone VALUES (1), (2);",
            stepExtras: [2: ["row_loss": "allowed"]])
        #expect(try Differential.discrepancies(testCase, from: .seeded) == [])
    }

    @Test func aPreflightTableInAFileIsALeftover() throws {
        let directory = TemporaryDirectory("fingerprint")
        let db = try PlainSQLite(path: directory.file("a.db"), create: true)
        try db.execute("CREATE TABLE notes(x); CREATE TABLE _preflight_progress(step)")
        let fingerprint = try DatabaseFingerprint.read(db)
        #expect(fingerprint.preflightLeftovers.map(\.label) == ["table _preflight_progress"])
    }

    @Test func sqliteSequenceShadowAndVirtualTablesAreFingerprinted() throws {
        let directory = TemporaryDirectory("fingerprint")
        let db = try PlainSQLite(path: directory.file("a.db"), create: true)
        try db.execute(
            """
            CREATE TABLE a(id INTEGER PRIMARY KEY AUTOINCREMENT, y); INSERT INTO a(y) VALUES (1), (2);
            CREATE VIRTUAL TABLE f USING fts4(body); INSERT INTO f(body) VALUES ('hello world');
            """)
        let fingerprint = try DatabaseFingerprint.read(db)
        #expect(fingerprint.rowCounts["sqlite_sequence"] == 1)
        #expect(fingerprint.rowCounts["f_content"] == 1)
        #expect(fingerprint.rowCounts["f"] == 1)
        #expect(fingerprint.contentHashes["sqlite_sequence"] != nil)
        #expect(fingerprint.contentHashes["f_content"] != nil)
        #expect(fingerprint.schema.contains { $0.label == "table f" })
        #expect(fingerprint.userTables == ["a": 2, "f": 1], "a user counts the virtual table, not its shadow tables")
    }

    // MARK: - Virtual tables, as a user counts them

    private let virtualTables = [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)",
        "CREATE VIRTUAL TABLE notes_fts USING fts4(content=\"t\", v)",
        "CREATE VIRTUAL TABLE messages_fulltext USING fts4 (fulltext)",
        "CREATE VIRTUAL TABLE search USING fts5(body)",
        "CREATE VIRTUAL TABLE places USING rtree(id, min_x, max_x)",
    ]
    private let virtualRows = """
        INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c'); INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');
        INSERT INTO messages_fulltext(docid, fulltext) VALUES (1, 'hello'), (2, 'world');
        INSERT INTO search VALUES ('x'), ('y'), ('z'), ('w'); INSERT INTO places VALUES (1, 0, 1);
        """

    /// FTS4 (with external content, as Joplin's), FTS5 and R*Tree tables, counted by their
    /// own names in the report's input.tables and final.tables. Before the report named
    /// virtual tables, each start found each of them missing from the report.
    @Test(arguments: Differential.Start.allCases)
    func virtualTablesAgreeByName(start: Differential.Start) throws {
        let testCase = try makeCase(
            "virtual", plan: [virtualTables, ["INSERT INTO messages_fulltext(fulltext) VALUES ('more')", "DELETE FROM search WHERE body = 'w'"]],
            seed: virtualRows, stepExtras: [2: ["row_loss": "allowed"]])
        #expect(try Differential.discrepancies(testCase, from: start) == [])
    }

    /// An FTS4 table whose rows differ: its count is compared by its name, in the --out
    /// file and in the report.
    @Test func aVirtualTablesRowsAreComparedByItsName() throws {
        let testCase = try makeCase(
            "virtual count", plan: [virtualTables, ["INSERT INTO messages_fulltext(fulltext) VALUES ('more')"]],
            oracle: [virtualTables, ["INSERT INTO messages_fulltext(fulltext) VALUES ('more'), ('again')"]], seed: virtualRows)
        let found = try Differential.discrepancies(testCase, from: .seeded)
        #expect(found.contains("table messages_fulltext has 3 rows in the --out file, 4 in the oracle's end file"), "\(found)")
        #expect(found.contains("table messages_fulltext has 3 rows in the report's final.tables, 4 in the oracle's end file"), "\(found)")
        #expect(!found.contains { $0.contains("in the report's") && $0.contains("messages_fulltext_") }, "no shadow table is a user's table: \(found)")
    }
}
