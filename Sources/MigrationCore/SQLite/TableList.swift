import CSQLite

/// The tables and views of the main schema with their kind and whether they are WITHOUT
/// ROWID, as `pragma_table_list` gives them: that pragma is SQLite 3.37, and a device's
/// engine can be older (`SQLiteEngine`), so on an older one the same columns are read from
/// `sqlite_schema` and `pragma_index_list`.
///
/// Use it as a table in FROM: `SELECT name, wr FROM \(TableList.main) AS l WHERE ...`.
/// Its columns: `name`, `type` (`table`, `view`, `virtual` or `shadow`) and `wr` (1 for
/// WITHOUT ROWID).
public enum TableList {
    /// The subquery for the SQLite this process runs on.
    public static var main: String {
        sqlite3_libversion_number() >= 3_037_000 ? pragma : schemaRead
    }

    static let pragma = "(SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main')"

    /// Before 3.37. A virtual table's SQL starts with CREATE VIRTUAL TABLE; its shadow
    /// tables are named after it, `<name>_<suffix>` (what the module's xShadowName checks;
    /// a table of the app's own so named would be taken for one). A WITHOUT ROWID table's
    /// primary key is an index that `pragma_index_list` lists with origin `pk` and that has
    /// no row of its own in `sqlite_schema`: the table's own b-tree is that index.
    static let schemaRead = """
        (SELECT s.name AS name,
            CASE WHEN s.type = 'view' THEN 'view'
                 WHEN s.sql LIKE 'CREATE VIRTUAL TABLE%' THEN 'virtual'
                 WHEN EXISTS (SELECT 1 FROM main.sqlite_schema AS v WHERE v.type = 'table'
                     AND v.sql LIKE 'CREATE VIRTUAL TABLE%' AND s.name LIKE replace(replace(replace(v.name,
                     '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '\\_%' ESCAPE '\\') THEN 'shadow'
                 ELSE 'table' END AS type,
            EXISTS (SELECT 1 FROM pragma_index_list(s.name, 'main') AS i WHERE i.origin = 'pk'
                AND NOT EXISTS (SELECT 1 FROM main.sqlite_schema AS x WHERE x.name = i.name)) AS wr
         FROM main.sqlite_schema AS s WHERE s.type IN ('table', 'view'))
        """
}
