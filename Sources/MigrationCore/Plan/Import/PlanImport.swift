import Foundation

/// An app's own migration files as a plan (docs/CONTRACT.md §9, `preflight plan import`): one `sql`
/// step per file, named after its file, in a document a person can read and edit.
///
///     let imported = try PlanImport(layout: .flyway, directory: "src/main/resources/db/migration").makePlan()
///     let plan = try PlanDecoder.decode(imported.document)
///
/// A plan's versions start at 1 and go up by one (docs/CONTRACT.md §1). Where the app keeps its
/// version in `user_version` (SQLDelight, Room), the plan's versions are the app's own, so
/// that a database from a device is read at its real version; Flyway's versions and other
/// numberings are mapped onto 1, 2, 3 in order, and `notes` says so.
public struct PlanImport: Sendable {
    public var layout: MigrationLayout
    public var directory: String
    /// Room's exported schemas (`<version>.json`): the newest one is the fresh install,
    /// its identity hash the plan's, and the runner `room`.
    public var roomSchemas: String?
    /// `--from room`: the `@Database` class, where the module has several.
    public var database: String?
    public var name: String?

    public init(layout: MigrationLayout, directory: String, roomSchemas: String? = nil, database: String? = nil, name: String? = nil) {
        self.layout = layout
        self.directory = directory
        self.roomSchemas = roomSchemas
        self.database = database
        self.name = name
    }

    public func makePlan() throws(PlanImportError) -> ImportedPlan {
        let folder = Self.absolute(directory)
        let migrations: AppMigrations
        switch layout {
        case .room: return try RoomProject(root: folder, database: database).plan(name: name)
        case .sqldelight: migrations = try SQLDelightProject.read(folder)
        case .flyway: migrations = try FlywayMigrations.read(folder)
        case .sqlDir: migrations = try NumberedSQLFiles.read(folder)
        }
        let room = try roomSchemas.map { path throws(PlanImportError) in try RoomSchemas(Self.absolute(path)) }
        var notes = migrations.notes
        var steps = migrations.steps
        if steps.first?.version.whole == 2, let first = room?.schema(version: 1) {
            steps.insert(
                ImportedStep(version: AppVersion(parts: [1]), name: ProjectFiles.name(first.file), statements: first.createStatements),
                at: 0)
        }
        let versions = steps.map(\.version)
        if versions != (1...max(1, steps.count)).map({ AppVersion(parts: [$0]) }) {
            let list = versions.map(\.description).joined(separator: ", ")
            if migrations.versionsAreUserVersions || room != nil {
                if versions.first?.whole == 2 {
                    let source = migrations.firstVersionSource ?? "Room's schema of version 1 (1.json) is not among the schemas either"
                    throw PlanImportError(
                        "the migrations start at version 2, and nothing holds the schema of version 1 that step 1 must create: \(source)")
                }
                throw PlanImportError(
                    "the migrations are for versions \(list), but the app keeps its version in user_version, so they must be 1, 2, 3, ... with none missing")
            }
            notes.append(
                "the files' versions \(list) are the plan's steps 1 to \(steps.count): a plan's versions start at 1 and go up by one; each step is named after its file")
        }
        var freshInstall = migrations.freshInstall
        // SQLDelight's Android driver migrates inside SQLiteOpenHelper's one transaction
        // (docs/FIDELITY.md), and so does its native driver (one BEGIN around the path).
        var runner: String? = layout == .sqldelight ? Runner.sqliteOpenHelper.rawValue : nil
        var identityHash: String?
        if let room {
            guard let newest = room.schemas.last else {
                throw PlanImportError("\(roomSchemas ?? "") holds no Room schema (<version>.json)")
            }
            guard newest.version == steps.count else {
                throw PlanImportError(
                    "Room's newest schema, \(newest.file), is version \(newest.version), but the migrations reach version \(steps.count)")
            }
            // room_master_table and the hash are the runner's to write, as Room's open helper writes them.
            freshInstall = newest.createStatements
            runner = "room"
            identityHash = newest.identityHash
        }
        let planName = name ?? room.map { $0.databaseName.split(separator: ".").last.map(String.init) ?? $0.databaseName } ?? migrations.defaultName
        var description = "Imported by 'preflight plan import --from \(layout.rawValue)' from \(ProjectFiles.name(folder)); each step is named after its file."
        if let newest = room?.schemas.last {
            description += " The fresh install and the identity hash are Room's \(ProjectFiles.name(newest.file))."
        }
        let document = PlanDocument(
            name: planName, description: description, runner: runner,
            room: identityHash.map { PlanDocument.Room(identityHash: $0) },
            steps: steps.enumerated().map { PlanDocument.Step(version: $0.offset + 1, name: $0.element.name, statements: $0.element.statements) },
            freshInstall: freshInstall)
        return ImportedPlan(name: planName, document: Array(document.text.utf8), notes: notes)
    }

    private static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
            .standardizedFileURL.path
    }
}

/// A plan made from an app's files: its document and what a person should know about
/// how the files were read.
public struct ImportedPlan: Sendable {
    public var name: String
    /// The plan (docs/CONTRACT.md §1), as pretty JSON in the contract's order of keys.
    public var document: [UInt8]
    public var notes: [String]
}
