/// Room's exported schemas (`room.schemaLocation`): one `<version>.json` per database
/// version, in a folder named for the database class
/// (`schemas/com.example.AppDatabase/3.json`):
///
///     {"formatVersion": 1, "database": {"version": 3, "identityHash": "...",
///      "entities": [{"tableName": "notes", "createSql": "CREATE TABLE IF NOT EXISTS `${TABLE_NAME}` (...)",
///                    "indices": [{"createSql": "CREATE INDEX ... ON `${TABLE_NAME}` (...)"}]}],
///      "views": [{"viewName": "v", "createSql": "CREATE VIEW `${VIEW_NAME}` AS ..."}],
///      "setupQueries": ["CREATE TABLE IF NOT EXISTS room_master_table (...)", "INSERT OR REPLACE ..."]}}
///
/// Room's versions are `user_version`s.
struct RoomSchemas {
    struct Schema {
        var version: Int
        var identityHash: String
        /// What Room's generated `createAllTables` runs: each entity with its indexes (and an
        /// FTS entity's content-sync triggers), then the views.
        var createStatements: [String]
        /// What Room runs after them on a new database: `room_master_table` and the hash.
        var setupQueries: [String]
        var file: String
    }

    /// Every version's schema, oldest first.
    let schemas: [Schema]
    /// The database class the folder is named for (`com.example.AppDatabase`).
    let databaseName: String

    init(_ directory: String) throws(PlanImportError) {
        var folder = directory
        let files = try ProjectFiles(directory)
        if files.topLevel.allSatisfy({ !$0.hasSuffix(".json") }) {
            // The `schemas` folder itself: one folder per database class inside.
            let databases = Set(files.all.filter { $0.hasSuffix(".json") }.map(ProjectFiles.folder))
            guard databases.count == 1, let only = databases.first else {
                throw PlanImportError(
                    databases.isEmpty
                        ? "\(directory) holds no Room schema (<version>.json)"
                        : "\(directory) holds the schemas of several Room databases (\(databases.sorted().joined(separator: ", "))); name one of those folders")
            }
            folder = only
        }
        var schemas: [Schema] = []
        for path in try ProjectFiles(folder).topLevel where path.hasSuffix(".json") {
            guard Int(ProjectFiles.name(path).dropLast(".json".count)) != nil else { continue }
            schemas.append(try Self.read(path))
        }
        self.schemas = schemas.sorted { $0.version < $1.version }
        databaseName = ProjectFiles.name(folder)
    }

    func schema(version: Int) -> Schema? { schemas.first { $0.version == version } }

    private static func read(_ path: String) throws(PlanImportError) -> Schema {
        guard let document = JSONValue.parse(Array(try ProjectFiles.text(path).utf8))?.objectValue else {
            throw PlanImportError("\(path) is not a JSON object")
        }
        func fail(_ problem: String) -> PlanImportError { PlanImportError("\(path): \(problem) (not a Room schema export?)") }
        guard document["formatVersion"]?.integerValue == 1 else { throw fail("\"formatVersion\" must be 1") }
        guard let database = document["database"]?.objectValue else { throw fail("\"database\" is missing") }
        guard let version = database["version"]?.integerValue.flatMap({ Int(exactly: $0) }), version >= 1 else {
            throw fail("\"database.version\" must be a version number")
        }
        guard Int(ProjectFiles.name(path).dropLast(".json".count)) == version else {
            throw fail("the file is named for another version than its \"database.version\" \(version)")
        }
        guard let identityHash = database["identityHash"]?.stringValue else { throw fail("\"database.identityHash\" is missing") }
        var statements: [String] = []
        for (index, entity) in (database["entities"]?.elements ?? []).enumerated() {
            let context = "database.entities[\(index)]"
            guard let object = entity.objectValue, let table = object["tableName"]?.stringValue,
                let create = object["createSql"]?.stringValue
            else { throw fail("\(context) needs \"tableName\" and \"createSql\"") }
            statements.append(create.replacingOccurrences(of: "${TABLE_NAME}", with: table))
            for (position, entry) in (object["indices"]?.elements ?? []).enumerated() {
                guard let sql = entry.objectValue?["createSql"]?.stringValue else {
                    throw fail("\(context).indices[\(position)] has no \"createSql\"")
                }
                statements.append(sql.replacingOccurrences(of: "${TABLE_NAME}", with: table))
            }
            for trigger in object["contentSyncTriggers"]?.elements ?? [] {
                guard let sql = trigger.stringValue else { throw fail("\(context).contentSyncTriggers must hold strings") }
                statements.append(sql)
            }
        }
        for (index, view) in (database["views"]?.elements ?? []).enumerated() {
            guard let object = view.objectValue, let name = object["viewName"]?.stringValue,
                let create = object["createSql"]?.stringValue
            else { throw fail("database.views[\(index)] needs \"viewName\" and \"createSql\"") }
            statements.append(create.replacingOccurrences(of: "${VIEW_NAME}", with: name))
        }
        guard !statements.isEmpty else { throw fail("\"database.entities\" is empty") }
        let setup = (database["setupQueries"]?.elements ?? []).compactMap(\.stringValue)
        return Schema(version: version, identityHash: identityHash, createStatements: statements, setupQueries: setup, file: path)
    }
}

extension JSONValue {
    /// The items of an array (Room's lists of entities, indices, views).
    fileprivate var elements: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}
