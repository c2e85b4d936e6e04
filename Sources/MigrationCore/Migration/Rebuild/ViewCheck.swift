/// Views after a swap: `legacy_alter_table` keeps views naming the rebuilt table (now the
/// new one) instead of following the old table to its new name, but it also skips the
/// check that a modern RENAME makes. This makes it: a view that compiled before the swap
/// and no longer does fails the step, with the view named.
enum ViewCheck {
    /// The views that do not compile now (some may have been broken before the step).
    static func brokenViews(_ connection: Connection) throws(SQLiteError) -> Set<String> {
        var broken: Set<String> = []
        for view in try views(connection) where compileError(view, connection) != nil { broken.insert(view) }
        return broken
    }

    static func noneBroken(since before: Set<String>, table: String, _ connection: Connection) throws(SQLiteError) {
        for view in try views(connection) where !before.contains(view) {
            if let error = compileError(view, connection) {
                throw SQLiteError(
                    code: error.code,
                    message: "view \(SQLText.quote(view)) no longer works after the rebuild of \(SQLText.quote(table)): \(error.message)",
                    sql: error.sql)
            }
        }
    }

    private static func views(_ connection: Connection) throws(SQLiteError) -> [String] {
        try connection.rows("SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY name").compactMap { $0[0].textValue }
    }

    /// Preparing a SELECT of the view resolves every name in it, without running it.
    private static func compileError(_ view: String, _ connection: Connection) -> SQLiteError? {
        do {
            _ = try connection.prepare("SELECT * FROM \(SQLText.quote(view))")
            return nil
        } catch {
            return error
        }
    }
}
