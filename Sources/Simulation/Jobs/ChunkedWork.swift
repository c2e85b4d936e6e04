import MigrationCore

/// How far a chunked step (a rebuild's copy, a backfill) is through its table: the rows
/// its committed batches did, against the rows its table had in the input before
/// anything ran (a `where` or an earlier step can make the real total smaller). The
/// progress lines of a run and the JUnit failure of a killed step say it the same way.
public struct ChunkedWork: Sendable, Equatable {
    /// `copy` for a rebuild, `backfill` for a backfill.
    public var activity: String
    public var table: String
    /// The table's rows in the input, when the input had the table.
    public var totalRows: Int64?

    /// The chunked work of `step`; nil for an `sql` step.
    public init?(_ step: Step, inputTables: [String: Int64]?) {
        switch step.action {
        case .rebuild(let rebuild): (activity, table) = ("copy", rebuild.table)
        case .backfill(let backfill): (activity, table) = ("backfill", backfill.table)
        case .sql: return nil
        }
        let tables = inputTables ?? [:]
        let table = self.table
        totalRows = tables[table] ?? tables.first { $0.key.lowercased() == table.lowercased() }?.value
    }

    /// `412,000/1,000,000 rows`, or `412,000 rows` when the total is not known.
    public func rows(_ rows: Int64) -> String {
        guard let totalRows, totalRows > 0 else { return "\(CountText.grouped(rows)) rows" }
        return "\(CountText.grouped(rows))/\(CountText.grouped(totalRows)) rows"
    }

    /// The share of the total that `rows` is, when the total is known.
    public func percent(_ rows: Int64) -> Int? {
        guard let totalRows, totalRows > 0 else { return nil }
        return CountText.percent(rows, of: totalRows)
    }

    /// `412,000/1,000,000 rows (41%)`, or `412,000 rows`.
    public func progress(rows: Int64) -> String {
        self.rows(rows) + (percent(rows).map { " (\($0)%)" } ?? "")
    }
}
