import CSQLite

/// What a chunked step needs to know about one table, read from SQLite's own catalog
/// (`pragma_table_list`, `pragma_table_xinfo`, `sqlite_schema`) rather than by parsing
/// its CREATE statement.
struct TableSchema {
    /// One column of the table.
    struct Column {
        var name: String
        /// False for generated columns, which an INSERT cannot name.
        var insertable: Bool
    }

    /// The table's name as the schema spells it (a plan may spell it in another case).
    let name: String
    let withoutRowid: Bool
    let columns: [Column]

    /// The table `name` of the main schema, or nil when there is no such table.
    static func read(_ name: String, _ connection: Connection) throws(SQLiteError) -> TableSchema? {
        let found = try connection.rows(
            "SELECT name, type, wr FROM \(TableList.main) WHERE name = ? COLLATE NOCASE", [.text(name)])
        guard let row = found.first, let spelled = row[0].textValue else { return nil }
        guard row[1].textValue == "table" else {
            throw SQLiteError(
                code: SQLITE_ERROR, message: "\"\(spelled)\" is a \(row[1].textValue ?? "?"), not an ordinary table: it cannot be rebuilt or backfilled in batches")
        }
        let columns = try connection.rows(
            "SELECT name, hidden FROM pragma_table_xinfo(?) ORDER BY cid", [.text(spelled)]
        ).map { Column(name: $0[0].textValue ?? "", insertable: ($0[1].integerValue ?? 0) == 0) }
        return TableSchema(name: spelled, withoutRowid: row[2].integerValue == 1, columns: columns)
    }

    /// `read`, for a table that must exist.
    static func require(_ name: String, _ connection: Connection) throws(SQLiteError) -> TableSchema {
        guard let schema = try read(name, connection) else {
            throw SQLiteError(code: SQLITE_ERROR, message: "no such table: \(name)")
        }
        return schema
    }

    var quotedName: String { SQLText.quote(name) }

    /// A name of the rowid that no column shadows (a column may be called rowid), or nil
    /// for a WITHOUT ROWID table or one with columns named rowid, _rowid_ and oid.
    var rowidAlias: String? {
        guard !withoutRowid else { return nil }
        let taken = Set(columns.map { $0.name.lowercased() })
        return ["rowid", "_rowid_", "oid"].first { !taken.contains($0) }
    }

    /// The columns an INSERT fills, quoted and comma-separated.
    var insertColumnList: String {
        columns.filter(\.insertable).map { SQLText.quote($0.name) }.joined(separator: ", ")
    }

    // MARK: - Objects attached to the table

    /// A named schema object with the statement that created it.
    struct Object: Equatable {
        var name: String
        var sql: String
    }

    /// The table's own indexes (not the automatic ones of UNIQUE and PRIMARY KEY
    /// constraints, which belong to the table's definition), in creation order.
    func indexes(_ connection: Connection) throws(SQLiteError) -> [Object] {
        try objects(type: "index", connection)
    }

    /// The triggers defined ON this table, in creation order.
    func triggers(_ connection: Connection) throws(SQLiteError) -> [Object] {
        try objects(type: "trigger", connection)
    }

    private func objects(type: String, _ connection: Connection) throws(SQLiteError) -> [Object] {
        try connection.rows(
            "SELECT name, sql FROM sqlite_schema WHERE type = ? AND tbl_name = ? COLLATE NOCASE AND sql IS NOT NULL ORDER BY rowid",
            [.text(type), .text(name)]
        ).compactMap { row in
            guard let name = row[0].textValue, let sql = row[1].textValue else { return nil }
            return Object(name: name, sql: sql)
        }
    }

    /// Every other table with a foreign key whose parent is this table.
    func referencingTables(_ connection: Connection) throws(SQLiteError) -> [String] {
        try connection.rows(
            """
            SELECT DISTINCT s.name FROM sqlite_schema AS s, pragma_foreign_key_list(s.name) AS f
            WHERE s.type = 'table' AND s.name <> ? AND f."table" = ? COLLATE NOCASE ORDER BY s.name
            """, [.text(name), .text(name)]
        ).compactMap { $0[0].textValue }
    }

    /// True when a column of the table is declared AUTOINCREMENT (asked of SQLite itself,
    /// `sqlite3_table_column_metadata`, rather than searched for in the text).
    func hasAutoincrement(_ connection: Connection) throws(SQLiteError) -> Bool {
        guard !withoutRowid else { return false }
        for column in columns {
            if try metadata(column.name, connection).autoincrement { return true }
        }
        return false
    }

    /// The collating sequence a column's values compare with by default.
    func collation(of column: String, _ connection: Connection) throws(SQLiteError) -> String {
        try metadata(column, connection).collation
    }

    private func metadata(
        _ column: String, _ connection: Connection
    ) throws(SQLiteError) -> (collation: String, autoincrement: Bool) {
        var type: UnsafePointer<CChar>?
        var collation: UnsafePointer<CChar>?
        var notNull: Int32 = 0
        var primaryKey: Int32 = 0
        var autoincrement: Int32 = 0
        try SQLiteError.check(
            sqlite3_table_column_metadata(
                connection.handle, "main", name, column, &type, &collation, &notNull, &primaryKey, &autoincrement),
            connection.handle)
        return (collation.map { String(cString: $0) } ?? "BINARY", autoincrement != 0)
    }
}
