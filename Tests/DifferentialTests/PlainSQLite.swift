import CSQLite
import Foundation

/// A connection made with the SQLite C API and nothing else.
///
/// Why not MigrationCore's `Connection`: the oracle and the fingerprint are what Preflight is
/// judged against, so they must not share a line of its code (a bug in the shared wrapper
/// would show on both sides and cancel out). This wrapper does only what they need: run a
/// script statement by statement, and read rows as text or bytes.
final class PlainSQLite {
    private let handle: OpaquePointer
    let path: String

    /// Opens (and with `create`, creates) `path` read-write, with SQLite's stock settings.
    ///
    /// Double-quoted string literals are switched on explicitly for DML and DDL, as a default
    /// build of SQLite has them: the corpus uses `"..."` for strings in places, and a build
    /// compiled with `SQLITE_DQS=0` would otherwise reject what every phone accepts.
    init(path: String, create: Bool = false) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard let db else { throw PlainSQLiteError(path: path, statement: nil, code: code, message: "cannot open") }
        handle = db
        self.path = path
        guard code == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(db))
            sqlite3_close_v2(db)
            throw PlainSQLiteError(path: path, statement: nil, code: code, message: message)
        }
        _ = preflight_db_config_flag(db, SQLITE_DBCONFIG_DQS_DML, 1)
        _ = preflight_db_config_flag(db, SQLITE_DBCONFIG_DQS_DDL, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Whether a transaction is open (SQLite is out of autocommit mode).
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs every statement of `script` in order, as the sqlite3 shell would, stopping at the
    /// first error. The script is split with `sqlite3_prepare_v2`'s tail pointer, so SQLite's
    /// own tokenizer decides where a statement ends (semicolons in strings, triggers' bodies).
    func execute(_ script: String) throws {
        let bytes = Array(script.utf8CString)
        try bytes.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return }
            var cursor: UnsafePointer<CChar>? = start
            while let current = cursor, current.pointee != 0 {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(handle, current, -1, &statement, &tail)
                let text = Self.text(from: current, to: tail)
                guard code == SQLITE_OK else { throw error(code, statement: text) }
                cursor = tail
                // Only whitespace or a comment was left: nothing to run.
                guard let statement else { continue }
                defer { sqlite3_finalize(statement) }
                var stepCode = sqlite3_step(statement)
                while stepCode == SQLITE_ROW { stepCode = sqlite3_step(statement) }
                guard stepCode == SQLITE_DONE else { throw error(stepCode, statement: text) }
            }
        }
    }

    /// The rows of one query, each column as its bytes (nil for NULL). Columns come as text:
    /// the queries here ask SQLite for `quote(...)` or names, which are text already.
    func rows(_ sql: String) throws -> [[[UInt8]?]] {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(code, statement: sql) }
        defer { sqlite3_finalize(statement) }
        var result: [[[UInt8]?]] = []
        while true {
            let stepCode = sqlite3_step(statement)
            if stepCode == SQLITE_DONE { break }
            guard stepCode == SQLITE_ROW else { throw error(stepCode, statement: sql) }
            var row: [[UInt8]?] = []
            for column in 0..<sqlite3_column_count(statement) {
                if sqlite3_column_type(statement, column) == SQLITE_NULL {
                    row.append(nil)
                    continue
                }
                // column_text before column_bytes, as SQLite's documentation orders them.
                let text = sqlite3_column_text(statement, column)
                let count = Int(sqlite3_column_bytes(statement, column))
                row.append(text.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
            }
            result.append(row)
        }
        return result
    }

    /// The rows of `sql` with each column decoded as UTF-8 text (nil for NULL).
    func textRows(_ sql: String) throws -> [[String?]] {
        try rows(sql).map { row in row.map { $0.map { String(decoding: $0, as: UTF8.self) } } }
    }

    /// The one integer `sql` answers (`PRAGMA user_version`, `count(*)`).
    func integer(_ sql: String) throws -> Int64 {
        guard let text = try textRows(sql).first?.first ?? nil, let value = Int64(text) else {
            throw PlainSQLiteError(path: path, statement: sql, code: SQLITE_MISMATCH, message: "no integer answer")
        }
        return value
    }

    /// `name` as an SQL identifier, with embedded quotes doubled.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private func error(_ code: Int32, statement: String?) -> PlainSQLiteError {
        PlainSQLiteError(path: path, statement: statement, code: code, message: String(cString: sqlite3_errmsg(handle)))
    }

    private static func text(from start: UnsafePointer<CChar>, to end: UnsafePointer<CChar>?) -> String {
        guard let end, end > start else { return String(cString: start) }
        let count = end - start
        return start.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// An SQLite error met by the oracle or the fingerprint, with the statement that caused it.
struct PlainSQLiteError: Error, CustomStringConvertible {
    var path: String
    var statement: String?
    var code: Int32
    var message: String

    var description: String {
        let file = (path as NSString).lastPathComponent
        if let statement { return "SQLite error \(code) (\(message)) on \(file) in: \(statement)" }
        return "SQLite error \(code) (\(message)) on \(file)"
    }
}
