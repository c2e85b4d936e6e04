import CSQLite

/// Read-only measurements of the data a step will write: table shapes from SQLite's
/// catalog, b-tree sizes from dbstat, and sums of record sizes from one query.
///
/// The query evaluates the step's own expressions (the new row of a rebuild, the new
/// value of a backfill, the key of an index) through `preflight_cell_size`, over the rows
/// the step will touch; a large table (more than 20,000 rowids) is sampled (`sample`),
/// since the estimate runs inside the launch, under the watchdog. Measured, debug build:
/// the estimate of a 200,000-row (45 MB) rebuild takes 20 ms; of a 1,000,000-row rebuild
/// of a 145 MB file, 95 ms, most of it dbstat reading the two indexes the swap drops.
final class SpaceProbe {
    let connection: Connection
    let geometry: DatabaseGeometry
    let sizes: BTreeSizes
    private var functions: RecordSizeFunctions?

    init(connection: Connection, geometry: DatabaseGeometry) {
        self.connection = connection
        self.geometry = geometry
        self.sizes = BTreeSizes(connection: connection, pageSize: geometry.pageSize)
    }

    /// Runs `sql` (one row of integers) with the size functions registered. It is made
    /// of the step's own expressions, so it runs as plan SQL.
    func measure(_ sql: String) throws(SQLiteError) -> [Int64] {
        if functions == nil {
            functions = try RecordSizeFunctions(connection: connection, usable: geometry.usableSize, utf16: geometry.utf16)
        }
        return try connection.planRows(sql).first?.map { $0.integerValue ?? 0 } ?? []
    }

    // MARK: - Tables

    /// A column as it is stored.
    struct Column {
        var name: String
        /// TEXT affinity turns numbers into (longer) text when they are stored.
        var textAffinity: Bool
        /// False for generated columns.
        var insertable: Bool
        /// Position in the primary key (0 when not part of it).
        var primaryKey: Int
        var defaultValue: String?
    }

    /// What the estimate needs to know about one table.
    struct Table {
        var name: String
        var withoutRowid: Bool
        var columns: [Column]
        /// The INTEGER PRIMARY KEY column (the rowid's alias), if any.
        var rowidColumn: String?
        /// An expression for the rowid, or nil for a WITHOUT ROWID table.
        var rowidExpression: String?

        var quotedName: String { SQLText.quote(name) }
        var insertable: [Column] { columns.filter(\.insertable) }
        var primaryKeyColumns: [String] {
            columns.filter { $0.primaryKey > 0 }.sorted { $0.primaryKey < $1.primaryKey }.map(\.name)
        }

        /// The arguments of `preflight_cell_size` for a row of this table, its columns read
        /// from `source` (column names as they are, or other expressions by name).
        func cellArguments(_ value: (Column) -> String) -> String {
            let kind = withoutRowid ? "1" : "0"
            let rowid = rowidColumn.map { SQLText.quote($0) } ?? rowidExpression ?? "NULL"
            return ([kind, withoutRowid ? "NULL" : rowid] + insertable.map(value)).joined(separator: ", ")
        }
    }

    /// The table `name` as `connection` (the migrated database, or a scratch one) has it.
    static func table(_ name: String, in connection: Connection) throws(SQLiteError) -> Table? {
        guard let schema = try TableSchema.read(name, connection) else { return nil }
        var columns: [Column] = []
        var primaryKeyTypes: [String] = []
        for row in try connection.rows(
            "SELECT name, type, pk, hidden, dflt_value FROM pragma_table_xinfo(?) ORDER BY cid", [.text(schema.name)])
        {
            let type = (row[1].textValue ?? "").uppercased()
            let primaryKey = Int(row[2].integerValue ?? 0)
            if primaryKey > 0 { primaryKeyTypes.append(type) }
            columns.append(Column(
                name: row[0].textValue ?? "",
                textAffinity: !type.contains("INT") && ["CHAR", "CLOB", "TEXT"].contains { type.contains($0) },
                insertable: (row[3].integerValue ?? 0) == 0, primaryKey: primaryKey, defaultValue: row[4].textValue))
        }
        var rowidColumn: String?
        if !schema.withoutRowid, primaryKeyTypes == ["INTEGER"] {
            rowidColumn = columns.first { $0.primaryKey == 1 }?.name
        }
        return Table(
            name: schema.name, withoutRowid: schema.withoutRowid, columns: columns, rowidColumn: rowidColumn,
            rowidExpression: schema.rowidAlias)
    }

    /// `value` as the column stores it: numbers become text in a TEXT-affinity column.
    static func stored(_ value: String, in column: Column) -> String {
        column.textAffinity
            ? "(CASE WHEN typeof(\(value)) IN ('integer', 'real') THEN CAST(\(value) AS TEXT) ELSE \(value) END)"
            : value
    }

    /// Rows of `table`, at most: the cells of its b-tree (dbstat, already read for its
    /// size), which in a rowid table also count the interior pages' dividers, about 1%
    /// more. `count(*)` would read the table once more.
    func rowCount(_ table: String) throws(SQLiteError) -> Int64 {
        try sizes.size(of: table).cells
    }

    // MARK: - Samples

    /// Rows of a large table read instead of all of them: `windows` runs of `run`
    /// consecutive rowids, spread evenly over the rowid range. The estimate runs inside
    /// the launch, under the watchdog, so it must not read the whole table row by row.
    struct Sample {
        /// A condition on the rowid that holds for the sampled rows.
        var condition: String
        var sampledRows: Int64
        var totalRows: Int64

        /// A count over the sample (rows that match something) scaled to the table, with
        /// three standard errors added, so that a filter's selectivity is not under-
        /// estimated.
        func rows(_ count: Int64) -> Int64 {
            guard sampledRows > 0 else { return count }
            let fraction = Double(count) / Double(sampledRows)
            let error = 3 * (fraction * (1 - fraction) / Double(sampledRows)).squareRoot() + 1 / Double(sampledRows)
            return min(totalRows, Int64((min(1, fraction + error) * Double(totalRows)).rounded(.up)))
        }

        /// A sum over `count` sampled rows scaled to `rows(count)` rows, 2% added for the
        /// error of the sample's mean.
        func bytes(_ sum: Int64, over count: Int64) -> Int64 {
            guard count > 0 else { return 0 }
            return Int64((Double(sum) / Double(count) * Double(rows(count)) * 1.02).rounded(.up))
        }
    }

    /// A sample of `table` (a rowid table of the file), or nil when it is small enough to
    /// read whole (a rowid range of up to 20,000) or has no rowid. `rows`: the table's
    /// rows if known; otherwise they are estimated from how densely the sampled runs fill
    /// their rowid ranges (exact for a table without gaps), with 5% added, so that a
    /// rebuild need not read the whole table even once (dbstat or count(*) would).
    func sample(
        of table: Table, rows known: Int64? = nil, windows: Int = 64, run: Int = 64
    ) throws(SQLiteError) -> Sample? {
        guard let rowid = table.rowidExpression else { return nil }
        // One aggregate per query: SQLite reads min() or max() of the rowid from one end
        // of the b-tree only when it is the query's only aggregate.
        guard let low = try connection.scalar("SELECT min(\(rowid)) FROM \(table.quotedName)").integerValue,
            let high = try connection.scalar("SELECT max(\(rowid)) FROM \(table.quotedName)").integerValue,
            high - low >= 20_000
        else { return nil }
        let window = try connection.prepare(
            "SELECT min(r), max(r), count(*) FROM (SELECT \(rowid) AS r FROM \(table.quotedName) WHERE \(rowid) >= ? ORDER BY \(rowid) LIMIT \(run))")
        var ranges: [(Int64, Int64)] = []
        var sampled: Int64 = 0
        var spanned: Int64 = 0
        for index in 0..<windows {
            let start = low + Int64((Double(high - low) * Double(index) / Double(windows)).rounded(.down))
            if let last = ranges.last, start <= last.1 { continue }
            guard let row = try window.rows([.integer(start)]).first, let first = row[0].integerValue,
                let end = row[1].integerValue
            else { continue }
            ranges.append((first, end))
            sampled += row[2].integerValue ?? 0
            spanned += end - first + 1
        }
        guard sampled > 0 else { return nil }
        let density = Double(sampled) / Double(max(1, spanned))
        let estimated = min(high - low + 1, Int64((density * Double(high - low + 1) * 1.05).rounded(.up)) + Int64(run))
        let condition = ranges.map { "\(rowid) BETWEEN \($0.0) AND \($0.1)" }.joined(separator: " OR ")
        return Sample(condition: "(\(condition))", sampledRows: sampled, totalRows: known ?? estimated)
    }

    // MARK: - Indexes

    /// An index: its key expressions (as SQL over the table's columns) and condition.
    struct Index {
        var name: String
        var keys: [String]
        var condition: String?
        var unique: Bool
        /// The columns its keys name; nil when a key is an expression.
        var keyColumns: [String]?
    }

    /// The indexes of `table` in `connection`: their keys from `pragma_index_xinfo`, and
    /// for expression and partial indexes from their CREATE INDEX statement.
    static func indexes(of table: String, in connection: Connection) throws(SQLiteError) -> [Index] {
        var result: [Index] = []
        for row in try connection.rows(
            "SELECT il.name, il.\"unique\", il.partial, s.sql FROM pragma_index_list(?) AS il LEFT JOIN sqlite_schema AS s ON s.name = il.name AND s.type = 'index'",
            [.text(table)])
        {
            guard let name = row[0].textValue else { continue }
            let columns = try connection.rows(
                "SELECT name FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", [.text(name)]
            ).map { $0[0].textValue }
            var index = Index(
                name: name, keys: [], condition: nil, unique: row[1].integerValue == 1, keyColumns: nil)
            if columns.allSatisfy({ $0 != nil }) {
                index.keyColumns = columns.compactMap { $0 }
                index.keys = index.keyColumns!.map(SQLText.quote)
            }
            if row[2].integerValue == 1 || index.keyColumns == nil {
                guard let sql = row[3].textValue, let definition = SQLClauses(sql).indexDefinition() else { continue }
                index.keys = definition.keys
                index.condition = definition.condition
            }
            result.append(index)
        }
        return result
    }

    /// The SQL arguments of `preflight_cell_size` (and, without the first two, of
    /// `preflight_record_size`) for `index`'s entry of a row of `table`: its keys, then the
    /// rowid or the primary key columns the keys leave out.
    static func entryArguments(_ index: Index, of table: Table) -> [String] {
        var tail: [String]
        if table.withoutRowid {
            let named = Set((index.keyColumns ?? []).map { $0.lowercased() })
            tail = table.primaryKeyColumns.filter { !named.contains($0.lowercased()) }.map(SQLText.quote)
        } else {
            tail = [table.rowidColumn.map(SQLText.quote) ?? table.rowidExpression ?? "NULL"]
        }
        return index.keys + tail
    }

    /// Sums for the entries of `indexes` over the rows of a FROM clause.
    struct IndexSums {
        var entries: Int64 = 0
        var cellBytes: Int64 = 0
        var recordBytes: Int64 = 0

        /// The sums over a sample, scaled to the whole table.
        func scaled(by sample: Sample) -> IndexSums {
            IndexSums(
                entries: sample.rows(entries), cellBytes: sample.bytes(cellBytes, over: entries),
                recordBytes: sample.bytes(recordBytes, over: entries))
        }
    }

    /// The SELECT-list terms that measure `index` (three columns: entries, cell bytes,
    /// record bytes), for rows of `table`.
    static func indexTerms(_ index: Index, of table: Table) -> String {
        let arguments = entryArguments(index, of: table).joined(separator: ", ")
        let when = index.condition.map { "CASE WHEN \($0) THEN 1 END" } ?? "1"
        return """
            count(\(when)), \
            sum(CASE WHEN \(when) = 1 THEN \(RecordSizeFunctions.cellSize)(1, NULL, \(arguments)) END), \
            sum(CASE WHEN \(when) = 1 THEN \(RecordSizeFunctions.recordSize)(\(arguments)) END)
            """
    }

    static func indexSums(_ values: [Int64], at offset: Int, sample: Sample? = nil) -> IndexSums {
        let sums = indexSums(values, at: offset)
        return sample.map { sums.scaled(by: $0) } ?? sums
    }

    private static func indexSums(_ values: [Int64], at offset: Int) -> IndexSums {
        guard values.count >= offset + 3 else { return IndexSums() }
        return IndexSums(entries: values[offset], cellBytes: values[offset + 1], recordBytes: values[offset + 2])
    }

    // MARK: - Statement journals

    enum Writer { case insert, update, delete }

    /// True when SQLite will open a statement journal for `sql`: it writes several rows
    /// (an INSERT ... SELECT, an UPDATE; a DELETE only with triggers or foreign keys) and
    /// may abort halfway, which its program shows: a constraint check that aborts, a
    /// foreign key counter, a trigger program, a function call (any function may raise
    /// an error). Measured in WAL mode, 20,000 rows: `SET n = n + 1` and `SET title =
    /// title || 'x'` write no statement journal; `SET title = upper(title)`, or any
    /// UPDATE of a NOT NULL column, journal every page they write.
    func usesStatementJournal(_ sql: String, _ writer: Writer) -> Bool {
        guard let rows = try? connection.planRows("EXPLAIN " + sql) else { return true }
        for row in rows where row.count > 3 {
            let opcode = row[1].textValue ?? ""
            let p1 = row[2].integerValue ?? 0
            let p2 = row[3].integerValue ?? 0
            switch opcode {
            case "FkCounter", "FkIfZero", "Program": return true
            case _ where writer == .delete: continue
            case "Halt" where p1 != 0 && p2 == 2: return true  // OE_Abort
            case "HaltIfNull" where p2 == 2: return true
            case "Function", "PureFunc": return true
            default: continue
            }
        }
        return false
    }
}
