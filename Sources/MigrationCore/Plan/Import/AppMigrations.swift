/// What one layout's reader found in an app's files: its migrations in the app's order,
/// the script it creates a new database with (if the layout has one), and what a person
/// should know about how the files were read.
struct AppMigrations {
    var steps: [ImportedStep]
    /// The app's create-from-scratch statements for its newest version.
    var freshInstall: [String]?
    /// The app keeps its version in `user_version` (SQLDelight does): the plan's versions
    /// must then be the app's own, or a device's database would be read as another version.
    var versionsAreUserVersions: Bool
    /// Where the schema of version 1 comes from when the files start at version 2, for the
    /// message that asks for it.
    var firstVersionSource: String?
    var notes: [String] = []
    /// The plan's name when `--name` gives none.
    var defaultName: String
}

/// One migration: the version it brings the database to, as the app numbers it, the file
/// it came from (the step's name) and its statements.
struct ImportedStep {
    var version: AppVersion
    var name: String
    var statements: [String]

    /// The statements of a migration file, split as SQLite splits them.
    static func read(_ path: String, version: AppVersion) throws(PlanImportError) -> ImportedStep {
        let statements = SQLText.statements(in: try ProjectFiles.text(path))
        guard !statements.isEmpty else { throw PlanImportError("\(path) holds no SQL statement") }
        return ImportedStep(version: version, name: ProjectFiles.name(path), statements: statements)
    }
}

extension AppMigrations {
    /// A plan's name from the folder the migrations are in, going up past the folders
    /// every project of the tool has (`src/main/resources/db/migration` names nothing).
    static func name(fromFolder folder: String) -> String {
        let generic: Set<String> = ["src", "main", "resources", "db", "migration", "migrations", "sql", "sqldelight", "schemas"]
        let components = folder.split(separator: "/").map(String.init).filter { $0 != "." }
        return components.last { !generic.contains($0.lowercased()) } ?? "imported"
    }

    /// Files of a versioned layout in version order; two files for one version are an error.
    static func ordered(_ files: [(path: String, file: VersionedSQLFile)]) throws(PlanImportError) -> [(path: String, file: VersionedSQLFile)] {
        let sorted = files.sorted { $0.file.version < $1.file.version }
        for (earlier, later) in zip(sorted, sorted.dropFirst()) where earlier.file.version == later.file.version {
            throw PlanImportError(
                "\(earlier.path) and \(later.path) are both version \(earlier.file.version): each version needs exactly one file")
        }
        return sorted
    }
}
