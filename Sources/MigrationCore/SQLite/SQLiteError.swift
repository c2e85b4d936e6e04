import CSQLite

/// An SQLite failure as a person needs it: the extended result code, SQLite's message
/// and the statement that failed.
///
/// Every SQLite return code in the core goes through `SQLiteError.check`, the one
/// funnel that turns a code into an error.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_NOTNULL` rather than `SQLITE_CONSTRAINT`).
    public var code: Int32
    public var message: String
    public var sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code: `SQLITE_FULL` for every `SQLITE_FULL_*`.
    public var primaryCode: Int32 { code & 0xff }

    public var isDiskFull: Bool { primaryCode == SQLITE_FULL }

    /// SQLite's name for the code, e.g. "SQLITE_CONSTRAINT_NOTNULL" is reported as
    /// "constraint failed"; the name is in `sqlite3_errstr`.
    public var codeDescription: String { String(cString: sqlite3_errstr(code)) }

    public var description: String {
        var text = "SQLite error \(code) (\(codeDescription)): \(message)"
        if let sql { text += " in: \(sql)" }
        return text
    }

    /// Throws for anything but `SQLITE_OK`, `SQLITE_ROW` and `SQLITE_DONE`.
    @discardableResult
    public static func check(_ code: Int32, _ db: OpaquePointer?, sql: String? = nil) throws(SQLiteError) -> Int32 {
        switch code {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE:
            return code
        default:
            let extended = db.map { sqlite3_extended_errcode($0) } ?? code
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            throw SQLiteError(code: extended, message: message, sql: sql)
        }
    }
}
