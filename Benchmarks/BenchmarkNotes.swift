import Foundation
import MigrationCore

/// The table both rebuild benchmarks migrate: `notes(id, title ~60, body ~40,
/// updated_at)` with an index on `updated_at`, about 110 MB at a million rows, and the
/// rebuild that makes the title required and adds a category.
enum BenchmarkNotes {
    static let schema = """
        CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT, updated_at INTEGER NOT NULL);
        CREATE INDEX idx_notes_updated ON notes(updated_at);
        """
    static let newColumns =
        "id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT, category TEXT NOT NULL DEFAULT 'none', updated_at INTEGER NOT NULL"
    static let select = "id, coalesce(title, ''), body, 'uncategorized', updated_at"
    /// The rebuild inside its transaction, as SQLite's 12-step procedure does it: create
    /// the new table, copy, drop the old, rename, recreate the index.
    static let rebuildStatements = [
        "CREATE TABLE new_notes(\(newColumns))",
        "INSERT INTO new_notes SELECT \(select) FROM notes",
        "DROP TABLE notes",
        "ALTER TABLE new_notes RENAME TO notes",
        "CREATE INDEX idx_notes_updated ON notes(updated_at)",
    ]

    /// The floor of any rebuild whose every transaction holds at most `batchRows` rows of
    /// the table, as SQL for the CLI: the new table with its index (empty, under a
    /// provisional name); the copy in committed batches of key ranges, each adding its
    /// rows to the index; one transaction that puts the new table in place under the old
    /// one's name, the old table out of the way, gives both indexes their names (schema
    /// rows only) and sets the version; then the old table deleted in committed batches of
    /// key ranges, its index with it, and the emptied table dropped.
    static func batchedRebuildScript(rows: Int, batchRows: Int) -> String {
        let ranges = stride(from: 0, to: rows, by: batchRows).map { "id > \($0) AND id <= \($0 + batchRows)" }
        let copy = ranges.map { "BEGIN IMMEDIATE; INSERT INTO new_notes SELECT \(select) FROM notes WHERE \($0); COMMIT;" }
        let purge = ranges.map { "BEGIN IMMEDIATE; DELETE FROM old_notes WHERE \($0); COMMIT;" }
        return """
            BEGIN IMMEDIATE;
            CREATE TABLE new_notes(\(newColumns));
            CREATE INDEX new_idx_notes_updated ON new_notes(updated_at);
            COMMIT;
            \(copy.joined(separator: "\n"))
            BEGIN IMMEDIATE;
            ALTER TABLE notes RENAME TO old_notes;
            ALTER TABLE new_notes RENAME TO notes;
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET name = 'old_idx_notes_updated', sql = 'CREATE INDEX old_idx_notes_updated ON "old_notes"(updated_at)' WHERE name = 'idx_notes_updated';
            UPDATE sqlite_schema SET name = 'idx_notes_updated', sql = 'CREATE INDEX idx_notes_updated ON notes(updated_at)' WHERE name = 'new_idx_notes_updated';
            PRAGMA writable_schema = RESET;
            PRAGMA user_version = 2;
            COMMIT;
            \(purge.joined(separator: "\n"))
            DROP TABLE old_notes;
            """
    }

    static func makeDatabase(_ path: String, rows: Int, journalMode: String) throws {
        let db = try Connection(path: path, create: true)
        try db.execute("PRAGMA journal_mode = \(journalMode)")
        try db.execute("BEGIN")
        try db.execute(schema)
        // Titles of 50-70 characters, bodies of 30-50, timestamps out of key order.
        try db.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO notes
            SELECT i, substr('Title ' || i || ' ' || hex(randomblob(40)), 1, 50 + i % 21),
                   substr('Body ' || hex(randomblob(30)), 1, 30 + i % 21), 1600000000 + (i * 7919) % 100000000
            FROM n
            """)
        try db.execute("PRAGMA user_version = 1")
        try db.execute("COMMIT")
    }

    /// A fresh copy of `base` at `path`, on disk before the clock starts: the previous
    /// run's and the copy's dirty pages would otherwise be written back during the next.
    static func freshCopy(of base: String, at path: String) throws {
        DatabaseFiles(path).remove()
        try FileManager.default.copyItem(atPath: base, toPath: path)
        sync()
    }
}
