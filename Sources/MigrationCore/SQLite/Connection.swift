import CSQLite

/// One SQLite connection, closed when the value goes away.
///
/// Opened files are treated as hostile: the settings of SQLite's "Defense against the
/// dark arts" (https://sqlite.org/security.html) are applied before any other SQL.
public final class Connection {
    let handle: OpaquePointer
    public let path: String
    /// Records actions and confines plan SQL (see `Authorizer`); installed at open.
    let authorizer = Authorizer()
    /// Counts SQLite's work for a `WorkMeter` (`reportWork(to:)`); nil when nothing listens.
    var workCounter: SQLiteWorkCounter?

    /// Opens `path` read-write (creating it when `create`), through the VFS named `vfs`
    /// (nil for the default). `immutable` opens it read-only as a file nothing changes
    /// (SQLite's `immutable=1`): no lock taken, no journal or WAL looked for, no -shm
    /// made, nothing written beside it; what is read is the main file alone.
    public init(
        path: String, vfs: String? = nil, create: Bool = false, readOnly: Bool = false, immutable: Bool = false
    ) throws(SQLiteError) {
        var db: OpaquePointer?
        var flags = readOnly || immutable ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly && !immutable { flags |= SQLITE_OPEN_CREATE }
        flags |= SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if immutable { flags |= SQLITE_OPEN_URI }
        let code = sqlite3_open_v2(immutable ? Self.immutableURI(path) : path, &db, flags, vfs)
        guard code == SQLITE_OK, let db else {
            let error = SQLiteError(
                code: db.map { sqlite3_extended_errcode($0) } ?? code,
                message: db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code)))
            sqlite3_close_v2(db)
            throw error
        }
        self.handle = db
        self.path = path
        authorizer.install(on: db)
        try harden()
    }

    deinit {
        workCounter?.closing()
        sqlite3_close_v2(handle)
    }

    /// `file:PATH?mode=ro&immutable=1`, the path percent-encoded where a URI needs it.
    private static func immutableURI(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        var encoded = String.UnicodeScalarView()
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x21, 0x7f...:
                encoded += ["%", hex[Int(byte >> 4)], hex[Int(byte & 0xf)]]
            default:
                encoded.append(Unicode.Scalar(byte))
            }
        }
        return "file:\(String(encoded))?mode=ro&immutable=1"
    }

    /// What a phone's SQLite does with the file must happen here too, so a schema that
    /// phones open is never refused: `trusted_schema` and the expression depth stay at
    /// SQLite's defaults (an index on `json_valid(body)`, a deeply nested view). Safety
    /// comes from what cannot change the outcome: no extensions, no FTS3 tokenizer
    /// pointers, defensive mode (no writable schema), checked cell sizes, no mmap, and no
    /// other database beside this one: every ATTACH fails (VACUUM INTO's too), whatever
    /// the SQL that asks for it (Preflight itself never attaches).
    private func harden() throws(SQLiteError) {
        preflight_db_config_flag(handle, SQLITE_DBCONFIG_DEFENSIVE, 1)
        preflight_db_config_flag(handle, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0)
        preflight_db_config_flag(handle, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0)
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, 100_000_000)
        sqlite3_limit(handle, SQLITE_LIMIT_SQL_LENGTH, 10_000_000)
        sqlite3_limit(handle, SQLITE_LIMIT_ATTACHED, 0)
        try execute("PRAGMA cell_size_check = ON; PRAGMA mmap_size = 0")
    }

    /// Runs `body` (an `integrity_check` or `quick_check`) with `cell_size_check` off,
    /// then sets it back. The check examines every cell of every page it loads;
    /// cell_size_check would examine them again on each load, and with SQLite's small
    /// default page cache an index is loaded many times over (docs/performance.md has the
    /// figures). The reads that follow have it on again.
    public func withoutCellSizeCheck<Value>(_ body: () throws(SQLiteError) -> Value) throws(SQLiteError) -> Value {
        let cellSizeCheck = try integer("PRAGMA cell_size_check")
        try execute("PRAGMA cell_size_check = OFF")
        let checked = Result { () throws(SQLiteError) in try body() }
        try execute("PRAGMA cell_size_check = \(cellSizeCheck)")
        return try checked.get()
    }

    // MARK: - Running SQL

    /// Runs every statement of `sql` in order. A failure names the statement that failed.
    /// For Preflight's own SQL: a plan's text goes through `runPlanStatement`.
    public func execute(_ sql: String) throws(SQLiteError) {
        for statementSQL in SQLText.statements(in: sql) {
            try Statement(connection: self, sql: statementSQL).run()
        }
    }

    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(connection: self, sql: sql)
    }

    public func rows(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        try prepare(sql).rows(values)
    }

    /// The first column of the first row, or `.null` when there is no row.
    public func scalar(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> SQLiteValue {
        let statement = try prepare(sql)
        try statement.bind(values)
        return try statement.step() ? statement.column(0) : .null
    }

    public func integer(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> Int64 {
        try scalar(sql, values).integerValue ?? 0
    }

    /// Leaves the WAL as it is when this connection closes (no checkpoint, no delete), so
    /// that reading a database does not change its files.
    public func keepWALOnClose() {
        preflight_db_config_flag(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1)
        var persist: Int32 = 1
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
    }

    /// An SQL function that Preflight's own statements call, defined on this connection
    /// only: `name` with `argumentCount` arguments, computed by `body`, deterministic. It is
    /// direct-only, so that no view or trigger of a plan can reach it. `body` is a C
    /// function: one called for every row of a fill costs no closure context.
    public func defineFunction(
        _ name: String, argumentCount: Int32,
        _ body: @escaping @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void
    ) throws(SQLiteError) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY
        let code = sqlite3_create_function_v2(handle, name, argumentCount, flags, nil, body, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, message: "cannot define the SQL function \(name): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    // MARK: - State

    public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The main database's file as SQLite named it to its VFS: `path` made absolute, its
    /// symbolic links resolved (`path` itself for a database without a file).
    public var fileName: String {
        guard let name = sqlite3_db_filename(handle, "main"), name.pointee != 0 else { return path }
        return String(cString: name)
    }

    /// Rows inserted, updated or deleted by statements on this connection so far,
    /// including those their triggers changed (`sqlite3_total_changes`: the 32-bit call,
    /// as every engine has it, where `sqlite3_total_changes64` is 3.37; it wraps past 2^31
    /// changes, and its callers compare two readings a statement apart).
    public var totalChanges: Int64 { Int64(sqlite3_total_changes(handle)) }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    public var userVersion: Int {
        get throws(SQLiteError) { Int(try integer("PRAGMA user_version")) }
    }

    /// Rolls back whatever transaction is open; used after a failure, where SQLite may
    /// have rolled back only the statement (or nothing).
    public func rollbackIfNeeded() {
        if !isAutocommit { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }
}
