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

    /// The virtual table that owns each shadow table (`notes_fts_content` of `notes_fts`),
    /// as `PRAGMA table_list` tells them apart: a shadow table's name is its owner's and a
    /// suffix, and the longest owner's name that fits wins.
    static func shadowOwners(_ connection: Connection) throws(SQLiteError) -> [String: String] {
        let tables = try connection.rows("SELECT name, type FROM pragma_table_list WHERE schema = 'main'")
        let virtual = tables.filter { $0[1].textValue == "virtual" }.compactMap { $0[0].textValue }
        var owners: [String: String] = [:]
        for row in tables where row[1].textValue == "shadow" {
            guard let shadow = row[0].textValue else { continue }
            let folded = SQLNormalizer.fold(shadow)
            owners[shadow] = virtual.filter { folded.hasPrefix(SQLNormalizer.fold($0) + "_") }.max { $0.count < $1.count }
        }
        return owners
    }

    /// Whether `name` is one of the tables Preflight or SQLite keeps for themselves.
    static func isInternal(_ name: String) -> Bool {
        let folded = SQLNormalizer.fold(name)
        return folded.hasPrefix("sqlite_") || folded.hasPrefix(ProgressStore.internalPrefix)
    }
}
