/// A SQLDelight project (https://cashapp.github.io/sqldelight/2.0.2/android_sqlite/migrations/):
///
///     src/main/sqldelight/
///       com/example/db/Note.sq      the newest schema, and the app's labelled queries
///       migrations/1.sqm            migrates version 1 to 2 ("<version to upgrade from>.sqm")
///       databases/1.db              the database of version 1 (SQLDelight's verifyMigrations)
///
/// SQLDelight keeps its version in `user_version` (Android's SQLiteOpenHelper; SQLiter on
/// iOS), so the plan's versions are SQLDelight's own: step 1 creates the schema of version
/// 1, step N + 1 is `N.sqm`. The `.sq` files describe only the newest schema, so the
/// schema of version 1 comes from `1.db`, the file SQLDelight's `generateSqlDelightSchema`
/// task writes for that version; a project with no `.sqm` file is at version 1 and needs
/// none.
enum SQLDelightProject {
    static func read(_ directory: String) throws(PlanImportError) -> AppMigrations {
        let root = sourceRoot(of: directory)
        let files = try ProjectFiles(root)
        // SQLDelight reads the .sq files sorted by file name, whatever folder each is in.
        let queryFiles = files.all.filter { $0.hasSuffix(".sq") }.sorted { (ProjectFiles.name($0), $0) < (ProjectFiles.name($1), $1) }
        var schema: [String] = []
        for path in queryFiles {
            schema += try SQLDelightSQL.schemaStatements(in: try ProjectFiles.text(path), file: path)
        }
        var migrations: [(path: String, file: VersionedSQLFile)] = []
        for path in files.all where path.hasSuffix(".sqm") {
            let name = ProjectFiles.name(path)
            guard let from = Int(name.dropLast(".sqm".count)), from >= 1 else {
                throw PlanImportError("\(path): a migration file is named <version to upgrade from>.sqm, from 1 up (1.sqm migrates version 1 to 2)")
            }
            migrations.append((path, VersionedSQLFile(version: AppVersion(parts: [from + 1]), name: name)))
        }
        var steps: [ImportedStep] = []
        for (path, file) in try AppMigrations.ordered(migrations) {
            var step = try ImportedStep.read(path, version: file.version)
            step.statements = step.statements.compactMap(SQLDelightSQL.migrationStatement)
            steps.append(step)
        }
        var notes: [String] = []
        let orderedSchema = SQLDelightSchemaOrder.ordered(schema)
        if steps.isEmpty {
            guard !orderedSchema.isEmpty else {
                throw PlanImportError("\(root) holds no schema: no CREATE statement in its .sq files and no .sqm migration")
            }
            steps = [ImportedStep(version: AppVersion(parts: [1]), name: "schema (.sq files)", statements: orderedSchema)]
        } else if let first = files.all.first(where: { ProjectFiles.name($0) == "1.db" }) {
            let statements = try DatabaseSchemaFile.statements(of: first)
            steps.insert(ImportedStep(version: AppVersion(parts: [1]), name: ProjectFiles.name(first), statements: statements), at: 0)
        }
        if orderedSchema.isEmpty {
            notes.append("the .sq files create nothing (deriveSchemaFromMigrations): the fresh install is the migrations replayed")
        }
        return AppMigrations(
            steps: steps, freshInstall: orderedSchema.isEmpty ? nil : orderedSchema, versionsAreUserVersions: true,
            firstVersionSource: "SQLDelight's .sq files hold only the newest schema: put the database of version 1 at \(root)/databases/1.db (the generateSqlDelightSchema task writes it; run it at the release that had version 1, as SQLDelight's verifyMigrations expects)",
            notes: notes, defaultName: AppMigrations.name(fromFolder: projectFolder(of: root)))
    }

    /// The `sqldelight` folder: a module's `src/main/sqldelight` (a Kotlin Multiplatform
    /// module's `src/commonMain/sqldelight`), the folder named `sqldelight` that DIR is in
    /// (DIR may be its `migrations`), or DIR itself.
    static func sourceRoot(of directory: String) -> String {
        for sourceSet in ["main", "commonMain"] where ProjectFiles.isDirectory(directory + "/src/\(sourceSet)/sqldelight") {
            return directory + "/src/\(sourceSet)/sqldelight"
        }
        var components = directory.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        while let last = components.last {
            if last == "sqldelight" { return components.joined(separator: "/") }
            components.removeLast()
        }
        return directory
    }

    /// The module a `sqldelight` folder belongs to (`app/src/main/sqldelight` is `app`'s).
    private static func projectFolder(of root: String) -> String {
        let components = root.split(separator: "/", omittingEmptySubsequences: false)
        guard components.count > 3, components[components.count - 3] == "src" else { return root }
        return components.dropLast(3).joined(separator: "/")
    }
}
