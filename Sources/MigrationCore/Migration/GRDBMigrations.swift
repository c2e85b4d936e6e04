/// GRDB's record of applied migrations (`DatabaseMigrator`): one row per migration in
/// `grdb_migrations(identifier TEXT NOT NULL PRIMARY KEY)`, written inside that migration's
/// transaction. GRDB creates the table, outside any transaction, before it runs the first
/// pending migration.
enum GRDBMigrations {
    static let table = "grdb_migrations"

    /// The identifiers recorded in the file; none when the table is not there yet.
    static func applied(_ connection: Connection) throws(SQLiteError) -> Set<String> {
        let exists = try connection.integer(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(table)])
        guard exists > 0 else { return [] }
        return Set(try connection.rows("SELECT identifier FROM \(table)").compactMap { $0.first?.textValue })
    }

    static func create(_ connection: Connection) throws(SQLiteError) {
        try connection.execute("CREATE TABLE IF NOT EXISTS \(table) (identifier TEXT NOT NULL PRIMARY KEY)")
    }

    /// Records `step` as applied; call inside its transaction. The plan decoder makes sure
    /// every step of a GRDB plan has an identifier.
    static func record(_ step: Step, _ connection: Connection) throws(SQLiteError) {
        try connection.prepare("INSERT INTO \(table) (identifier) VALUES (?)").run([.text(step.id ?? "")])
    }
}
