/// Room's `onValidateSchema`, as the code its compiler generates runs it: each entity table
/// is read with `TableInfo.read` and compared with the entity's `TableInfo` by its `equals`,
/// each FTS entity with `FtsTableInfo`, each view with `ViewInfo` (androidx `room-runtime`
/// `util/TableInfo.kt`, `util/FtsTableInfo.kt`, `util/ViewInfo.kt`). The entities are the
/// tables and views of the expected schema (the fresh install's), less Room's and Android's
/// own tables; tables it does not have, triggers and indexes on other tables are not looked
/// at, as Room does not look at them.
struct RoomSchemaValidation {
    var version: RoomVersion

    /// One entity that differs: its name and what differs, in words.
    struct Mismatch: Equatable {
        var name: String
        var differences: [String]
    }

    /// The entities of `expected` that `found` does not hold as Room's equality wants them.
    func mismatches(expected: Connection, found: Connection) throws(SQLiteError) -> [Mismatch] {
        var mismatches: [Mismatch] = []
        let ignored = Runner.room.frameworkTables
        for table in try UserTable.list(expected) where !ignored.contains(SQLNormalizer.fold(table.name)) {
            let differences: [String]
            if table.isVirtual {
                guard try isFTSEntity(table.name, expected) else { continue }
                differences = compare(
                    try RoomSchemaInfo.ftsTable(table.name, expected), try RoomSchemaInfo.ftsTable(table.name, found))
            } else {
                differences = compare(try RoomSchemaInfo.table(table.name, expected), try RoomSchemaInfo.table(table.name, found))
            }
            if !differences.isEmpty { mismatches.append(Mismatch(name: table.name, differences: differences)) }
        }
        for row in try expected.rows("SELECT name, sql FROM main.sqlite_schema WHERE type = 'view' ORDER BY rowid") {
            guard let name = row[0].textValue else { continue }
            let sql = row[1].textValue
            let foundSQL = try RoomSchemaInfo.viewSQL(name, found)
            // `ViewInfo.equals`: the view's SQL text, exactly as each file keeps it.
            guard foundSQL != sql else { continue }
            let difference = foundSQL.map { "view \(name) is \"\($0)\", expected \"\(sql ?? "")\"" } ?? "view \(name) is missing"
            mismatches.append(Mismatch(name: name, differences: [difference]))
        }
        return mismatches
    }

    /// Room's FTS entities are FTS3 and FTS4 tables; any other virtual table is no entity.
    private func isFTSEntity(_ name: String, _ connection: Connection) throws(SQLiteError) -> Bool {
        let sql = try connection.rows("SELECT sql FROM main.sqlite_schema WHERE name = ?", [.text(name)]).first?[0].textValue ?? ""
        let words = sql.uppercased().split { $0.isWhitespace || $0 == "(" }
        guard let using = words.firstIndex(of: "USING"), words.indices.contains(using + 1) else { return false }
        return words[using + 1] == "FTS3" || words[using + 1] == "FTS4"
    }

    // MARK: - Equality

    /// `TableInfo.equals`: the columns (by name, each by `Column.equals`), the foreign keys,
    /// and the indexes, as sets.
    func compare(_ expected: RoomSchemaInfo.Table, _ found: RoomSchemaInfo.Table) -> [String] {
        let name = expected.name
        guard !found.columns.isEmpty else { return ["table \(name) is missing"] }
        var differences: [String] = []
        for (column, expectedColumn) in expected.columns.sorted(by: { $0.key < $1.key }) {
            guard let foundColumn = found.columns[column] else {
                differences.append("column \(name).\(column) is missing")
                continue
            }
            differences += compare(expectedColumn, foundColumn).map { "column \(name).\($0)" }
        }
        for column in found.columns.keys.sorted() where expected.columns[column] == nil {
            differences.append("column \(name).\(column) is not in the entity")
        }
        if !sameElements(expected.foreignKeys, found.foreignKeys, by: ==) {
            differences.append("the foreign keys of \(name) are \(describe(found.foreignKeys)), expected \(describe(expected.foreignKeys))")
        }
        if !sameElements(expected.indices, found.indices, by: Self.sameIndex) {
            differences.append("the indexes of \(name) are \(describe(found.indices)), expected \(describe(expected.indices))")
        }
        return differences
    }

    /// `TableInfo.Column.equals`, on Android from API 20: the primary key position, not-null,
    /// the affinity, and the default only where the entity declares one (and only from Room
    /// 2.2.0, which started comparing defaults).
    func compare(_ expected: RoomSchemaInfo.Column, _ found: RoomSchemaInfo.Column) -> [String] {
        let name = expected.name
        var differences: [String] = []
        if expected.primaryKeyPosition != found.primaryKeyPosition {
            differences.append("\(name): primary key position \(found.primaryKeyPosition), expected \(expected.primaryKeyPosition)")
        }
        if expected.notNull != found.notNull {
            differences.append("\(name): \(found.notNull ? "NOT NULL" : "nullable"), expected \(expected.notNull ? "NOT NULL" : "nullable")")
        }
        if version >= .comparesDefaults, let declared = expected.defaultValue,
            !Self.defaultValueEquals(declared, found.defaultValue)
        {
            differences.append("\(name): \(found.defaultValue.map { "default \($0)" } ?? "no default"), expected default \(declared)")
        }
        if expected.affinity != found.affinity {
            differences.append(
                "\(name): affinity \(found.affinity.rawValue) (type \"\(found.type)\"), expected \(expected.affinity.rawValue) (type \"\(expected.type)\")")
        }
        return differences
    }

    /// `FtsTableInfo.equals`: the column names and the options.
    func compare(_ expected: RoomSchemaInfo.FTSTable, _ found: RoomSchemaInfo.FTSTable) -> [String] {
        guard !found.columns.isEmpty else { return ["FTS table \(expected.name) is missing"] }
        var differences: [String] = []
        if expected.columns != found.columns {
            differences.append("the columns of FTS table \(expected.name) are \(found.columns.sorted()), expected \(expected.columns.sorted())")
        }
        if expected.options != found.options {
            differences.append("the options of FTS table \(expected.name) are \(found.options.sorted()), expected \(expected.options.sorted())")
        }
        return differences
    }

    /// `defaultValueEquals`: equal texts, or the entity's default in redundant outer
    /// parentheses (which SQLite leaves out of `table_info`) around the file's.
    static func defaultValueEquals(_ declared: String, _ found: String?) -> Bool {
        if declared == found { return true }
        guard declared.first == "(", declared.last == ")" else { return false }
        var depth = 0
        for (offset, character) in declared.enumerated() {
            if character == "(" { depth += 1 }
            if character == ")" {
                depth -= 1
                if depth == 0, offset != declared.count - 1 { return false }
            }
        }
        guard depth == 0 else { return false }
        return String(declared.dropFirst().dropLast()).trimmingWhitespace() == found
    }

    /// `TableInfo.Index.equals`: unique, columns and orders; the name too, except that any
    /// two names starting `index_` (Room's default prefix) are the same.
    static func sameIndex(_ a: RoomSchemaInfo.Index, _ b: RoomSchemaInfo.Index) -> Bool {
        let prefix = "index_"
        let sameName = a.name.hasPrefix(prefix) ? b.name.hasPrefix(prefix) : a.name == b.name
        return a.unique == b.unique && a.columns == b.columns && a.orders == b.orders && sameName
    }

    /// Set equality as Room's `HashSet`s have it: as many, and each of one matched in the other.
    private func sameElements<T>(_ a: [T], _ b: [T], by equal: (T, T) -> Bool) -> Bool {
        a.count == b.count && a.allSatisfy { x in b.contains { equal(x, $0) } } && b.allSatisfy { y in a.contains { equal($0, y) } }
    }

    private func describe(_ keys: [RoomSchemaInfo.ForeignKey]) -> String {
        keys.isEmpty ? "none" : keys.map {
            "(\($0.columnNames.joined(separator: ", "))) -> \($0.referenceTable)(\($0.referenceColumnNames.joined(separator: ", "))) ON DELETE \($0.onDelete) ON UPDATE \($0.onUpdate)"
        }.joined(separator: ", ")
    }

    private func describe(_ indices: [RoomSchemaInfo.Index]) -> String {
        indices.isEmpty ? "none" : indices.sorted { $0.name < $1.name }.map { index in
            let columns = zip(index.columns, index.orders).map { "\($0) \($1)" }.joined(separator: ", ")
            return "\(index.unique ? "UNIQUE " : "")\(index.name)(\(columns))"
        }.joined(separator: ", ")
    }
}
