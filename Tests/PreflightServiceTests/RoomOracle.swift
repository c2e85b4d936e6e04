import Foundation
import MigrationCore

/// Room's open helper written again from Room's source with nothing but the SQLite C API
/// (`RawDatabase`), to judge runner room on real apps: `RoomOpenHelper.onUpgrade`'s shape
/// (one exclusive transaction: `onPreMigrate` drops the FTS sync triggers, the migrations of
/// `MigrationContainer.findMigrationPath`, `onValidateSchema` with `TableInfo`, `FtsTableInfo`
/// and `ViewInfo`'s equality, `onPostMigrate`, `updateIdentity`, the version), and `onCreate`
/// on an empty file (`createAllTables`, the identity, the version).
enum RoomOracle {
    /// An exported schema (`<version>.json`) as Room's validation sees the entity it was built from.
    struct Schema {
        struct Table {
            var name: String
            var createSQL: String
            /// name -> (affinity, not null, primary-key position, default as declared)
            var columns: [String: Column]
            var foreignKeys: Set<[String]>
            var indices: Set<Index>
            var isFTS: Bool
            var syncTriggers: [String]
            /// The entity's `CREATE INDEX` statements.
            var indexSQL: [String] = []
        }

        struct Column: Equatable {
            var affinity: String
            var notNull: Bool
            var primaryKeyPosition: Int
            var defaultValue: String?
        }

        struct Index: Hashable {
            var name: String
            var unique: Bool
            var columns: [String]
            var orders: [String]
        }

        var version: Int
        var identityHash: String
        var tables: [Table]
        var views: [(name: String, sql: String)]

        /// `createAllTables`: tables with their indices and sync triggers, then the views.
        var createStatements: [String] {
            tables.flatMap { [$0.createSQL] + $0.indexSQL + $0.syncTriggers } + views.map(\.sql)
        }

        init(_ path: String) throws {
            guard let data = FileManager.default.contents(atPath: path), let root = JSONValue.parse([UInt8](data))?.objectValue,
                let database = root["database"]?.objectValue
            else { throw OracleFailure(statement: path, message: "not a Room schema") }
            version = Int(database["version"]?.integerValue ?? 0)
            identityHash = database["identityHash"]?.stringValue ?? ""
            tables = Self.items(database["entities"]).compactMap(\.objectValue).map { entity in
                let name = entity["tableName"]?.stringValue ?? ""
                let key = Self.strings(entity["primaryKey"]?.objectValue?["columnNames"])
                var columns: [String: Column] = [:]
                for field in Self.items(entity["fields"]).compactMap(\.objectValue) {
                    let column = field["columnName"]?.stringValue ?? ""
                    columns[column] = Column(
                        affinity: field["affinity"]?.stringValue ?? "", notNull: field["notNull"] == .bool(true),
                        primaryKeyPosition: (key.firstIndex(of: column) ?? -1) + 1, defaultValue: field["defaultValue"]?.stringValue)
                }
                let indices = Self.items(entity["indices"]).compactMap(\.objectValue).map { index in
                    Index(
                        name: index["name"]?.stringValue ?? "", unique: index["unique"] == .bool(true),
                        columns: Self.strings(index["columnNames"]), orders: Self.strings(index["orders"]))
                }
                let keys = Self.items(entity["foreignKeys"]).compactMap(\.objectValue).map { key in
                    [key["table"]?.stringValue ?? "", key["onDelete"]?.stringValue ?? "", key["onUpdate"]?.stringValue ?? ""]
                        + Self.strings(key["columns"]) + ["->"] + Self.strings(key["referencedColumns"])
                }
                var table = Table(
                    name: name, createSQL: (entity["createSql"]?.stringValue ?? "").replacingOccurrences(of: "${TABLE_NAME}", with: name),
                    columns: columns, foreignKeys: Set(keys), indices: Set(indices), isFTS: entity["ftsVersion"] != nil,
                    syncTriggers: Self.strings(entity["contentSyncTriggers"]))
                table.indexSQL = Self.items(entity["indices"]).compactMap { $0.objectValue?["createSql"]?.stringValue }
                    .map { $0.replacingOccurrences(of: "${TABLE_NAME}", with: name) }
                return table
            }
            views = Self.items(database["views"]).compactMap(\.objectValue).map { view in
                let name = view["viewName"]?.stringValue ?? ""
                return (name, (view["createSql"]?.stringValue ?? "").replacingOccurrences(of: "${VIEW_NAME}", with: name))
            }
        }

        static func items(_ value: JSONValue?) -> [JSONValue] {
            if case .array(let items)? = value { return items }
            return []
        }

        static func strings(_ value: JSONValue?) -> [String] { items(value).compactMap(\.stringValue) }
    }

    /// What Room's open helper does to the file at `path`: nil when it opens, else why it throws.
    static func open(_ path: String, plan: Plan, newest: Schema) throws -> String? {
        let db = try RawDatabase(path)
        let version = Int(try db.integer("PRAGMA user_version"))
        let target = plan.newestVersion
        guard version != target else { return nil }
        try db.run("BEGIN EXCLUSIVE")
        do {
            if version == 0 {
                // onCreate: the newest schema, no migration.
                for statement in newest.createStatements { try db.run(statement) }
            } else {
                guard let path = migrationPath(plan, from: version, to: target) else {
                    try db.run("ROLLBACK")
                    return "A migration from \(version) to \(target) was required but not found"
                }
                for trigger in try db.rows("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'room_fts_content_sync_%'") {
                    try db.run("DROP TRIGGER IF EXISTS \(trigger[0].dropFirst().dropLast())")
                }
                for step in path {
                    guard case .sql(let statements) = step.action else { continue }
                    for statement in statements { try db.run(statement) }
                }
                if let invalid = try validate(db, against: newest) {
                    try db.run("ROLLBACK")
                    return invalid
                }
                for table in newest.tables { for trigger in table.syncTriggers { try db.run(trigger) } }
            }
            try db.run("CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT)")
            try db.run("INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, '\(newest.identityHash)')")
            try db.run("PRAGMA user_version = \(target)")
            try db.run("COMMIT")
            return nil
        } catch let failure as OracleFailure {
            try? db.run("ROLLBACK")
            return "\(failure.message) (in \(failure.statement))"
        }
    }

    /// `MigrationContainer.findMigrationPath` for an upgrade: from each version, the
    /// migration that goes furthest without passing the target.
    static func migrationPath(_ plan: Plan, from start: Int, to end: Int) -> [Step]? {
        var path: [Step] = []
        var current = start
        while current < end {
            guard let next = plan.steps.filter({ $0.fromVersion == current && $0.version <= end && $0.version > current })
                .max(by: { $0.version < $1.version })
            else { return nil }
            path.append(next)
            current = next.version
        }
        return path
    }

    // MARK: - onValidateSchema

    /// Why Room's generated `onValidateSchema` refuses the file, or nil.
    static func validate(_ db: RawDatabase, against schema: Schema) throws -> String? {
        for table in schema.tables {
            if table.isFTS {
                let columns = Set(try db.rows("PRAGMA table_info(\(quoted(table.name)))").map { unquote($0[1]) })
                let sql = try db.rows("SELECT sql FROM sqlite_master WHERE name = \(literal(table.name))").first.map { unquote($0[0]) } ?? ""
                if columns != Set(table.columns.keys) || ftsOptions(sql) != ftsOptions(table.createSQL) {
                    return "Migration didn't properly handle: \(table.name)"
                }
                continue
            }
            var columns: [String: Schema.Column] = [:]
            for row in try db.rows("PRAGMA table_info(\(quoted(table.name)))") {
                let defaultValue = row[4] == "NULL" ? nil : unquote(row[4])
                columns[unquote(row[1])] = Schema.Column(
                    affinity: affinity(unquote(row[2])), notNull: row[3] != "0", primaryKeyPosition: Int(row[5]) ?? 0, defaultValue: defaultValue)
            }
            guard Set(columns.keys) == Set(table.columns.keys) else { return "Migration didn't properly handle: \(table.name) (columns)" }
            for (name, expected) in table.columns {
                guard let found = columns[name], found.affinity == expected.affinity, found.notNull == expected.notNull,
                    found.primaryKeyPosition == expected.primaryKeyPosition
                else { return "Migration didn't properly handle: \(table.name).\(name)" }
                // Room 2.2 on: a default is checked only where the entity declares one.
                if let declared = expected.defaultValue, !defaultsMatch(declared, found.defaultValue) {
                    return "Migration didn't properly handle: \(table.name).\(name) (default)"
                }
            }
            var keys: [Int: [[String]]] = [:]
            for row in try db.rows("PRAGMA foreign_key_list(\(quoted(table.name)))") {
                keys[Int(row[0]) ?? 0, default: []].append(row.map(unquote))
            }
            let foundKeys = Set(keys.values.map { rows -> [String] in
                let ordered = rows.sorted { (Int($0[1]) ?? 0) < (Int($1[1]) ?? 0) }
                return [ordered[0][2], ordered[0][6], ordered[0][5]] + ordered.map { $0[3] } + ["->"] + ordered.map { $0[4] }
            })
            guard foundKeys == table.foreignKeys else { return "Migration didn't properly handle: \(table.name) (foreign keys)" }
            var indices: Set<Schema.Index> = []
            for row in try db.rows("PRAGMA index_list(\(quoted(table.name)))") where unquote(row[3]) == "c" {
                let name = unquote(row[1])
                let keyColumns = try db.rows("PRAGMA index_xinfo(\(quoted(name)))").filter { $0[5] == "1" }
                indices.insert(Schema.Index(
                    name: name, unique: row[2] == "1", columns: keyColumns.map { unquote($0[2]) },
                    orders: keyColumns.map { $0[3] == "1" ? "DESC" : "ASC" }))
            }
            guard indicesMatch(table.indices, indices) else { return "Migration didn't properly handle: \(table.name) (indices)" }
        }
        for view in schema.views {
            let sql = try db.rows("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = \(literal(view.name))").first.map { unquote($0[0]) }
            if sql != view.sql { return "Migration didn't properly handle: \(view.name) (view)" }
        }
        return nil
    }

    /// `TableInfo.Index.equals`: uniqueness, columns and orders, and a name starting
    /// `index_` matches any other such name.
    static func indicesMatch(_ expected: Set<Schema.Index>, _ found: Set<Schema.Index>) -> Bool {
        guard expected.count == found.count else { return false }
        return expected.allSatisfy { index in
            let orders = index.orders.isEmpty ? Array(repeating: "ASC", count: index.columns.count) : index.orders
            return found.contains { other in
                other.unique == index.unique && other.columns == index.columns && other.orders == orders
                    && (index.name.hasPrefix("index_") ? other.name.hasPrefix("index_") : other.name == index.name)
            }
        }
    }

    /// `TableInfo.Column.defaultValueEqualsCommon`: equal, or equal once the declared
    /// value's surrounding parentheses are gone.
    static func defaultsMatch(_ declared: String, _ found: String?) -> Bool {
        guard let found else { return false }
        if declared == found { return true }
        if declared.hasPrefix("("), declared.hasSuffix(")") {
            return declared.dropFirst().dropLast().trimmingCharacters(in: .whitespaces) == found
        }
        return false
    }

    /// `TableInfo.findAffinity`.
    static func affinity(_ type: String) -> String {
        let upper = type.uppercased()
        if upper.contains("INT") { return "INTEGER" }
        if upper.contains("CHAR") || upper.contains("CLOB") || upper.contains("TEXT") { return "TEXT" }
        if upper.contains("BLOB") { return "BLOB" }
        if upper.contains("REAL") || upper.contains("FLOA") || upper.contains("DOUB") { return "REAL" }
        return "NUMERIC"
    }

    /// `FtsTableInfo.parseOptions`: the `key=value` arguments of `USING FTSn(...)`.
    static func ftsOptions(_ sql: String) -> Set<String> {
        guard let open = sql.firstIndex(of: "("), let close = sql.lastIndex(of: ")") else { return [] }
        let arguments = sql[sql.index(after: open)..<close].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let keys = ["tokenize", "content", "languageid", "matchinfo", "notindexed", "order", "prefix", "compress", "uncompress"]
        return Set(arguments.filter { argument in keys.contains { argument.lowercased().hasPrefix($0 + "=") } })
    }

    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
    /// A value as `RawDatabase` writes it, back to its text.
    static func unquote(_ value: String) -> String {
        guard value.hasPrefix("'"), value.hasSuffix("'"), value.count >= 2 else { return value }
        return String(value.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
    }
}

