import CSQLite

/// Rows an INSERT adds, measured by running its SELECT (or VALUES) under a size function.
struct InsertedRows {
    var rows: Int64
    var cellBytes: Int64
    var indexes: [(name: String, sums: SpaceProbe.IndexSums)]
    /// True when the rows come in rowid order (appended: full pages).
    var appended: Bool
    var withoutRowid: Bool
    /// A SELECT of the rows as the table stores them (its columns, then the rowid), for
    /// the statements after this one.
    var rowsSQL: String

    /// `with`: the WITH clause the rows need (the statement's own, with the step's
    /// relations); `userWith`: the statement's own alone.
    static func measure(
        _ probe: SpaceProbe, into table: SpaceProbe.Table, shapes: Connection, columns: [String]?, rows: String,
        with: String?, userWith: String?
    ) throws(SQLiteError) -> InsertedRows {
        let named = columns ?? table.insertable.map(\.name)
        let inner = (0..<named.count).map { "c\($0)" }
        let lowered = named.map { $0.lowercased() }
        let values = table.insertable.map { column -> String in
            if let position = lowered.firstIndex(of: column.name.lowercased()) {
                return SpaceProbe.stored("c\(position)", in: column)
            }
            return "(\(column.defaultValue ?? "NULL"))"
        }
        let rowid = table.rowidColumn.flatMap { column in lowered.firstIndex(of: column.lowercased()).map { "c\($0)" } } ?? "NULL"
        let rowsCTE = "_preflight_i0(\(inner.joined(separator: ", "))) AS (\(rows))"
        let select = "SELECT \((values + [rowid]).joined(separator: ", ")) FROM _preflight_i0"
        var shape = table
        shape.rowidExpression = SQLText.quote(StepSchema.key)
        let indexes = try SpaceProbe.indexes(of: table.name, in: shapes)
        var terms = ["count(*)", "sum(\(RecordSizeFunctions.cellSize)(\(shape.cellArguments { SQLText.quote($0.name) })))"]
        terms += indexes.map { SpaceProbe.indexTerms($0, of: shape) }
        let columnList = (table.insertable.map(\.name) + [StepSchema.key]).map(SQLText.quote).joined(separator: ", ")
        let sql = """
            \(with.map { $0 + ", " } ?? "WITH ")\(rowsCTE), _preflight_s(\(columnList)) AS (\(select)) \
            SELECT \(terms.joined(separator: ", ")) FROM _preflight_s
            """
        let sums = try probe.measure(sql)
        guard sums.count == 2 + indexes.count * 3 else {
            throw SQLiteError(code: SQLITE_ERROR, message: "unexpected measurement")
        }
        // Appended when SQLite reads the rows in table order: no sort, no index walk.
        let plan = (try? probe.connection.planRows("EXPLAIN QUERY PLAN " + (with.map { $0 + " " } ?? "") + rows)) ?? []
        let details = plan.compactMap { $0.last?.textValue?.uppercased() }
        let ordered = !details.contains { $0.contains("TEMP B-TREE") || $0.contains("USING") || $0.contains("AUTOMATIC") }
        return InsertedRows(
            rows: sums[0], cellBytes: sums[1],
            indexes: indexes.enumerated().map { ($1.name, SpaceProbe.indexSums(sums, at: 2 + $0 * 3)) },
            appended: !table.withoutRowid && (table.rowidColumn == nil || ordered), withoutRowid: table.withoutRowid,
            rowsSQL: "\(userWith.map { $0 + ", " } ?? "WITH ")\(rowsCTE) \(select)")
    }

    /// Adds the rows' pages and their index entries; returns the table's new pages.
    func add(to load: inout TransactionLoad, probe: SpaceProbe) -> Int64 {
        let usable = probe.geometry.usableSize
        let pages = RecordSize.pages(
            cellBytes: cellBytes, cells: rows, usable: usable, fill: appended ? PageFill.appended : PageFill.random,
            indexFormat: withoutRowid)
        load.allocate(pages)
        for index in indexes {
            // New entries land all over an index: each touches a page and splits some.
            let existing = (try? probe.sizes.size(of: index.name).pages) ?? 0
            load.rewrite(min(existing, index.sums.entries), of: index.name)
            load.allocate(RecordSize.pages(
                cellBytes: index.sums.cellBytes, cells: index.sums.entries, usable: usable, fill: PageFill.random,
                indexFormat: true))
        }
        return pages
    }
}

