import CSQLite
import Foundation
import MigrationCore

/// Builds fixture databases with the SQL of the app version that would have written
/// them, never with today's schema.
public enum FixtureDatabase {
    /// Creates `path` by running `sql` (a whole script) on a new file.
    @discardableResult
    public static func create(at path: String, sql: String, journalMode: String? = nil) throws -> String {
        try? FileManager.default.removeItem(atPath: path)
        let connection = try Connection(path: path, create: true)
        if let journalMode { try connection.execute("PRAGMA journal_mode = \(journalMode)") }
        try connection.execute(sql)
        return path
    }

    /// Runs `sql` on an existing file.
    public static func execute(_ sql: String, at path: String) throws {
        try Connection(path: path).execute(sql)
    }

    /// Runs `update` on `sqlite_schema` with `writable_schema`, behind SQLite's back: on a
    /// raw connection without the defensive settings `Connection` applies. For states an
    /// app's SQL cannot make (a damaged definition, a virtual table whose module is the app's own).
    public static func rewriteSchema(_ update: String, at path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw SQLiteError(code: SQLITE_CANTOPEN, message: "open") }
        defer { sqlite3_close(db) }
        let sql = "PRAGMA writable_schema = ON; \(update) PRAGMA writable_schema = OFF;"
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw SQLiteError(code: sqlite3_errcode(db), message: String(cString: sqlite3_errmsg(db)))
        }
    }

    public static func count(_ table: String, at path: String) throws -> Int64 {
        try Connection(path: path).integer("SELECT count(*) FROM \(SQLText.quote(table))")
    }

    public static func userVersion(at path: String) throws -> Int {
        try Connection(path: path).userVersion
    }

    public static func sha256(of path: String) -> String {
        SHA256.hex([UInt8](FileManager.default.contents(atPath: path) ?? Data()))
    }
}
