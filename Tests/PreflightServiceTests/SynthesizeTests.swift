import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

/// `preflight synthesize` (docs/CONTRACT.md §8): the schema at a version from the plan's own
/// steps, filled with rows that keep every constraint, shaped like a sample, the same for
/// the same seed. The library for the corpus (many tables, bounded rows), the real binary
/// for what a user types.
@Suite("preflight synthesize")
struct SynthesizeTests {
    static let corpusApps = ["antennapod", "k9mail", "wikipedia-android", "duckduckgo-android", "fairemail", "siskin-im"]

    /// A corpus chain as a plan: its `source` and `notes` keys are not plan keys.
    static func corpusPlan(_ app: String) throws -> Plan {
        let data = try Data(contentsOf: URL(fileURLWithPath: Repository.path("Tests/DifferentialTests/Fixtures/corpus/\(app).plan.json")))
        var document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        document["source"] = nil
        document["notes"] = nil
        return try PlanDecoder.decode([UInt8](try JSONSerialization.data(withJSONObject: document)))
    }

    /// Every table of every corpus app at its newest version, 200 rows each: the file is
    /// sound, every foreign key has its parent, each table holds exactly the rows asked
    /// (after the ones the plan's own steps insert), every AUTOINCREMENT counter matches.
    @Test(arguments: corpusApps)
    func everyCorpusTableKeepsItsConstraints(app: String) throws {
        let plan = try Self.corpusPlan(app)
        let directory = TemporaryDirectory("synthesize")
        let empty = try Synthesizer.synthesize(
            SynthesisRequest(plan: plan, version: plan.newestVersion, rows: [:], like: nil, seed: 1), to: directory.file("empty.db"))
        let rows = Dictionary(uniqueKeysWithValues: empty.tables.keys.map { ($0, 200) })
        let summary = try Synthesizer.synthesize(
            SynthesisRequest(plan: plan, version: plan.newestVersion, rows: rows, like: nil, seed: 7), to: directory.file("full.db"))
        let connection = try Connection(path: directory.file("full.db"), readOnly: true)
        #expect(try connection.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(try connection.rows("PRAGMA foreign_key_check").isEmpty)
        #expect(try connection.userVersion == plan.newestVersion)
        #expect(empty.tables.count > 3)
        for (table, before) in empty.tables {
            let count = Int(try connection.integer("SELECT count(*) FROM \(SQLText.quote(table))"))
            #expect(count == before + 200, "\(app).\(table)")
            #expect(summary.tables[table] == count)
        }
        let autoincrement = try connection.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_sequence'") == 1
        #expect(autoincrement == (app != "k9mail"), "the corpus's apps but k9mail have AUTOINCREMENT tables")
        for sequence in autoincrement ? try connection.rows("SELECT name, seq FROM sqlite_sequence") : [] {
            let table = try #require(sequence[0].textValue)
            #expect(try connection.scalar("SELECT max(rowid) FROM \(SQLText.quote(table))") == sequence[1], "\(app).\(table)")
        }
    }

    static let checkedPlan = """
        {"name": "checked", "steps": [{"version": 1, "name": "create", "sql": [
          "CREATE TABLE t(id INTEGER PRIMARY KEY, rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5), code TEXT CHECK (length(code) <= 3), score REAL CHECK (score > 0 AND score < 1), even INTEGER NOT NULL CHECK (even % 2 = 0), status TEXT NOT NULL DEFAULT 'a' CHECK (status IN ('a', 'b', 'c')))",
          "CREATE TABLE digits(id INTEGER PRIMARY KEY, code TEXT NOT NULL CHECK (code GLOB '*[0-9]*'))",
          "CREATE TABLE parent(k TEXT PRIMARY KEY, v BLOB) WITHOUT ROWID",
          "CREATE TABLE pairs(x INTEGER NOT NULL REFERENCES t(id), y TEXT NOT NULL REFERENCES parent(k), PRIMARY KEY (x, y)) WITHOUT ROWID",
          "CREATE TABLE tree(id INTEGER PRIMARY KEY AUTOINCREMENT, parent_id INTEGER REFERENCES tree(id), name TEXT UNIQUE NOT NULL)"
        ]}]}
        """

    func writePlan(_ text: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("plan.json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// CHECKs hold: the simple ones met from the start, `even % 2 = 0` by regenerating
    /// the rows it refused; a join table of two foreign keys gets distinct pairs; a tree
    /// points at its own rows.
    @Test func checksForeignKeysAndCompositeKeysHold() throws {
        let directory = TemporaryDirectory("synthesize")
        let plan = try writePlan(Self.checkedPlan, in: directory)
        let out = directory.file("checked.db")
        let result = try PreflightProcess.run(
            ["synthesize", "--plan", plan, "--version", "1", "--rows", "t=3000,parent=20,pairs=2500,tree=500", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(String(decoding: result.stdout, as: UTF8.self).contains("pairs: 2500 rows"))
        let connection = try Connection(path: out, readOnly: true)
        #expect(try connection.integer("SELECT count(*) FROM t") == 3000)
        let broken = try connection.integer(
            """
            SELECT count(*) FROM t WHERE NOT (rating BETWEEN 1 AND 5) OR length(code) > 3 OR NOT (score > 0 AND score < 1)
                OR even % 2 != 0 OR status NOT IN ('a', 'b', 'c')
            """)
        #expect(broken == 0)
        // Values vary: every allowed status and rating appears.
        #expect(try connection.integer("SELECT count(DISTINCT status) FROM t") == 3)
        #expect(try connection.integer("SELECT count(DISTINCT rating) FROM t") == 5)
        #expect(try connection.integer("SELECT count(*) FROM pairs") == 2500)
        #expect(try connection.integer("SELECT count(*) FROM tree WHERE parent_id IS NOT NULL") > 0)
        #expect(try connection.rows("PRAGMA foreign_key_check").isEmpty)
        #expect(try connection.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(try connection.scalar("SELECT seq FROM sqlite_sequence WHERE name = 'tree'") == .integer(500))
    }

    /// A CHECK no generated value meets: exit 1, a message naming the table, the column and
    /// the check, and no file left behind.
    @Test func anUnmeetableCheckIsAClearError() throws {
        let directory = TemporaryDirectory("synthesize")
        let plan = try writePlan(Self.checkedPlan, in: directory)
        let out = directory.file("digits.db")
        let result = try PreflightProcess.run(["synthesize", "--plan", plan, "--version", "1", "--rows", "digits=50", "--out", out])
        #expect(result.status == 1)
        #expect(result.stderr.contains("table \"digits\", column \"code\""), "\(result.stderr)")
        #expect(result.stderr.contains("CHECK (code GLOB '*[0-9]*')"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(!FileManager.default.fileExists(atPath: out + ".synthesizing"))
        // Too few parents for distinct pairs is the same kind of error, said as such.
        let pairs = try PreflightProcess.run(
            ["synthesize", "--plan", plan, "--version", "1", "--rows", "t=10,parent=5,pairs=51", "--out", out])
        #expect(pairs.status == 1)
        #expect(pairs.stderr.contains("only 50 distinct combinations"), "\(pairs.stderr)")
    }

    /// `--like`: each column follows the sample's NULL fraction, mean text length, share of
    /// distinct values, range and few values; the sample's own texts are not copied; the WAL sample gives a WAL file.
    @Test func likeFollowsTheSamplesShape() throws {
        let directory = TemporaryDirectory("synthesize")
        let sample = directory.file("sample.db")
        try FixtureDatabase.create(
            at: sample, sql: """
            PRAGMA user_version = 6;
            CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT, category TEXT NOT NULL DEFAULT 'uncategorized',
                sync_status TEXT NOT NULL DEFAULT 'synced', updated_at INTEGER NOT NULL, search_key TEXT);
            WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3000)
            INSERT INTO notes SELECT n, 'sample title ' || (n % 1500), CASE WHEN n % 10 < 3 THEN NULL ELSE printf('%.*c', 100 + (n * 37) % 400, 'b') END,
                'c' || (n % 4), CASE WHEN n % 10 = 0 THEN 'pending' ELSE 'synced' END, 1700000000 + n * 60, NULL FROM c;
            """, journalMode: "WAL")
        let out = directory.file("like.db")
        let result = try PreflightProcess.run(
            ["synthesize", "--plan", "Config/plans/notes.json", "--version", "6", "--rows", "notes=20000", "--like", sample, "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        let measure = """
            SELECT avg(body IS NULL), avg(length(body)), avg(length(title)), avg(search_key IS NULL),
                   count(DISTINCT title) * 1.0 / count(*) FROM notes
            """
        let expected = try Connection(path: sample, readOnly: true).rows(measure)[0]
        let made = try Connection(path: out, readOnly: true)
        let got = try made.rows(measure)[0]
        for (index, value) in expected.enumerated() {
            let want = try #require(number(value)), have = try #require(number(got[index]))
            #expect(abs(have - want) <= 0.1 * want, "measure \(index): sample \(want), synthesized \(have)")
        }
        #expect(try made.integer("SELECT count(*) FROM notes WHERE updated_at NOT BETWEEN 1700000060 AND 1700180000") == 0)
        #expect(try made.rows("SELECT DISTINCT sync_status FROM notes ORDER BY 1") == [[.text("pending")], [.text("synced")]])
        #expect(try made.integer("SELECT count(*) FROM notes WHERE title LIKE 'sample title %'") == 0)
        #expect(try made.scalar("PRAGMA journal_mode") == .text("wal"))
    }

    private func number(_ value: SQLiteValue) -> Double? {
        switch value {
        case .integer(let number): return Double(number)
        case .real(let number): return number
        default: return nil
        }
    }

    /// The same seed gives the same content in every table, another seed other content.
    @Test func theSeedDecidesTheContent() throws {
        let directory = TemporaryDirectory("synthesize")
        func content(seed: Int, _ name: String) throws -> String {
            let out = directory.file(name)
            let result = try PreflightProcess.run(
                ["synthesize", "--plan", "Config/plans/notes.json", "--version", "6", "--rows", "notes=500,outbox=800",
                 "--seed", "\(seed)", "--out", out])
            #expect(result.status == 0, "\(result.stderr)")
            let connection = try Connection(path: out, readOnly: true)
            var hash = SHA256()
            for table in ["notes", "outbox"] {
                for row in try connection.rows("SELECT * FROM \(table) ORDER BY rowid") {
                    hash.update(Array(row.map(\.description).joined(separator: "|").utf8) + [10])
                }
            }
            return hash.finalizeHex()
        }
        let first = try content(seed: 42, "a.db")
        #expect(try content(seed: 42, "b.db") == first)
        #expect(try content(seed: 43, "c.db") != first)
    }

    /// A Room app whose history starts at version 24 and ships only even versions: version
    /// V is built from the base step along Room's path, with V's identity hash in
    /// `room_master_table`, as Room leaves a file at V.
    @Test func aRoomFileAtVersionVHoldsVsIdentityHash() throws {
        let directory = TemporaryDirectory("synthesize")
        let plan = try ShelfRoomPlan.write(in: directory)
        let out = directory.file("v26.db")
        let result = try PreflightProcess.run(["synthesize", "--plan", plan, "--version", "26", "--rows", "book=10", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        let connection = try Connection(path: out, readOnly: true)
        #expect(try connection.userVersion == 26)
        #expect(try connection.rows("SELECT identity_hash FROM room_master_table WHERE id = 42") == [[.text("hash26")]])
        #expect(try connection.rows("SELECT name FROM pragma_table_info('book')").compactMap { $0[0].textValue } == ["id", "title", "isbn"])
        #expect(try connection.integer("SELECT count(*) FROM book") == 10)
        let odd = try PreflightProcess.run(["synthesize", "--plan", plan, "--version", "25", "--rows", "book=1", "--out", out])
        #expect(odd.status == 2)
        #expect(odd.stderr.contains("version 25 is not one of the plan's versions (24...28)"), "\(odd.stderr)")
    }

    /// What a user gets wrong is said plainly, with exit status 2; `--version` alone
    /// still prints the versions, as for every command.
    @Test func badRequestsAreUsageErrors() throws {
        let directory = TemporaryDirectory("synthesize")
        let out = directory.file("x.db")
        let plan = "Config/plans/notes.json"
        let cases: [([String], String)] = [
            (["--plan", plan, "--version", "6", "--out", out], "--rows TABLE=N"),
            (["--plan", plan, "--version", "6", "--rows", "notes=ten", "--out", out], "--rows takes TABLE=N"),
            (["--plan", plan, "--version", "9", "--rows", "notes=1", "--out", out], "version 9 is not one of the plan's versions (1...6)"),
            (["--plan", plan, "--version", "2", "--rows", "outbox=1", "--out", out], "has no table \"outbox\"; its tables: notes"),
            (["--plan", plan, "--version", "6", "--rows", "notes=1", "--like", plan, "--out", out], "is not an SQLite database"),
            (["--plan", plan, "--version", "6", "--rows", "outbox=1", "--out", out], "references \"notes\", which gets no rows"),
        ]
        for (arguments, message) in cases {
            let result = try PreflightProcess.run(["synthesize"] + arguments)
            #expect(result.status == (message.contains("which gets no rows") ? 1 : 2), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let version = try PreflightProcess.run(["synthesize", "--version"])
        #expect(version.status == 0)
        #expect(String(decoding: version.stdout, as: UTF8.self).hasPrefix("preflight "))
    }
}
