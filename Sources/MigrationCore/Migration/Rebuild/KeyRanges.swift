/// Cuts a table into key ranges of at most `rows` rows, in key order, for the batches of
/// a chunked step. Statements are prepared once and reused for every batch.
final class KeyRanges {
    let key: RebuildKey
    let table: String
    let rows: Int
    private let connection: Connection
    private var prepared: [String: Statement] = [:]

    init(table schema: TableSchema, rows: Int, connection: Connection) throws(SQLiteError) {
        self.key = try RebuildKey(schema, connection)
        self.table = schema.quotedName
        self.rows = max(1, rows)
        self.connection = connection
    }

    /// Where a batch ends.
    struct End {
        /// The key of the batch's last row.
        var key: [SQLiteValue]
        /// True when fewer than `rows` keys were left, so that this batch is the last.
        var isLast: Bool
    }

    /// The table's greatest key, or nil when the table is empty.
    func lastKey() throws(SQLiteError) -> [SQLiteValue]? {
        try statement("SELECT \(key.selectList) FROM \(table) ORDER BY \(key.descending) LIMIT 1").rows().first
    }

    /// The end of the batch after `cursor` (from the first key when nil), going no further
    /// than `limit` (no bound when nil): the `rows`-th key of the rows `filter` keeps (the
    /// step's `where`, plan SQL; every row when nil), or the last such key when fewer are
    /// left. Nil when none is left. Counting only the kept rows keeps every batch at `rows`
    /// rows of work however few rows match: a backfill of the first tenth of a table
    /// commits ten batches, not a hundred of which ninety change nothing (and each commit
    /// costs its syncs).
    func batchEnd(after cursor: [SQLiteValue]?, through limit: [SQLiteValue]?, keeping filter: String?) throws(SQLiteError) -> End? {
        guard filter != nil, let limit else { return try end(after: cursor, through: limit, keeping: filter) }
        // A `where` that bounds the key itself (`id <= 100000`) is what lets SQLite seek to a
        // batch's end; with the limit beside it, SQLite keeps one of the two upper bounds and
        // scanned past the filter's to the limit (a backfill of the first tenth of a million
        // rows read the whole table twice in its last batch). So the filter alone first;
        // only a key past the limit (a row inserted after the step began) needs the bounded query.
        guard let end = try end(after: cursor, through: nil, keeping: filter) else { return nil }
        let within = "\(key.compared("=", parameters: 1)) AND \(key.compared("<=", parameters: 1 + key.width))"
        if try !statement("SELECT 1 FROM \(table) WHERE \(within)").rows(end.key + limit).isEmpty { return end }
        return try self.end(after: cursor, through: limit, keeping: filter)
    }

    private func end(after cursor: [SQLiteValue]?, through limit: [SQLiteValue]?, keeping filter: String?) throws(SQLiteError) -> End? {
        let (range, values) = range(after: cursor, through: limit)
        let condition = filter.map { "\(range) AND (\($0))" } ?? range
        let holdsPlanText = filter != nil
        if let end = try statement(
            "SELECT \(key.selectList) FROM \(table) WHERE \(condition) ORDER BY \(key.ascending) LIMIT 1 OFFSET \(rows - 1)",
            holdsPlanText: holdsPlanText
        ).rows(values).first {
            return End(key: end, isLast: false)
        }
        guard let last = try statement(
            "SELECT \(key.selectList) FROM \(table) WHERE \(condition) ORDER BY \(key.descending) LIMIT 1",
            holdsPlanText: holdsPlanText
        ).rows(values).first else { return nil }
        return End(key: last, isLast: true)
    }

    /// A condition that holds for the keys after `cursor` up to and including `end`
    /// (either bound left out when nil), with the values for its parameters, which are
    /// numbered from 1.
    func range(after cursor: [SQLiteValue]?, through end: [SQLiteValue]?) -> (sql: String, values: [SQLiteValue]) {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        if let cursor {
            conditions.append(key.compared(">", parameters: values.count + 1))
            values += cursor
        }
        if let end {
            conditions.append(key.compared("<=", parameters: values.count + 1))
            values += end
        }
        return (conditions.isEmpty ? "1" : conditions.joined(separator: " AND "), values)
    }

    /// `sql` prepared once, for statements that a loop runs for every batch;
    /// `holdsPlanText`: a step's fragments are spliced in, so it is plan SQL.
    func statement(_ sql: String, holdsPlanText: Bool = false) throws(SQLiteError) -> Statement {
        if let statement = prepared[sql] { return statement }
        let statement = try holdsPlanText ? connection.preparePlanStatement(sql) : connection.prepare(sql)
        prepared[sql] = statement
        return statement
    }
}
