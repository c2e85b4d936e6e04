import Foundation
import MigrationCore
import Simulation

/// Databases, plans and report readers for the disk-space tests (issue 4).
///
/// The fixture is the notes table of a version-1 app: `notes(id, title, body,
/// updated_at)` with an index on `updated_at`, made by the same statements as the plans'
/// step 1, so that replaying the plan on an empty file gives the same schema and
/// verification passes. Titles and bodies are deterministic (no randomblob): two
/// fixtures with the same row count are the same file.
public enum SpaceFixtures {
    public static let createNotes = [
        "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT, updated_at INTEGER NOT NULL)",
        "CREATE INDEX idx_notes_updated_at ON notes(updated_at)",
    ]

    /// A version-1 database with `rows` notes, in `journalMode` ("delete" or "wal").
    @discardableResult
    public static func notes(rows: Int, at path: String, journalMode: String) throws -> String {
        try FixtureDatabase.create(
            at: path,
            sql: createNotes.joined(separator: ";\n") + """
                ;
                \(series(rows)) INSERT INTO notes(id, title, body, updated_at)
                SELECT value, 'Note number ' || value || ' about ' || (value * 7919 % 1000003),
                       'body of note ' || value || ', written on a phone with little space left',
                       1700000000 + (value * 104729 % 100000000)
                FROM series;
                PRAGMA user_version = 1;
                """,
            journalMode: journalMode)
    }

    /// A two-step plan: step 1 creates the fixture's schema, step 2 is `step` (a JSON
    /// object without `version` and `name`).
    public static func plan(_ step: String, at path: String) throws -> String {
        let create = createNotes.map { "\"\($0)\"" }.joined(separator: ", ")
        let document = """
            {"name": "space", "steps": [
              {"version": 1, "name": "create notes", "sql": [\(create)]},
              {"version": 2, "name": "step under test", \(step)}]}
            """
        try Data(document.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Step 2 as a rebuild: title required, a category added, the index rebuilt.
    public static let rebuild = """
        "rebuild": {"table": "notes",
          "columns": "id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT, category TEXT NOT NULL DEFAULT 'none', updated_at INTEGER NOT NULL",
          "select": "id, coalesce(title, ''), body, 'uncategorized', updated_at", "batch_rows": 1000}
        """

    /// Step 2 as an index build on a text key (about 60 bytes a row: spills the sorter of
    /// the default 2 MB cache from about 30,000 rows).
    public static let indexBuild = """
        "sql": "CREATE INDEX idx_notes_title ON notes(title, body)"
        """

    /// Bytes of the b-tree `name` in the database at `path` (dbstat).
    public static func treeBytes(_ name: String, at path: String) throws -> Int64 {
        try Connection(path: path).integer("SELECT sum(pgsize) FROM dbstat WHERE name = ?", [.text(name)])
    }
}

/// A report of `preflight run` with the process's stderr, read the way the space tests
/// need it: the report's fields directly (`run.outcome`, `run.space.minFreeBytes`), and
/// a step by its version.
@dynamicMemberLookup
public struct RunReport: Sendable {
    public let report: Report
    public let status: Int32
    public let stderr: String

    /// Throws `PreflightProcess.NoReport` when the run printed no report.
    public init(_ result: PreflightProcess.Result) throws {
        report = try result.decodedReport
        status = result.status
        stderr = result.stderr
    }

    public subscript<Value>(dynamicMember field: KeyPath<Report, Value>) -> Value { report[keyPath: field] }

    public func step(_ version: Int) -> StepReport? {
        report.steps.first { $0.version == version }
    }
}

extension PreflightProcess {
    /// `preflight run --db database --plan plan options...`, its report.
    public static func runReport(database: String, plan: String, _ options: [String] = []) throws -> RunReport {
        try RunReport(run(["run", "--db", database, "--plan", plan] + options))
    }
}
