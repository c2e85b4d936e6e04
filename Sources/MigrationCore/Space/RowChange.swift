import CSQLite

/// Rows changed in place by an UPDATE or a backfill: how many, how much they grow, and
/// the indexes whose entries change with them.
struct RowChange {
    struct IndexChange {
        var name: String
        var pages: Int64
        var usedBytes: Int64
        /// Bytes the index's entries grow by in total.
        var growth: Int64
    }

    var table: String
    var tablePages: Int64
    var tableUsedBytes: Int64
    var tableRows: Int64
    /// Rows that match.
    var rows: Int64
    /// Bytes the matching rows grow by in total (what shrinks is not given back).
    var growth: Int64
    var indexes: [IndexChange]
    let usable: Int64

    /// Measures `UPDATE source SET assignments WHERE condition` with one scan: the rows it
    /// matches and, per row, the new record's size less the old one's.
    static func measure(
        _ probe: SpaceProbe, table: SpaceProbe.Table, shapes: Connection, assignments: [(column: String, value: String)],
        source: String, condition: String?, with: String?, sample: SpaceProbe.Sample? = nil
    ) throws(SQLiteError) -> RowChange {
        let columns = Dictionary(table.columns.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var assigned: [String: String] = [:]
        var rowDelta: [String] = []
        for (name, value) in assignments {
            guard let column = columns[name.lowercased()] else {
                throw SQLiteError(code: SQLITE_ERROR, message: "no such column: \(name)")
            }
            let stored = SpaceProbe.stored("(\(value))", in: column)
            assigned[name.lowercased()] = stored
            rowDelta.append(
                "\(RecordSizeFunctions.recordSize)(\(stored)) - \(RecordSizeFunctions.recordSize)(\(SQLText.quote(column.name)))")
        }
        var terms = ["count(*)", "sum(\(rowDelta.joined(separator: " + ")))"]
        var changed: [SpaceProbe.Index] = []
        for index in try SpaceProbe.indexes(of: table.name, in: shapes) {
            guard let keyColumns = index.keyColumns else {
                // An expression key may use any column: it changes with the row.
                changed.append(index)
                terms.append("sum(\(rowDelta.joined(separator: " + ")))")
                continue
            }
            guard keyColumns.contains(where: { assigned[$0.lowercased()] != nil }) else { continue }
            let old = SpaceProbe.entryArguments(index, of: table)
            var newIndex = index
            newIndex.keys = keyColumns.map { assigned[$0.lowercased()] ?? SQLText.quote($0) }
            let new = SpaceProbe.entryArguments(newIndex, of: table)
            changed.append(index)
            terms.append(
                "sum(\(RecordSizeFunctions.recordSize)(\(new.joined(separator: ", "))) - \(RecordSizeFunctions.recordSize)(\(old.joined(separator: ", "))))")
        }
        let conditions = [sample?.condition, condition.map { "(\($0))" }].compactMap { $0 }
        var sums = try probe.measure(
            "\(with.map { $0 + " " } ?? "")SELECT \(terms.joined(separator: ", ")) FROM \(source)\(conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))")
        if let sample, let count = sums.first {
            // Growth scaled from the sample; what shrinks counts as nothing.
            sums = [sample.rows(count)] + sums.dropFirst().map { sample.bytes(max(0, $0), over: count) }
        }
        let size = try probe.sizes.size(of: table.name)
        var indexChanges: [IndexChange] = []
        for (offset, index) in changed.enumerated() {
            let indexSize = try probe.sizes.size(of: index.name)
            indexChanges.append(IndexChange(
                name: index.name, pages: indexSize.pages, usedBytes: indexSize.usedBytes,
                growth: max(0, sums.count > offset + 2 ? sums[offset + 2] : 0)))
        }
        return RowChange(
            table: table.name, tablePages: size.pages, tableUsedBytes: size.usedBytes, tableRows: size.cells,
            rows: sums.first ?? 0, growth: max(0, sums.count > 1 ? sums[1] : 0), indexes: indexChanges,
            usable: probe.geometry.usableSize)
    }

    /// The bound when the statement cannot be taken apart: every row doubles, every index
    /// is rewritten and doubles too.
    static func everyRowDoubles(
        _ probe: SpaceProbe, table: SpaceProbe.Table, shapes: Connection
    ) throws(SQLiteError) -> RowChange {
        let size = try probe.sizes.size(of: table.name)
        var indexes: [IndexChange] = []
        for index in try SpaceProbe.indexes(of: table.name, in: shapes) {
            let indexSize = try probe.sizes.size(of: index.name)
            indexes.append(IndexChange(
                name: index.name, pages: indexSize.pages, usedBytes: indexSize.usedBytes, growth: indexSize.usedBytes))
        }
        return RowChange(
            table: table.name, tablePages: size.pages, tableUsedBytes: size.usedBytes, tableRows: size.cells,
            rows: size.cells, growth: size.usedBytes, indexes: indexes, usable: probe.geometry.usableSize)
    }

    /// Leaf pages the matching rows sit on.
    var touchedPages: Int64 {
        guard tablePages > 0, rows > 0 else { return 0 }
        return min(tablePages, rows * (1 + tablePages / max(1, tableRows)) + 2)
    }

    /// Pages the table grows by. A page splits only when its rows outgrow its free space:
    /// if the growth spread over the touched pages fits their free space, at most one
    /// split per page the growth could fill; otherwise the touched pages refilled with
    /// their rows grown, at the fill that in-place growth leaves (PageFill.grown).
    var newTablePages: Int64 {
        guard growth > 0, tablePages > 0 else { return 0 }
        let touched = touchedPages
        let used = Double(tableUsedBytes) * Double(touched) / Double(tablePages)
        let refilled = Int64(((used + Double(growth)) / (Double(usable) * PageFill.grown)).rounded(.up)) - touched
        let freePerPage = max(1, Double(usable - 8) - used / Double(touched))
        let splits = Int64((Double(growth) / freePerPage).rounded(.up)) + 1
        return max(0, min(refilled, splits))
    }

    /// Adds batch `batch` of `batches` (1 for one UPDATE) to `load`: its share of the
    /// rows, of the pages they sit on and of the growth. Pages rewritten count once per
    /// transaction (rounded up: the journal's peak); pages allocated add up over the
    /// batches, so each batch gets its exact share of the growth.
    func add(to load: inout TransactionLoad, batches: Int64, batch: Int64) {
        let count = max(1, batches)
        func perBatch(_ total: Int64) -> Int64 { (total + count - 1) / count }
        func grownShare(_ total: Int64) -> Int64 { SpaceSimulation.share(total, batch, count) }
        load.rewrite(perBatch(touchedPages) + (count > 1 ? 2 : 0), of: table)
        load.allocate(grownShare(newTablePages))
        let rowsPerBatch = perBatch(rows)
        for index in indexes where rowsPerBatch > 0 {
            // Each changed entry is deleted from one page and inserted into another.
            load.rewrite(min(index.pages, 2 * rowsPerBatch), of: index.name)
            let fraction = Double(rows) / Double(max(1, tableRows))
            let needed = ((Double(index.usedBytes) * min(1, fraction) + Double(index.growth))
                / (Double(usable) * PageFill.random)).rounded(.up)
            let grown = max(0, Int64(needed) - Int64((Double(index.pages) * min(1, fraction)).rounded(.down)))
            load.allocate(grownShare(grown))
        }
    }
}
