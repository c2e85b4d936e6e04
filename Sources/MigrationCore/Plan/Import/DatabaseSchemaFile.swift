/// The schema of a database file as CREATE statements, in the order they were made:
/// how an import reads a version's schema that only a database holds (SQLDelight's
/// `databases/1.db`).
enum DatabaseSchemaFile {
    /// The tables, indexes, views and triggers the app made; SQLite's own objects
    /// (`sqlite_sequence`, automatic indexes) and Android's `android_metadata`, which the
    /// framework makes in every database it opens, are not the app's.
    static func statements(of path: String) throws(PlanImportError) -> [String] {
        let rows: [[SQLiteValue]]
        do throws(SQLiteError) {
            rows = try Connection(path: path, readOnly: true).rows(
                "SELECT name, sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY rowid")
        } catch {
            throw PlanImportError("cannot read the schema of \(path): \(error.message)")
        }
        let statements = rows.compactMap { row -> String? in
            guard let name = row.first?.textValue, let sql = row.last?.textValue,
                !name.lowercased().hasPrefix("sqlite_"), name != "android_metadata"
            else { return nil }
            return sql
        }
        guard !statements.isEmpty else { throw PlanImportError("\(path) holds no table") }
        return statements
    }
}
