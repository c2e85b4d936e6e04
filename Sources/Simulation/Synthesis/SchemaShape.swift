import MigrationCore

/// The ordinary tables of a database as a generator needs them, learnt from SQLite itself
/// (`pragma_table_list`, `pragma_table_xinfo`, `pragma_index_list`/`index_info`,
/// `pragma_foreign_key_list`); only what the pragmas do not give, the CHECK constraints
/// and the AUTOINCREMENT keyword, is read from the CREATE statement (`CreateTableStatement`).
struct SchemaShape {
    typealias Affinity = ColumnAffinity

    struct Column {
        var name: String
        var declaredType: String
        var affinity: Affinity
        var notNull: Bool
        var hasDefault: Bool
        /// Generated columns are computed by SQLite; an INSERT cannot name them.
        var generated: Bool
    }

    struct ForeignKey {
        var parent: String
        var from: [String]
        /// The parent's columns; where SQLite's `to` is empty (the key names no parent
        /// columns), the parent's primary key, filled in when the schema is read.
        var to: [String]
    }

    struct Table {
        var name: String
        var withoutRowid: Bool
        var autoincrement: Bool
        var columns: [Column]
        /// The primary key's columns in key order (empty for a rowid table without one).
        var primaryKey: [String]
        /// Every set of columns that must be distinct: the primary key, UNIQUE constraints
        /// and unique indexes (partial ones too: holding them everywhere is stricter).
        var uniqueKeys: [[String]]
        var foreignKeys: [ForeignKey]
        var checks: [CheckConstraint]

        /// The INTEGER PRIMARY KEY column, which is the rowid.
        var rowidColumn: String? {
            guard !withoutRowid, primaryKey.count == 1, let column = column(primaryKey[0]),
                column.declaredType.uppercased() == "INTEGER"
            else { return nil }
            return column.name
        }

        /// A name of the rowid that no column takes, for a rowid table.
        var rowidName: String? {
            guard !withoutRowid else { return nil }
            if let rowidColumn { return rowidColumn }
            let taken = Set(columns.map { $0.name.lowercased() })
            return ["rowid", "_rowid_", "oid"].first { !taken.contains($0) }
        }

        func column(_ name: String) -> Column? {
            columns.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        }
    }

    var tables: [Table]

    func table(_ name: String) -> Table? {
        tables.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// The ordinary tables among the user's (`UserTable`) of `connection`'s main schema, in
    /// creation order. Virtual tables are left out: their rows come from their module (an
    /// FTS table's from its content table, or what the app's triggers write), and their
    /// shadow tables are the module's to fill.
    static func read(_ connection: Connection) throws(SQLiteError) -> SchemaShape {
        var tables: [Table] = []
        for table in try UserTable.list(connection) where !table.isVirtual {
            let row = try connection.rows(
                "SELECT l.wr, s.sql FROM \(TableList.main) AS l, sqlite_schema AS s WHERE l.name = ?1 AND s.name = ?1",
                [.text(table.name)]
            ).first
            tables.append(try readTable(
                table.name, withoutRowid: row?[0].integerValue == 1, sql: row?[1].textValue ?? "", connection))
        }
        // A foreign key that names no parent columns refers to the parent's primary key.
        for index in tables.indices {
            for fk in tables[index].foreignKeys.indices where tables[index].foreignKeys[fk].to.contains("") {
                let parent = tables.first { $0.name.caseInsensitiveCompare(tables[index].foreignKeys[fk].parent) == .orderedSame }
                let key = parent.map { $0.primaryKey.isEmpty ? [$0.rowidName ?? "rowid"] : $0.primaryKey } ?? []
                tables[index].foreignKeys[fk].to = key
            }
        }
        return SchemaShape(tables: tables)
    }

    private static func readTable(
        _ name: String, withoutRowid: Bool, sql: String, _ connection: Connection
    ) throws(SQLiteError) -> Table {
        let columnRows = try connection.rows(
            "SELECT name, type, \"notnull\", dflt_value IS NOT NULL, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid",
            [.text(name)])
        let columns = columnRows.map { row in
            Column(
                name: row[0].textValue ?? "", declaredType: row[1].textValue ?? "",
                affinity: Affinity(declaredType: row[1].textValue ?? ""), notNull: row[2].integerValue == 1,
                hasDefault: row[3].integerValue == 1, generated: (row[5].integerValue ?? 0) != 0)
        }
        let primaryKey = columnRows.filter { ($0[4].integerValue ?? 0) > 0 }
            .sorted { ($0[4].integerValue ?? 0) < ($1[4].integerValue ?? 0) }.compactMap { $0[0].textValue }
        var uniqueKeys: [[String]] = primaryKey.isEmpty ? [] : [primaryKey]
        for index in try connection.rows("SELECT name FROM pragma_index_list(?) WHERE \"unique\" = 1 ORDER BY seq", [.text(name)]) {
            guard let indexName = index[0].textValue else { continue }
            // Expression parts (name NULL) are left to the named columns beside them.
            let key = try connection.rows("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(indexName)])
                .compactMap { $0[0].textValue }
            if !key.isEmpty, !uniqueKeys.contains(key) { uniqueKeys.append(key) }
        }
        var foreignKeys: [Int: ForeignKey] = [:]
        for row in try connection.rows(
            "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?) ORDER BY id, seq", [.text(name)])
        {
            let id = Int(row[0].integerValue ?? 0)
            foreignKeys[id, default: ForeignKey(parent: row[1].textValue ?? "", from: [], to: [])].from.append(row[2].textValue ?? "")
            foreignKeys[id]?.to.append(row[3].textValue ?? "")
        }
        let statement = CreateTableStatement(sql)
        return Table(
            name: name, withoutRowid: withoutRowid, autoincrement: statement.autoincrement, columns: columns,
            primaryKey: primaryKey, uniqueKeys: uniqueKeys, foreignKeys: foreignKeys.keys.sorted().compactMap { foreignKeys[$0] },
            checks: CheckConstraint.read(statement, columns: columns.map(\.name)))
    }
}
