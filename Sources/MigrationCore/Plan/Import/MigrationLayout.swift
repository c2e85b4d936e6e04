/// Where an app keeps its migrations (docs/CONTRACT.md §9), each read by its own type.
public enum MigrationLayout: String, Sendable, CaseIterable {
    /// A Room app's module: `schemas/<database class>/<version>.json` and the Kotlin/Java
    /// sources of its migrations (`RoomProject`).
    case room
    /// SQLDelight: `N.sqm` migrates version N to N+1; the `.sq` files hold the newest
    /// schema (`SQLDelightProject`).
    case sqldelight
    /// Flyway: `V<version>__<description>.sql` (`VersionedSQLFile`).
    case flyway
    /// A folder of `.sql` files whose names start with their version number.
    case sqlDir = "sql-dir"

    /// The layout `directory` is in, for `preflight run --plan DIR`; a folder that holds
    /// none of them, or more than one, is an error that says so.
    public static func detect(in directory: String) throws(PlanImportError) -> MigrationLayout {
        let files = try ProjectFiles(directory)
        var found: [MigrationLayout] = []
        if files.all.contains(where: { $0.hasSuffix(".sqm") || $0.hasSuffix(".sq") }) { found.append(.sqldelight) }
        if files.all.contains(where: { VersionedSQLFile(flywayName: ProjectFiles.name($0)) != nil }) { found.append(.flyway) }
        if files.topLevel.contains(where: { VersionedSQLFile(numberedName: ProjectFiles.name($0)) != nil }) {
            found.append(.sqlDir)
        }
        if files.all.contains(where: { RoomSchemas.isSchemaFile($0) && ProjectFiles.name(ProjectFiles.folder(ProjectFiles.folder($0))) == "schemas" }),
            files.all.contains(where: { $0.hasSuffix(".kt") || $0.hasSuffix(".java") })
        {
            found.append(.room)
        }
        guard found.count == 1, let layout = found.first else {
            let names = found.map(\.rawValue).joined(separator: " and ")
            throw PlanImportError(
                found.isEmpty
                    ? "\(directory) holds no migrations that Preflight can read: no SQLDelight .sq/.sqm files, no Flyway V<N>__<name>.sql files, no .sql files whose names start with their version number, no Room schemas (schemas/<database class>/<version>.json) with Kotlin or Java sources"
                    : "\(directory) holds migrations in several layouts (\(names)); import it with 'preflight plan import --from LAYOUT' to say which")
        }
        return layout
    }
}
