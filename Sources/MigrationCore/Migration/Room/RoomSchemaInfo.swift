/// A table, an FTS table or a view as Room's schema validation reads it from a database
/// (androidx `room-runtime` `util/SchemaInfoUtil.kt`: `readTableInfo`, `readFtsColumns`,
/// `readFtsOptions`, `readViewInfo`). Room compares what its compiler knows of each entity
/// with what these read from the file; here the expected side is read the same way from
/// the fresh install, whose script is the entities' `createSql`.
enum RoomSchemaInfo {
    /// `TableInfo`: `PRAGMA table_info`, `foreign_key_list`, and the indexes of `index_list`
    /// that a `CREATE INDEX` made (origin `c`), each by `index_xinfo`.
    struct Table: Equatable {
        var name: String
        var columns: [String: Column]
        var foreignKeys: [ForeignKey]
        var indices: [Index]
    }

    struct Column: Equatable {
        var name: String
        /// The declared type, as `table_info` gives it.
        var type: String
        var notNull: Bool
        var primaryKeyPosition: Int
        /// The default's SQL text, nil when the column declares none.
        var defaultValue: String?

        var affinity: Affinity { Affinity(declaredType: type) }
    }

    struct ForeignKey: Equatable, Hashable {
        var referenceTable: String
        var onDelete: String
        var onUpdate: String
        var columnNames: [String]
        var referenceColumnNames: [String]
    }

    struct Index: Equatable {
        var name: String
        var unique: Bool
        var columns: [String]
        /// `ASC` or `DESC` per column.
        var orders: [String]
    }

    /// `FtsTableInfo`: the column names and the module's options.
    struct FTSTable: Equatable {
        var name: String
        var columns: Set<String>
        var options: Set<String>
    }

    /// Room's `ColumnInfo.SQLiteTypeAffinity`, found from a declared type by `findAffinity`:
    /// SQLite's rules, except that a type none of them names is `undefined` rather than
    /// NUMERIC, and so is an empty type (BLOB to SQLite).
    enum Affinity: String, Equatable {
        case integer = "INTEGER", text = "TEXT", blob = "BLOB", real = "REAL", undefined = "UNDEFINED"

        init(declaredType: String) {
            switch ColumnAffinity(declaredType: declaredType) {
            case .integer: self = .integer
            case .text: self = .text
            case .blob: self = declaredType.isEmpty ? .undefined : .blob
            case .real: self = .real
            case .numeric: self = .undefined
            }
        }
    }

    // MARK: - Reading

    static func table(_ name: String, _ connection: Connection) throws(SQLiteError) -> Table {
        var columns: [String: Column] = [:]
        for row in try connection.rows("SELECT name, type, \"notnull\", pk, dflt_value FROM pragma_table_info(?)", [.text(name)]) {
            guard let column = row[0].textValue else { continue }
            columns[column] = Column(
                name: column, type: row[1].textValue ?? "", notNull: (row[2].integerValue ?? 0) != 0,
                primaryKeyPosition: Int(row[3].integerValue ?? 0), defaultValue: row[4].textValue)
        }
        // One key per id; its columns in `seq` order.
        var keys: [Int64: ForeignKey] = [:]
        for row in try connection.rows(
            "SELECT id, \"table\", \"from\", \"to\", on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq",
            [.text(name)])
        {
            let id = row[0].integerValue ?? 0
            var key = keys[id] ?? ForeignKey(
                referenceTable: row[1].textValue ?? "", onDelete: row[5].textValue ?? "", onUpdate: row[4].textValue ?? "",
                columnNames: [], referenceColumnNames: [])
            key.columnNames.append(row[2].textValue ?? "")
            key.referenceColumnNames.append(row[3].textValue ?? "")
            keys[id] = key
        }
        var indices: [Index] = []
        for row in try connection.rows("SELECT name, \"unique\" FROM pragma_index_list(?) WHERE origin = 'c'", [.text(name)]) {
            guard let index = row[0].textValue else { continue }
            // Every column of the index's records but the rowid (cid -1): as Room reads them,
            // the primary key columns a WITHOUT ROWID table appends count too.
            let parts = try connection.rows(
                "SELECT name, \"desc\" FROM pragma_index_xinfo(?) WHERE cid >= 0 ORDER BY seqno", [.text(index)])
            indices.append(Index(
                name: index, unique: row[1].integerValue == 1, columns: parts.map { $0[0].textValue ?? "" },
                orders: parts.map { ($0[1].integerValue ?? 0) > 0 ? "DESC" : "ASC" }))
        }
        return Table(name: name, columns: columns, foreignKeys: keys.keys.sorted().compactMap { keys[$0] }, indices: indices)
    }

    static func ftsTable(_ name: String, _ connection: Connection) throws(SQLiteError) -> FTSTable {
        let columns = try connection.rows("SELECT name FROM pragma_table_info(?)", [.text(name)]).compactMap { $0[0].textValue }
        let sql = try connection.rows("SELECT sql FROM main.sqlite_schema WHERE name = ?", [.text(name)]).first?[0].textValue
        return FTSTable(name: name, columns: Set(columns), options: ftsOptions(sql ?? ""))
    }

    /// The view's `CREATE VIEW` text as the file keeps it; nil when there is no such view.
    static func viewSQL(_ name: String, _ connection: Connection) throws(SQLiteError) -> String? {
        try connection.rows("SELECT sql FROM main.sqlite_schema WHERE type = 'view' AND name = ?", [.text(name)])
            .first?[0].textValue
    }

    /// The options of FTS module arguments Room knows (`tokenize=`, `content=`, ...), as
    /// written, from a `CREATE VIRTUAL TABLE` statement: its arguments between the first
    /// `(` and the last `)`, split at commas outside quotes (`parseFtsOptions`).
    static func ftsOptions(_ createStatement: String) -> Set<String> {
        guard let open = createStatement.firstIndex(of: "("), let close = createStatement.lastIndex(of: ")"), open < close
        else { return [] }
        let arguments = createStatement[createStatement.index(after: open)..<close]
        var parts: [Substring] = []
        var quote: Character?
        var start = arguments.startIndex
        for index in arguments.indices {
            let character = arguments[index]
            switch character {
            case "'", "\"", "`":
                if quote == nil { quote = character } else if quote == character { quote = nil }
            case "[":
                if quote == nil { quote = "[" }
            case "]":
                if quote == "[" { quote = nil }
            case "," where quote == nil:
                parts.append(arguments[start..<index])
                start = arguments.index(after: index)
            default: break
            }
        }
        parts.append(arguments[start...])
        let known = ["tokenize=", "compress=", "content=", "languageid=", "matchinfo=", "notindexed=", "order=", "prefix=", "uncompress="]
        return Set(parts.map { String($0).trimmingWhitespace() }.filter { argument in known.contains { argument.hasPrefix($0) } })
    }
}
