import CSQLite

/// Row counts of the user's tables (`UserTable`), as the report shows them (`input.tables`,
/// `final.tables`) and as `rows_lost` compares them: `SELECT count(*)` of each, a virtual
/// table's included, as a user counts it.
///
///     let counts = try TableCounts.count(connection)
///     counts.rows         // ["notes": 1200, "notes_fts": 1200, "folders": 4]
///     counts.uncounted    // ["signal_fts": "no such tokenizer: signal_tokenizer"]
public struct TableCounts: Sendable, Equatable {
    /// The rows of each table, by name.
    public var rows: [String: Int64]
    /// Virtual tables this SQLite cannot read, with its reason: the module or the tokenizer
    /// is the app's own, or the content table of an external-content FTS table is gone. A
    /// number for them would be made up, so they are left out of `rows` and reported apart.
    public var uncounted: [String: String]

    public init(rows: [String: Int64], uncounted: [String: String] = [:]) {
        self.rows = rows
        self.uncounted = uncounted
    }

    /// Counts the rows of every user table of `connection`'s main schema.
    ///
    /// - Throws: when an ordinary table cannot be counted, or a virtual table fails for
    ///   another reason than its definition (damage, I/O, memory): those are the file's
    ///   state or the machine's, not something this SQLite lacks.
    public static func count(_ connection: Connection) throws(SQLiteError) -> TableCounts {
        var counts = TableCounts(rows: [:])
        for table in try UserTable.list(connection) {
            do throws(SQLiteError) {
                counts.rows[table.name] = try connection.integer("SELECT count(*) FROM main.\(SQLText.quote(table.name))")
            } catch where table.isVirtual && error.primaryCode == SQLITE_ERROR {
                counts.uncounted[table.name] = error.message
            }
        }
        return counts
    }

    /// Whether `name` is one of the tables Preflight or SQLite keeps for themselves.
    static func isInternal(_ name: String) -> Bool {
        let folded = SQLNormalizer.fold(name)
        return folded.hasPrefix("sqlite_") || folded.hasPrefix(ProgressStore.internalPrefix)
    }
}
