import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

/// A user's virtual tables in the report of the real `preflight run`: each under its own name
/// with the count plain SQLite gives, and none of the shadow tables SQLite keeps for them.
@Suite("preflight run: virtual tables")
struct VirtualTableReportTests {
    /// Version 1 of an app with a notes table, Joplin's external-content FTS4 table over it,
    /// K-9 Mail's FTS4 table, an FTS5 table and an R*Tree.
    private static let version1 = [
        "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT)",
        "CREATE VIRTUAL TABLE notes_fts USING fts4(content=\"notes\", notindexed=\"id\", id, title, body)",
        "CREATE VIRTUAL TABLE messages_fulltext USING fts4 (fulltext)",
        "CREATE VIRTUAL TABLE search USING fts5(body)",
        "CREATE VIRTUAL TABLE places USING rtree(id, min_x, max_x, min_y, max_y)",
    ]
    private static let rows = """
        INSERT INTO notes VALUES (1, 'a', 'one'), (2, 'b', 'two'), (3, 'c', 'three');
        INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');
        INSERT INTO messages_fulltext(docid, fulltext) VALUES (1, 'hello'), (2, 'world'), (3, 'x'), (4, 'y'), (5, 'z'), (6, 'w');
        INSERT INTO search VALUES ('p'), ('q');
        INSERT INTO places VALUES (1, 0, 1, 0, 1), (2, 1, 2, 1, 2);
        """
    /// Version 2 writes to every virtual table and loses rows of one, as it declares.
    private static let step2 = [
        "INSERT INTO notes VALUES (4, 'd', 'four')", "INSERT INTO notes_fts(notes_fts) VALUES ('rebuild')",
        "INSERT INTO messages_fulltext(fulltext) VALUES ('more')", "DELETE FROM search WHERE body = 'q'",
        "INSERT INTO places VALUES (3, 2, 3, 2, 3)",
    ]
    private static let virtualTables: Set<String> = ["notes_fts", "messages_fulltext", "search", "places"]

    private func writePlan(to path: String) throws {
        let plan: [String: Any] = [
            "name": "virtual tables",
            "steps": [
                ["version": 1, "name": "schema", "sql": Self.version1],
                ["version": 2, "name": "more text", "row_loss": "allowed", "sql": Self.step2],
            ],
        ]
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: path))
    }

    /// `SELECT count(*)` of each named table, on a connection of its own.
    private func counts(_ tables: Set<String>, at path: String) throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for table in tables { counts[table] = try FixtureDatabase.count(table, at: path) }
        return counts
    }

    @Test func eachVirtualTableIsCountedByNameAndNoShadowTableIsListed() throws {
        let directory = TemporaryDirectory("virtual")
        let input = try FixtureDatabase.create(
            at: directory.file("v1.db"), sql: Self.version1.joined(separator: ";\n") + ";\n" + Self.rows + "PRAGMA user_version = 1;")
        let planPath = directory.file("plan.json")
        try writePlan(to: planPath)
        let out = directory.file("out.db")
        let result = try PreflightProcess.run(["run", "--db", input, "--plan", planPath, "--out", out])
        let report = try result.decodedReport
        #expect(report.outcome == .completed, "\(result.stderr) \(String(describing: report.failure))")

        let names = Self.virtualTables.union(["notes"])
        let before = try counts(names, at: input)
        #expect(before == ["notes": 3, "notes_fts": 3, "messages_fulltext": 6, "search": 2, "places": 2])
        #expect(report.input.tables == before)
        let final = try #require(report.final)
        let after = try counts(names, at: out)
        #expect(after == ["notes": 4, "notes_fts": 4, "messages_fulltext": 7, "search": 1, "places": 3])
        #expect(final.tables == after)
        #expect(final.rowsLost == ["search": 1])
        #expect(!report.warnings.contains { $0.code == "table_not_counted" })
    }

    /// A virtual table whose module is the app's own, absent from Preflight's SQLite: the file
    /// is still a database SQLite reads. The report counts the rest and names that table in
    /// a warning rather than give it a number.
    @Test func aVirtualTableWithoutItsModuleIsNamedInAWarning() throws {
        let directory = TemporaryDirectory("virtual")
        let input = try FixtureDatabase.create(at: directory.file("v1.db"), sql: """
            CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT); INSERT INTO notes VALUES (1, 'a');
            CREATE VIRTUAL TABLE messages_fulltext USING fts4(fulltext); INSERT INTO messages_fulltext VALUES ('hello');
            PRAGMA user_version = 1;
            """)
        try FixtureDatabase.rewriteSchema(
            "UPDATE sqlite_schema SET sql = 'CREATE VIRTUAL TABLE messages_fulltext USING app_fts(fulltext)' WHERE name = 'messages_fulltext';",
            at: input)
        let planPath = directory.file("plan.json")
        let plan: [String: Any] = [
            "name": "own module",
            "steps": [
                ["version": 1, "name": "schema", "sql": ["CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT)"]],
                ["version": 2, "name": "more", "sql": ["INSERT INTO notes VALUES (2, 'b')"]],
            ],
        ]
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: planPath))
        let result = try PreflightProcess.run(["run", "--db", input, "--plan", planPath])
        let report = try result.decodedReport
        // The schema has a table the plan's fresh install lacks; that is the schema check's to say.
        #expect(report.outcome == .verificationFailed, "\(result.stderr) \(String(describing: report.failure))")
        #expect(report.input.tables?["notes"] == 1)
        #expect(report.input.tables?["messages_fulltext"] == nil)
        #expect(report.final?.tables?["notes"] == 2)
        #expect(report.final?.tables?["messages_fulltext"] == nil)
        let warnings = report.warnings.filter { $0.code == "table_not_counted" }
        #expect(warnings.count == 1, "\(report.warnings)")
        #expect(warnings.first?.message.hasPrefix(
            "virtual table messages_fulltext cannot be read in the input (no such module: app_fts), so it is left out of tables and rows_lost") == true,
            "\(warnings)")
    }
}
