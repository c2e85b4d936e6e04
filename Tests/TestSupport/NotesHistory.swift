import Foundation
import MigrationCore

/// The notes app of `Config/plans/notes.json` at each of its versions, as each version's
/// own `onCreate` wrote its database, with rows in that version's columns.
public enum NotesHistory {
    /// The repository's notes plan.
    public static func plan() throws -> Plan {
        try PlanDecoder.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: Repository.path("Config/plans/notes.json")))))
    }

    public static let applicationID: Int32 = 1_296_190_513

    /// Creates a database as app version `version` left it, holding `rows` notes.
    @discardableResult
    public static func database(version: Int, rows: Int = 20, at path: String, journalMode: String? = nil) throws -> String {
        var sql = schema(version: version)
        sql += "\n" + data(version: version, rows: rows)
        sql += "\nPRAGMA user_version = \(version);"
        if version > 0 { sql += "\nPRAGMA application_id = \(applicationID);" }
        return try FixtureDatabase.create(at: path, sql: sql, journalMode: journalMode)
    }

    /// The schema app version `version` created, as SQL.
    public static func schema(version: Int) -> String {
        switch version {
        case 1:
            return """
                CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT, updated_at INTEGER NOT NULL);
                CREATE INDEX idx_notes_updated_at ON notes(updated_at);
                """
        case 2:
            return """
                CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT, updated_at INTEGER NOT NULL,
                                   sync_status TEXT NOT NULL DEFAULT 'synced');
                CREATE INDEX idx_notes_updated_at ON notes(updated_at);
                CREATE INDEX idx_notes_sync_status ON notes(sync_status);
                """
        case 3:
            return schema(version: 2) + "\n" + outbox
        case 4:
            return """
                CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT,
                                   category TEXT NOT NULL DEFAULT 'uncategorized',
                                   sync_status TEXT NOT NULL DEFAULT 'synced', updated_at INTEGER NOT NULL);
                CREATE INDEX idx_notes_updated_at ON notes(updated_at);
                CREATE INDEX idx_notes_sync_status ON notes(sync_status);
                """ + "\n" + outbox
        case 5, 6:
            return """
                CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT,
                                   category TEXT NOT NULL DEFAULT 'uncategorized',
                                   sync_status TEXT NOT NULL DEFAULT 'synced', updated_at INTEGER NOT NULL,
                                   search_key TEXT);
                CREATE INDEX idx_notes_updated_at ON notes(updated_at);
                CREATE INDEX idx_notes_sync_status ON notes(sync_status);
                """ + "\n" + outbox
        default:
            return ""
        }
    }

    private static let outbox = """
        CREATE TABLE outbox(id INTEGER PRIMARY KEY AUTOINCREMENT,
                            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
                            operation TEXT NOT NULL CHECK (operation IN ('insert', 'update', 'delete')),
                            payload TEXT, created_at INTEGER NOT NULL);
        CREATE INDEX idx_outbox_note_id ON outbox(note_id);
        """

    /// Rows in the columns of `version`; every fifth note has no title (allowed before version 4).
    static func data(version: Int, rows: Int) -> String {
        guard version > 0, rows > 0 else { return "" }
        let title = version >= 4 ? "'note ' || value" : "CASE WHEN value % 5 = 0 THEN NULL ELSE 'Note ' || value END"
        let columns: String
        let values: String
        switch version {
        case 1:
            columns = "id, title, body, updated_at"
            values = "value, \(title), 'body of ' || value, 1700000000 + value"
        case 2, 3:
            columns = "id, title, body, updated_at, sync_status"
            values = "value, \(title), 'body of ' || value, 1700000000 + value, CASE WHEN value % 3 = 0 THEN 'pending' ELSE 'synced' END"
        case 4:
            columns = "id, title, body, category, sync_status, updated_at"
            values = "value, \(title), 'body of ' || value, 'uncategorized', 'synced', 1700000000 + value"
        default:
            columns = "id, title, body, category, sync_status, updated_at, search_key"
            values = "value, \(title), 'body of ' || value, 'uncategorized', 'synced', 1700000000 + value, \(version >= 6 ? "lower(\(title))" : "NULL")"
        }
        var sql = "\(series(rows)) INSERT INTO notes(\(columns)) SELECT \(values) FROM series;"
        if version >= 3 {
            sql += "\n\(series(max(1, rows / 4))) INSERT INTO outbox(note_id, operation, payload, created_at) SELECT value, 'update', '{}', 1700000000 + value FROM series;"
        }
        return sql
    }
}

/// A `WITH` clause naming the integers 1...count `series(value)` (the library has no
/// generate_series; the sqlite3 shell does).
public func series(_ count: Int) -> String {
    "WITH RECURSIVE series(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM series WHERE value < \(count))"
}

/// Paths inside the repository, found from this file's location.
public enum Repository {
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    public static func path(_ relative: String) -> String { root + "/" + relative }
}
