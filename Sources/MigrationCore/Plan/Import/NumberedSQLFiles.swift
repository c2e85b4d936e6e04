/// A folder of `.sql` files whose names start with the version they bring the database
/// to (`001_init.sql`, `002_add_tags.sql`): the folder itself, not its subfolders.
enum NumberedSQLFiles {
    static func read(_ directory: String) throws(PlanImportError) -> AppMigrations {
        let files = try ProjectFiles(directory).topLevel
        let numbered = files.compactMap { path in VersionedSQLFile(numberedName: ProjectFiles.name(path)).map { (path: path, file: $0) } }
        guard !numbered.isEmpty else {
            throw PlanImportError("\(directory) holds no .sql file whose name starts with its version number (001_init.sql)")
        }
        var notes: [String] = []
        let unnumbered = files.filter { $0.lowercased().hasSuffix(".sql") && VersionedSQLFile(numberedName: ProjectFiles.name($0)) == nil }
        if !unnumbered.isEmpty {
            notes.append("left out \(unnumbered.map(ProjectFiles.name).joined(separator: ", ")): the name starts with no version number")
        }
        var steps: [ImportedStep] = []
        for (path, file) in try AppMigrations.ordered(numbered) {
            steps.append(try ImportedStep.read(path, version: file.version))
        }
        return AppMigrations(
            steps: steps, freshInstall: nil, versionsAreUserVersions: false, firstVersionSource: nil, notes: notes,
            defaultName: AppMigrations.name(fromFolder: directory))
    }
}
