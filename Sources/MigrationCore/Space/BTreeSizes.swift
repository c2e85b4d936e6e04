/// Sizes of the b-trees of the main database, from dbstat (https://sqlite.org/dbstat.html),
/// read one b-tree at a time and kept.
///
/// dbstat reads every page of the b-tree it is asked about. Measured on a 145 MB file
/// (1,000,000 rows, 97 MB table): 73 ms for the table's aggregate row, 196 ms for all
/// b-trees; so only the b-trees a step touches are read.
final class BTreeSizes {
    struct Size {
        var pages: Int64
        /// Bytes in use: page size times pages less the unused bytes.
        var usedBytes: Int64
        var cells: Int64
    }

    private let connection: Connection
    private let pageSize: Int64
    private var known: [String: Size] = [:]
    /// Sizes of b-trees a `sql` step creates or fills before the statement measured.
    private var assumed: [String: Size] = [:]

    init(connection: Connection, pageSize: Int64) {
        self.connection = connection
        self.pageSize = pageSize
    }

    func size(of name: String) throws(SQLiteError) -> Size {
        if let size = assumed[name.lowercased()] { return size }
        if let size = known[name] { return size }
        // dbstat matches names exactly; statements may spell them in another case.
        let spelled = try connection.scalar(
            "SELECT name FROM sqlite_schema WHERE name = ? COLLATE NOCASE", [.text(name)]).textValue ?? name
        let row = try connection.rows(
            "SELECT pageno, unused, ncell FROM dbstat('main', 1) WHERE name = ?", [.text(spelled)]
        ).first ?? []
        let pages = row.first?.integerValue ?? 0
        let size = Size(
            pages: pages, usedBytes: max(0, pages * pageSize - (row.count > 1 ? row[1].integerValue ?? 0 : 0)),
            cells: row.count > 2 ? row[2].integerValue ?? 0 : 0)
        known[name] = size
        return size
    }

    /// Takes `size` as the size of `name` from now on (a b-tree the step changes).
    func assume(_ name: String, _ size: Size) {
        assumed[name.lowercased()] = size
    }

    /// Pages of the schema table (rewritten in part by every DDL statement).
    func schemaPages() throws(SQLiteError) -> Int64 {
        max(1, try size(of: "sqlite_schema").pages)
    }
}
