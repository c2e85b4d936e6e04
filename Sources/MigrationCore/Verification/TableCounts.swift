/// Row counts of a database's tables, as the report shows them (`input.tables`,
/// `final.tables`).
public enum TableCounts {
    /// The number of rows of every ordinary table in the main schema.
    ///
    /// Left out: views, virtual tables (counting one needs its module, and its rows live
    /// in its shadow tables, which are ordinary tables and are counted), SQLite's own
    /// `sqlite_*` tables and Preflight's `_preflight_*` bookkeeping.
    ///
    ///     let counts = try TableCounts.count(connection)   // ["notes": 1200, "folders": 4]
    public static func count(_ connection: Connection) throws(SQLiteError) -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for name in try tableNames(connection) {
            counts[name] = try connection.integer("SELECT count(*) FROM main.\(SQLText.quote(name))")
        }
        return counts
    }

    /// The names of the tables `count` counts, in schema order.
    static func tableNames(_ connection: Connection) throws(SQLiteError) -> [String] {
        try connection.rows(
            """
            SELECT name FROM main.sqlite_schema
            WHERE type = 'table' AND coalesce(sql, '') NOT LIKE 'CREATE VIRTUAL TABLE%'
              AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE ? ESCAPE '\\'
            ORDER BY rowid
            """, [.text(SQLText.likePattern(startingWith: ProgressStore.internalPrefix))]
        ).compactMap { $0.first?.textValue }
    }

    /// Whether `name` is one of the tables Preflight or SQLite keeps for themselves.
    static func isInternal(_ name: String) -> Bool {
        let folded = SQLNormalizer.fold(name)
        return folded.hasPrefix("sqlite_") || folded.hasPrefix(ProgressStore.internalPrefix)
    }
}
