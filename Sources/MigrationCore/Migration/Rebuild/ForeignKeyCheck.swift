import CSQLite

/// Step 10 of SQLite's table rebuild: `PRAGMA foreign_key_check` on the rebuilt table
/// (its own references) and on every table that references it, inside the swap
/// transaction, so that a rebuild that breaks a reference rolls back whole.
enum ForeignKeyCheck {
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`, a macro built from another that Swift does not import.
    static let violationCode: Int32 = SQLITE_CONSTRAINT | (3 << 8)

    /// Throws `SQLITE_CONSTRAINT_FOREIGNKEY`, naming up to three broken references.
    static func verify(table: String, _ connection: Connection) throws(SQLiteError) {
        let check = "SELECT * FROM pragma_foreign_key_check(?)"
        var problems = try connection.rows(check + " LIMIT 3", [.text(table)])
        let schema = try TableSchema.require(table, connection)
        // Preflight's own tables (the old table awaiting its purge) are not the app's.
        for child in try schema.referencingTables(connection)
        where !child.hasPrefix(ProgressStore.internalPrefix) && problems.count < 3 {
            problems += try connection.rows(
                check + " WHERE parent = ? COLLATE NOCASE LIMIT 3", [.text(child), .text(table)])
        }
        guard !problems.isEmpty else { return }
        throw SQLiteError(
            code: violationCode,
            message: "the rebuild of \(SQLText.quote(table)) breaks foreign keys: \(examples(problems)); the step rolled back",
            sql: "PRAGMA foreign_key_check(\(SQLText.quote(table)))")
    }

    /// GRDB's check before each migration's COMMIT: `PRAGMA foreign_key_check` over the whole
    /// database. Throws `SQLITE_CONSTRAINT_FOREIGNKEY` ("FOREIGN KEY constraint failed", as
    /// GRDB words it), naming up to three broken references.
    static func verifyDatabase(_ connection: Connection) throws(SQLiteError) {
        let problems = try connection.rows("SELECT * FROM pragma_foreign_key_check LIMIT 3")
        guard !problems.isEmpty else { return }
        throw SQLiteError(
            code: violationCode, message: "FOREIGN KEY constraint failed: \(examples(problems))",
            sql: "PRAGMA foreign_key_check")
    }

    /// Rows of `foreign_key_check`: the child table, its rowid (NULL for WITHOUT ROWID), the
    /// parent, the key's id.
    private static func examples(_ problems: [[SQLiteValue]]) -> String {
        problems.prefix(3).map { row in
            let rowid = row[1] == .null ? "a row" : "row \(row[1])"
            return "\(rowid) of \(SQLText.quote(row[0].textValue ?? "?")) refers to a missing row of \(SQLText.quote(row[2].textValue ?? "?"))"
        }.joined(separator: "; ")
    }
}
