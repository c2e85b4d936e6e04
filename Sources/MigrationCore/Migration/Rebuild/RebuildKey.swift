import CSQLite

/// The order in which a chunked step walks a table, and the cursor that marks its place.
///
/// For an ordinary table the key is the rowid; for a WITHOUT ROWID table it is the
/// primary key, compared as a row value (`("a", "b") > (?1, ?2)`), so that a composite
/// key orders exactly as the table's own b-tree does. A cursor is the key of the last
/// row a committed batch covered; the next batch starts strictly after it, so no row is
/// copied twice and none is skipped.
struct RebuildKey {
    /// The key's columns as a SELECT list reads them, qualified with the table's name
    /// (so that an output alias of the step's own `select` can never shadow them).
    let columns: [String]
    /// The same as compared and ordered: a column whose primary key uses another
    /// collating sequence than the column's own carries an explicit COLLATE.
    let terms: [String]

    init(_ schema: TableSchema, _ connection: Connection) throws(SQLiteError) {
        let table = schema.quotedName
        guard schema.withoutRowid else {
            guard let alias = schema.rowidAlias else {
                throw SQLiteError(
                    code: SQLITE_ERROR,
                    message: "table \(table) has columns named rowid, _rowid_ and oid: its rowid cannot be named")
            }
            columns = ["\(table).\(alias)"]
            terms = columns
            return
        }
        let primaryKey = try connection.rows(
            "SELECT name FROM pragma_index_list(?) WHERE origin = 'pk'", [.text(schema.name)])
        guard let index = primaryKey.first?[0].textValue else {
            throw SQLiteError(code: SQLITE_ERROR, message: "WITHOUT ROWID table \(table) has no primary key index")
        }
        var columns: [String] = []
        var terms: [String] = []
        for row in try connection.rows(
            "SELECT name, coll FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", [.text(index)])
        {
            guard let name = row[0].textValue else { continue }
            let column = "\(table).\(SQLText.quote(name))"
            let keyCollation = row[1].textValue ?? "BINARY"
            let ownCollation = try schema.collation(of: name, connection)
            columns.append(column)
            // An explicit COLLATE keeps SQLite from using the index, so only where needed.
            terms.append(
                keyCollation.uppercased() == ownCollation.uppercased() ? column : "\(column) COLLATE \(keyCollation)")
        }
        self.columns = columns
        self.terms = terms
    }

    var width: Int { columns.count }

    var selectList: String { columns.joined(separator: ", ") }

    var ascending: String { terms.joined(separator: ", ") }

    var descending: String { terms.map { "\($0) DESC" }.joined(separator: ", ") }

    /// `key <op> (?first, ...)`, as a row value when the key has several columns.
    func compared(_ comparison: String, parameters first: Int) -> String {
        let parameters = (0..<width).map { "?\(first + $0)" }
        if width == 1 { return "\(terms[0]) \(comparison) \(parameters[0])" }
        return "(\(terms.joined(separator: ", "))) \(comparison) (\(parameters.joined(separator: ", ")))"
    }
}
