import CSQLite
import Foundation

/// Read-only measurements of the data a step writes: b-tree sizes from dbstat
/// (https://sqlite.org/dbstat.html), and sums of record sizes from one query over the
/// rows the step touches, evaluated with SQL bounds of the record format
/// (fileformat2.html §2.1). A table whose rowids span more than 4,096 is sampled
/// (1,024 rows spread over them): the estimate runs inside the launch, under the
/// watchdog, and a row's bounds cost about 15 microseconds to evaluate.
final class TableMeasure {
    struct TreeSize {
        var pages: Int64 = 0
        /// Bytes in use: the pages less their unused bytes.
        var usedBytes: Int64 = 0
        /// Cells: the rows of a rowid table, plus about 1% (interior pages' dividers).
        var cells: Int64 = 0
    }

    let connection: Connection
    let files: PagerGeometry
    private var known: [String: TreeSize] = [:]

    init(connection: Connection, files: PagerGeometry) {
        self.connection = connection
        self.files = files
    }

    /// The b-tree `name` of the file (any case); empty when there is none.
    func size(_ name: String) -> TreeSize {
        if let size = known[name.lowercased()] { return size }
        var size = TreeSize()
        // dbstat matches names exactly (sqlite_schema is not in its own table).
        let spelled = (try? connection.scalar(
            "SELECT name FROM sqlite_schema WHERE name = ? COLLATE NOCASE", [.text(name)]).textValue) ?? name
        if let row = try? connection.rows(
                "SELECT pageno, unused, ncell FROM dbstat('main', 1) WHERE name = ?", [.text(spelled)]).first,
            row.count == 3
        {
            let pages = row[0].integerValue ?? 0
            size = TreeSize(
                pages: pages, usedBytes: max(0, pages * files.pageSize - (row[1].integerValue ?? 0)),
                cells: row[2].integerValue ?? 0)
        }
        known[name.lowercased()] = size
        return size
    }

    // MARK: - Record sizes in SQL

    enum Affinity {
        case text, numeric, blob

        /// The affinity of a declared type (datatype3.html §3.1).
        init(declared type: String) {
            let type = type.uppercased()
            if type.contains("INT") {
                self = .numeric
            } else if ["CHAR", "CLOB", "TEXT"].contains(where: type.contains) {
                self = .text
            } else if type.isEmpty || type.contains("BLOB") {
                self = .blob
            } else {
                self = .numeric
            }
        }
    }

    /// SQL for the bytes `value` (a column name: it is repeated) takes in a record, at
    /// most: its serial type in the header and its body. An integer takes 1 to 8 bytes,
    /// a real 8, text and blobs their bytes; a TEXT column stores numbers as text, and a
    /// numeric column may turn text into an 8-byte real.
    static func bytes(_ value: String, _ affinity: Affinity = .blob) -> String {
        let integer = affinity == .text
            ? "1 + length(\(value))"
            : "2 + (\(value) NOT BETWEEN -128 AND 127) + (\(value) NOT BETWEEN -32768 AND 32767) + (\(value) NOT BETWEEN -8388608 AND 8388607) + 2 * (\(value) NOT BETWEEN -2147483648 AND 2147483647) + 2 * (\(value) NOT BETWEEN -140737488355328 AND 140737488355327)"
        let length = "length(CAST(\(value) AS BLOB))"
        let body = affinity == .numeric ? "max(8, \(length))" : length
        return """
            (CASE typeof(\(value)) WHEN 'null' THEN 1 WHEN 'integer' THEN \(integer) \
            WHEN 'real' THEN \(affinity == .text ? "1 + length(\(value))" : "9") \
            ELSE 1 + \(body) + (\(length) > 57) + (\(length) > 8185) + 2 * (\(length) > 1048569) END)
            """
    }

    /// The columns of `table` as `shape` (the step's schema so far) has them, each as SQL
    /// over `file`'s rows (the file's table of that name): the column, or the default of
    /// one the step added.
    static func columns(
        of table: String, shape: Connection, file: TableSchema
    ) -> [String: (affinity: Affinity, value: String)] {
        let stored = Set(file.columns.map { $0.name.lowercased() })
        var columns: [String: (affinity: Affinity, value: String)] = [:]
        for row in (try? shape.rows("SELECT lower(name), type, dflt_value FROM pragma_table_xinfo(?)", [.text(table)])) ?? [] {
            guard let name = row[0].textValue else { continue }
            let value = stored.contains(name) ? SQLText.quote(name) : "(\(row[2].textValue ?? "NULL"))"
            columns[name] = (Affinity(declared: row[1].textValue ?? ""), value)
        }
        return columns
    }

    /// SQL for the bytes of a record of `values` (SQL for their sizes): its header's size
    /// (a varint: one byte while the header is under 128 bytes, which 25 serial types of
    /// at most 5 bytes are) and every value.
    static func record(_ values: [String]) -> String {
        "(\(values.count < 25 ? 1 : 2) + " + (values.isEmpty ? "0" : values.joined(separator: " + ")) + ")"
    }

    /// SQL for a b-tree cell holding `record`: the cell pointer (2), the payload's length
    /// (a varint: at most 3 bytes below 2 MB) and the rowid's (`rowid`: SQL, or nil in an
    /// index). Overflow pages hold about as much as a cell would.
    static func cell(_ record: String, rowid: String?) -> String {
        "(\(record) + 3 + (\(record) > 127) + (\(record) > 16383)\(rowid.map { " + " + varint($0) } ?? ""))"
    }

    /// SQL for the length of the varint of the integer `value` (a negative one takes 9).
    static func varint(_ value: String) -> String {
        let v = "coalesce(\(value), 0)"
        return "(1 + (\(v) > 127) + (\(v) > 16383) + (\(v) > 2097151) + 5 * (\(v) > 268435455) + 8 * (\(v) < 0))"
    }

    /// Pages that `bytes` of cells take at `fill` (how full SQLite leaves pages filled that
    /// way): the leaves, and above more than one the interior pages, `dividerBytes` for
    /// each leaf (fileformat2.html §1.6).
    func pages(_ bytes: Int64, fill: Double, dividerBytes: Int64 = 16) -> Int64 {
        let room = Double(files.usableSize - 12) * fill
        let leaves = max(1, (Double(bytes) / room).rounded(.up))
        return Int64(leaves + (leaves > 1 ? (leaves * Double(dividerBytes) / room).rounded(.up) : 0))
    }

    /// How full SQLite leaves b-tree pages (page size 4096, measured with dbstat): rows
    /// appended in key order leave every page full (`balance_quick`: a 100,000-row copy
    /// took 2,326 pages for a 2,327-page source), and so does CREATE INDEX (1,000,000 keys
    /// of 34 bytes, 99%); entries inserted out of order split pages (100,000 random keys
    /// into an index: 0.91; a WITHOUT ROWID table: 0.88), and so do rows that grow in
    /// place (every row of 50,000 grown by 2 to 300 bytes: 0.87 to 0.91).
    enum Fill {
        static let appended = 0.95
        static let random = 0.8
        static let grown = 0.85
    }

    // MARK: - Sums over rows

    /// Sums of `terms` (SQL over the columns of `rows`, named `columns` if given) over the
    /// rows of `table`, scaled to `total` rows (nil: the table's own), where
    /// `rows(condition)` is a SELECT of the table's rows that meet `condition` (SQL on the
    /// table's rowid, by its unqualified name). A table whose rowids span more than 4,096
    /// is sampled: 1,024 rows at evenly spaced rowids (each the first at or after its
    /// point), each sum taken at its mean plus three standard errors, so that neither a
    /// filter's share nor a size is underestimated; its rows, if not given, are the span
    /// times the share of points that land on a row, with the same margin (no walk of
    /// the table). Nil when the query fails.
    func sums(
        _ terms: [String], table: TableSchema, total: Int64?, columns: [String]? = nil,
        rows: (_ condition: String) -> String
    ) -> (rows: Int64, sums: [Int64])? {
        var points = ""
        var condition = "1"
        var span: Int64 = 0
        if let rowid = table.rowidAlias,
            let low = try? connection.scalar("SELECT min(\(rowid)) FROM \(table.quotedName)").integerValue,
            let high = try? connection.scalar("SELECT max(\(rowid)) FROM \(table.quotedName)").integerValue,
            Self.span(low, high) > 4_096
        {
            // One aggregate per query: SQLite reads min() or max() from one end of the b-tree
            // only when it is the query's only aggregate. Rowids may span more than an
            // Int64 holds (-1 and Int64.max): SQLite computes the points, and its integer
            // arithmetic turns to REAL where it would overflow.
            span = Self.span(low, high)
            let point = "\(low) + (\(high) - \(low)) * i / 1024"
            points = """
                RECURSIVE _k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM _k WHERE i < 1023), \
                _p(p, r) AS (SELECT \(point), (SELECT \(rowid) FROM \(table.quotedName) WHERE \(rowid) >= \(point) ORDER BY \(rowid) LIMIT 1) FROM _k), 
                """
            condition = "\(rowid) IN (SELECT r FROM _p)"
        }
        let names = terms.indices.map { "_t\($0)" }
        let aggregates = ["count(*)", span > 0 ? "(SELECT count(*) FROM _p WHERE p = r)" : "0"]
            + names.flatMap { ["total(\($0))", "total(\($0) * \($0))"] }
        // MATERIALIZED is 3.35; an older engine (a device's, `SQLiteEngine`) decides alone.
        let materialized = sqlite3_libversion_number() >= 3_035_000 ? "MATERIALIZED " : ""
        let sql = """
            WITH \(points)_r\(columns.map { "(" + $0.joined(separator: ", ") + ")" } ?? "") AS (\(rows(condition))), \
            _s(\(names.joined(separator: ", "))) AS \(materialized)(SELECT \(terms.joined(separator: ", ")) FROM _r) \
            SELECT \(aggregates.joined(separator: ", ")) FROM _s
            """
        // Made of the step's own expressions: it runs as plan SQL.
        guard let row = try? connection.planRows(sql).first, row.count == aggregates.count else { return nil }
        let values = row.map { value -> Double in
            if case .real(let number) = value { return number }
            return Double(value.integerValue ?? 0)
        }
        let count = values[0]
        func upper(_ mean: Double, _ deviation: Double) -> Double { mean + 3 * deviation / count.squareRoot() + 1 / count }
        let share = values[1] / 1024
        // No table holds more rows than its file has room for cells (a cell takes at least
        // 4 bytes), however sparse its rowids are.
        let room = max(1, files.pageCount) * max(1, files.pageSize) / 4
        let rows = total ?? (span > 0
            ? min(span, room, Self.bytes(upper(share, (share * (1 - share)).squareRoot()) * Double(span))) : Int64(count))
        return (rows, terms.indices.map { index in
            let sum = values[2 + 2 * index]
            guard count > 0 else { return 0 }
            guard span > 0 else { return Self.bytes(sum * Double(rows) / count) }
            let mean = sum / count
            let deviation = max(0, values[3 + 2 * index] / count - mean * mean).squareRoot()
            return Self.bytes(Double(rows) * upper(mean, deviation))
        })
    }

    /// How many rowids lie from `low` to `high`, at most Int64.max.
    private static func span(_ low: Int64, _ high: Int64) -> Int64 {
        let (width, overflow) = high.subtractingReportingOverflow(low)
        return overflow || width == .max ? .max : width + 1
    }

    /// `value` rounded up to a count, at most Int64.max: a sampled bound over a span of
    /// rowids that wide can exceed what an Int64 holds, and converting it must not trap.
    private static func bytes(_ value: Double) -> Int64 {
        guard value.isFinite else { return value > 0 ? .max : 0 }
        let rounded = value.rounded(.up)
        return rounded >= 9.2e18 ? .max : Int64(max(0, rounded))
    }
}
