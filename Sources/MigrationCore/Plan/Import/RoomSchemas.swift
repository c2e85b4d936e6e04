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
/// Room's versions are `user_version`s. `setupQueries` are not read: `room_master_table` and
/// the identity hash are the runner's to write, as Room's open helper writes them.
struct RoomSchemas {
    struct Schema {
        var version: Int
        var identityHash: String
        var bundle: RoomSchemaBundle
        var file: String

        /// What Room's generated `createAllTables` runs.
        var createStatements: [String] { bundle.createStatements }
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
        try self.init(databaseFolder: folder)
    }

    /// The schemas in the folder of one database class.
    init(databaseFolder folder: String) throws(PlanImportError) {
        var schemas: [Schema] = []
        for path in try ProjectFiles(folder).topLevel where Self.isSchemaFile(path) {
            schemas.append(try Self.read(path))
        }
        self.schemas = schemas.sorted { $0.version < $1.version }
        databaseName = ProjectFiles.name(folder)
    }

    /// `<version>.json`.
    static func isSchemaFile(_ path: String) -> Bool {
        path.hasSuffix(".json") && Int(ProjectFiles.name(path).dropLast(".json".count)) != nil
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
        // A version with no entities is a schema too (an app that adopted Room before its tables).
        let bundle = try RoomSchemaBundle(database: database, fail: fail)
        return Schema(version: version, identityHash: identityHash, bundle: bundle, file: path)
    }
}
