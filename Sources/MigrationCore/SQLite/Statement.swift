import CSQLite

/// A prepared statement, finalized when the value goes away.
public final class Statement {
    let handle: OpaquePointer
    unowned let connection: Connection
    public let sql: String

    /// Whether this is plan SQL, prepared and stepped under `PlanSQLPolicy`.
    let confined: Bool
    /// The connection's work counter, which keeps this statement's instructions once it is finalized.
    private let workCounter: SQLiteWorkCounter?

    /// Prepares the one statement `sql` holds. Text after it (other than white space and
    /// comments) is an error, never silently left out: SQLite prepares only the first
    /// statement of a string, so a statement glued to another would otherwise not run.
    /// `confined`: `sql` is plan SQL (see `Connection.preparePlanStatement`).
    init(connection: Connection, sql: String, confined: Bool = false) throws(SQLiteError) {
        var statement: OpaquePointer?
        var rest: String?
        func prepare() throws(SQLiteError) {
            let code = sql.withCString { text in
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(connection.handle, text, -1, &statement, &tail)
                if let tail, tail.pointee != 0 { rest = String(cString: tail) }
                return code
            }
            try SQLiteError.check(code, connection.handle, sql: sql)
        }
        if confined { try connection.authorizer.confining(prepare) } else { try prepare() }
        guard let statement else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "no statement in the text", sql: sql)
        }
        if let rest, Self.holdsStatement(rest, connection) {
            sqlite3_finalize(statement)
            throw SQLiteError(
                code: SQLITE_MISUSE, message: "the text holds more than one statement; give them one at a time", sql: sql)
        }
        self.handle = statement
        self.connection = connection
        self.sql = sql
        self.confined = confined
        self.workCounter = connection.workCounter
        workCounter?.prepared()
    }

    deinit {
        workCounter?.finalizing(handle)
        sqlite3_finalize(handle)
    }

    /// Whether `text` holds a statement rather than only white space and comments: SQLite
    /// prepares no statement from those, and cannot fail on them. The text is only
    /// prepared, never run.
    private static func holdsStatement(_ text: String, _ connection: Connection) -> Bool {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        return sqlite3_prepare_v2(connection.handle, text, -1, &statement, nil) != SQLITE_OK || statement != nil
    }

    /// Resets the statement for a run and binds `values` to it.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        workCounter?.running()
        try SQLiteError.check(sqlite3_reset(handle), connection.handle, sql: sql)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(let text): code = sqlite3_bind_text(handle, index, text, -1, preflight_transient())
            case .blob(let bytes):
                code = bytes.withUnsafeBytes {
                    sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), preflight_transient())
                }
            }
            try SQLiteError.check(code, connection.handle, sql: sql)
        }
    }

    /// Steps once; true while there is a row to read. A confined statement steps under
    /// the plan policy too: SQLite prepares statements of its own while one runs (the
    /// attach of VACUUM INTO, a re-prepare after a schema change, a virtual table's).
    public func step() throws(SQLiteError) -> Bool {
        func stepOnce() throws(SQLiteError) -> Bool {
            try SQLiteError.check(sqlite3_step(handle), connection.handle, sql: sql) == SQLITE_ROW
        }
        return confined ? try connection.authorizer.confining(stepOnce) : try stepOnce()
    }

    public func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        try bind(values)
        while try step() {}
    }

    public func rows(_ values: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        try bind(values)
        var result: [[SQLiteValue]] = []
        while try step() { result.append(currentRow()) }
        return result
    }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    public func currentRow() -> [SQLiteValue] {
        (0..<Int32(columnCount)).map { column($0) }
    }

    public func column(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(handle, index)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let base = sqlite3_column_blob(handle, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: base, count: count)))
        default: return .null
        }
    }

    /// True for statements that only read (`sqlite3_stmt_readonly`).
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }
}
