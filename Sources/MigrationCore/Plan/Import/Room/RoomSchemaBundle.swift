/// One exported Room schema (`<version>.json`'s `database`) as room-migration's bundle
/// classes hold it (`DatabaseBundle`, `EntityBundle`, `FieldBundle`, ...): what the
/// compiler diffs to write an AutoMigration (`RoomAutoMigration`).
struct RoomSchemaBundle: Equatable {
    var entities: [Entity]
    var views: [View]

    static let tableNamePlaceholder = "${TABLE_NAME}"
    static let viewNamePlaceholder = "${VIEW_NAME}"

    struct Entity: Equatable {
        var tableName: String
        /// `CREATE TABLE IF NOT EXISTS `${TABLE_NAME}` (...)`, as exported.
        var createSQL: String
        var fields: [Field]
        var primaryKey: PrimaryKey
        var indices: [Index]
        var foreignKeys: [ForeignKey]
        /// An FTS entity's `ftsOptions` (nil for a table): compared whole, as
        /// `FtsOptionsBundle.isSchemaEqual` compares every option.
        var ftsOptions: JSONValue?
        var contentSyncTriggers: [String]

        /// `EntityBundle.createTable()` and `createNewTable()` (the `_new_` copy).
        var createTable: String { createSQL.replacingOccurrences(of: RoomSchemaBundle.tableNamePlaceholder, with: tableName) }
        var newTableName: String { "_new_" + tableName }
        var createNewTable: String { createSQL.replacingOccurrences(of: RoomSchemaBundle.tableNamePlaceholder, with: newTableName) }

        func field(_ column: String) -> Field? { fields.first { $0.columnName == column } }

        /// An FTS entity kept in sync with a content table (`contentEntity`).
        var contentTable: String? {
            guard let table = ftsOptions?.objectValue?["contentTable"]?.stringValue, !table.allSatisfy(\.isWhitespace) else { return nil }
            return table
        }
    }

    struct Field: Equatable {
        var columnName: String
        var affinity: String
        var notNull: Bool
        var defaultValue: String?

        /// `FieldBundle.isSchemaEqual`: name, affinity, NOT NULL and default.
        func isSchemaEqual(_ other: Field) -> Bool { self == other }
    }

    struct PrimaryKey: Equatable {
        var columnNames: [String]
        var autoGenerate: Bool
    }

    struct Index: Equatable {
        var name: String
        var unique: Bool
        var columnNames: [String]
        /// `ASC`/`DESC` per column; an export without them (Room before 2.5) means ascending.
        var orders: [String]
        var createSQL: String

        func createSQL(table: String) -> String {
            createSQL.replacingOccurrences(of: RoomSchemaBundle.tableNamePlaceholder, with: table)
        }

        /// `IndexBundle.isSchemaEqual`.
        func isSchemaEqual(_ other: Index) -> Bool {
            name == other.name && unique == other.unique && columnNames == other.columnNames
                && normalizedOrders == other.normalizedOrders
        }

        private var normalizedOrders: [String] { orders.isEmpty ? Array(repeating: "ASC", count: columnNames.count) : orders }
    }

    struct ForeignKey: Equatable {
        var table: String
        var onDelete: String
        var onUpdate: String
        var columns: [String]
        var referencedColumns: [String]
    }

    struct View: Equatable {
        var viewName: String
        var createSQL: String

        /// `DatabaseViewBundle.createView()`.
        var createView: String { createSQL.replacingOccurrences(of: RoomSchemaBundle.viewNamePlaceholder, with: viewName) }
    }

    func entity(_ table: String) -> Entity? { entities.first { $0.tableName == table } }

    /// What Room's generated `createAllTables` runs: each entity with its indexes (and an
    /// FTS entity's content-sync triggers), then the views.
    var createStatements: [String] {
        entities.flatMap { entity in
            [entity.createTable] + entity.indices.map { $0.createSQL(table: entity.tableName) } + entity.contentSyncTriggers
        } + views.map(\.createView)
    }
}

// MARK: - Reading the JSON

extension RoomSchemaBundle {
    /// The bundle in `database`; `fail` makes the error for a member that is missing or
    /// of the wrong type.
    init(database: [String: JSONValue], fail: (String) -> PlanImportError) throws(PlanImportError) {
        entities = try Self.items(database["entities"]).enumerated().map { offset, value throws(PlanImportError) in
            try Entity(value, context: "database.entities[\(offset)]", fail: fail)
        }
        views = try Self.items(database["views"]).enumerated().map { offset, value throws(PlanImportError) in
            guard let object = value.objectValue, let name = object["viewName"]?.stringValue, let create = object["createSql"]?.stringValue else {
                throw fail("database.views[\(offset)] needs \"viewName\" and \"createSql\"")
            }
            return View(viewName: name, createSQL: create)
        }
    }

    fileprivate static func items(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let items)? = value { return items }
        return []
    }

    fileprivate static func strings(_ value: JSONValue?) -> [String] {
        items(value).compactMap(\.stringValue)
    }
}

extension RoomSchemaBundle.Entity {
    fileprivate init(_ value: JSONValue, context: String, fail: (String) -> PlanImportError) throws(PlanImportError) {
        guard let object = value.objectValue, let table = object["tableName"]?.stringValue, let create = object["createSql"]?.stringValue else {
            throw fail("\(context) needs \"tableName\" and \"createSql\"")
        }
        tableName = table
        createSQL = create
        fields = try RoomSchemaBundle.items(object["fields"]).enumerated().map { offset, field throws(PlanImportError) in
            guard let field = field.objectValue, let column = field["columnName"]?.stringValue, let affinity = field["affinity"]?.stringValue else {
                throw fail("\(context).fields[\(offset)] needs \"columnName\" and \"affinity\"")
            }
            return RoomSchemaBundle.Field(
                columnName: column, affinity: affinity, notNull: field["notNull"] == .bool(true), defaultValue: field["defaultValue"]?.stringValue)
        }
        let key = object["primaryKey"]?.objectValue
        primaryKey = RoomSchemaBundle.PrimaryKey(
            columnNames: RoomSchemaBundle.strings(key?["columnNames"]), autoGenerate: key?["autoGenerate"] == .bool(true))
        indices = try RoomSchemaBundle.items(object["indices"]).enumerated().map { offset, index throws(PlanImportError) in
            guard let index = index.objectValue, let name = index["name"]?.stringValue, let sql = index["createSql"]?.stringValue else {
                throw fail("\(context).indices[\(offset)] needs \"name\" and \"createSql\"")
            }
            return RoomSchemaBundle.Index(
                name: name, unique: index["unique"] == .bool(true), columnNames: RoomSchemaBundle.strings(index["columnNames"]),
                orders: RoomSchemaBundle.strings(index["orders"]), createSQL: sql)
        }
        foreignKeys = RoomSchemaBundle.items(object["foreignKeys"]).compactMap(\.objectValue).map { key in
            RoomSchemaBundle.ForeignKey(
                table: key["table"]?.stringValue ?? "", onDelete: key["onDelete"]?.stringValue ?? "NO ACTION",
                onUpdate: key["onUpdate"]?.stringValue ?? "NO ACTION", columns: RoomSchemaBundle.strings(key["columns"]),
                referencedColumns: RoomSchemaBundle.strings(key["referencedColumns"]))
        }
        ftsOptions = object["ftsOptions"]
        contentSyncTriggers = RoomSchemaBundle.strings(object["contentSyncTriggers"])
    }
}
