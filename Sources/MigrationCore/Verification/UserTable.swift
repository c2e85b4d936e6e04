/// A table a user created in the main schema: an ordinary table, or a virtual table (FTS3/4/5,
/// R*Tree, any other module) under its own name. This is the one list of "the user's tables":
/// what the report counts (`TableCounts`), what Room finds in a version-0 file, and what a
/// synthesizer may fill (the ordinary ones).
///
/// Left out: views, SQLite's own `sqlite_*` tables, Preflight's `_preflight_*` bookkeeping,
/// and the shadow tables a virtual table keeps its rows in (`notes_fts_segdir`,
/// `search_data`). Which tables are shadow tables SQLite itself says: `PRAGMA table_list`
/// types them `shadow` when their virtual table's module declares them (`xShadowName`, as
/// FTS3/4/5 and R*Tree do), which no name pattern could tell as surely. Where the module is
/// missing from this SQLite it cannot say, and such tables are listed as ordinary tables:
/// SQLite reads them as that.
///
///     let tables = try UserTable.list(connection)   // [notes, notes_fts (virtual)]
///
/// Related SQLite documentation: https://sqlite.org/pragma.html#pragma_table_list
public struct UserTable: Sendable, Equatable {
    public var name: String
    /// A virtual table: counting or reading it needs its module (and an FTS table its
    /// tokenizer) in the SQLite that opens the file.
    public var isVirtual: Bool

    public init(name: String, isVirtual: Bool) {
        self.name = name
        self.isVirtual = isVirtual
    }

    /// The user's tables of `connection`'s main schema, in creation order.
    public static func list(_ connection: Connection) throws(SQLiteError) -> [UserTable] {
        try connection.rows(
            """
            SELECT s.name, l.type FROM main.sqlite_schema AS s
            JOIN \(TableList.main) AS l ON l.name = s.name
            WHERE s.type = 'table' AND l.type IN ('table', 'virtual')
              AND s.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND s.name NOT LIKE ? ESCAPE '\\'
            ORDER BY s.rowid
            """, [.text(SQLText.likePattern(startingWith: ProgressStore.internalPrefix))]
        ).compactMap { row in
            row[0].textValue.map { UserTable(name: $0, isVirtual: row[1].textValue == "virtual") }
        }
    }
}
