/// Flyway's versioned migrations (`V<version>__<description>.sql`) in the one folder under
/// the given directory that holds them (Flyway's default location is
/// `src/main/resources/db/migration`). Flyway records what it applied in its own history
/// table, not in `user_version`, so its versions map onto the plan's in order.
enum FlywayMigrations {
    static func read(_ directory: String) throws(PlanImportError) -> AppMigrations {
        let files = try ProjectFiles(directory)
        let versioned = files.all.compactMap { path in VersionedSQLFile(flywayName: ProjectFiles.name(path)).map { (path, $0) } }
        let folders = Set(versioned.map { ProjectFiles.folder($0.0) })
        guard let folder = folders.first else {
            throw PlanImportError("\(directory) holds no Flyway migration: no file named V<version>__<description>.sql")
        }
        guard folders.count == 1 else {
            throw PlanImportError(
                "Flyway migrations are in several folders (\(folders.sorted().joined(separator: ", "))); import one of them")
        }
        var notes: [String] = []
        let skipped = files.all.filter { ProjectFiles.folder($0) == folder && VersionedSQLFile.isFlywayNonVersioned(ProjectFiles.name($0)) }
        if !skipped.isEmpty {
            notes.append(
                "left out \(skipped.map(ProjectFiles.name).joined(separator: ", ")): repeatable and undo migrations have no version, so they are no step of a plan")
        }
        var steps: [ImportedStep] = []
        for (path, file) in try AppMigrations.ordered(versioned.map { (path: $0.0, file: $0.1) }) {
            steps.append(try ImportedStep.read(path, version: file.version))
        }
        return AppMigrations(
            steps: steps, freshInstall: nil, versionsAreUserVersions: false, firstVersionSource: nil, notes: notes,
            defaultName: AppMigrations.name(fromFolder: folder))
    }
}
