import Foundation

/// A table of `items` with no index (so that a rebuild's swap is O(1)) and a plan that adds
/// a column to it, as a chunked rebuild (which converges over kills) or as one `sql` step
/// (one transaction, which a short watchdog cuts every time).
public enum ItemsFixture {
    /// `rows` rows whose payload is `payloadWidth` characters, at version 1 of `plan`.
    public static func database(at path: String, rows: Int, payloadWidth: Int) throws -> String {
        try FixtureDatabase.create(at: path, sql: """
            CREATE TABLE items(id INTEGER PRIMARY KEY, payload TEXT NOT NULL, n INTEGER NOT NULL);
            \(series(rows)) INSERT INTO items SELECT value, printf('%0\(payloadWidth)d', value), value FROM series;
            PRAGMA user_version = 1;
            """)
    }

    /// The plan, written into `directory`. The batches are small so that every launch
    /// commits some, even one that spends much of its watchdog starting.
    public static func plan(chunked: Bool, in directory: TemporaryDirectory) throws -> String {
        let columns = "id INTEGER PRIMARY KEY, payload TEXT NOT NULL, n INTEGER NOT NULL, parity INTEGER NOT NULL DEFAULT 0"
        let change = chunked
            ? #""rebuild": {"table": "items", "columns": "\#(columns)", "select": "id, payload, n, n % 2", "batch_rows": 500}"#
            : #""sql": ["CREATE TABLE items_new(\#(columns))", "INSERT INTO items_new SELECT id, payload, n, n % 2 FROM items", "DROP TABLE items", "ALTER TABLE items_new RENAME TO items"]"#
        let path = directory.file(chunked ? "chunked.json" : "single.json")
        try Data("""
            {"name": "items", "steps": [
              {"version": 1, "name": "create", "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, payload TEXT NOT NULL, n INTEGER NOT NULL)"},
              {"version": 2, "name": "parity", \(change)}]}
            """.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
