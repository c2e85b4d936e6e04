import CSQLite

/// The transactions of a `rebuild` step (TableRebuild), in pages:
///
/// 1. create: the new table, its indexes (empty) and the progress row, one small
///    transaction;
/// 2. copy: `batch_rows` of the rows `where` keeps per transaction, appended to the new table in key
///    order; its indexes, its own UNIQUE and PRIMARY KEY ones and those the step gives it,
///    fill as the rows come, out of order;
/// 3. swap: one transaction renames both tables and their indexes and recreates the
///    triggers: schema entries only;
/// 4. purge: the old table is deleted in batches after the version bump, its rows in key
///    order and their entries out of order from its indexes. That is clean-up, measured
///    apart from the step (StepContext.beginCleanup), and it waits for a launch with room
///    when the disk is full; but it runs in the same launch, and in WAL mode its frames
///    are what checkpoints the copy's pages into the main file while the WAL is at its
///    largest, so it is played too.
///
/// The new rows are measured, not assumed: one query evaluates the step's `select` (and
/// `where`) over the old rows and sums the new rows' cells and every new index's entries,
/// with the new table's column affinities, found by creating its definition in a scratch
/// in-memory database. When that cannot be done, the new table and its indexes are taken
/// to be the old ones grown by half.
struct RebuildEstimate {
    let measure: TableMeasure
    let rebuild: Rebuild

    /// Adds the step's transactions to `model`; false when the old table does not exist.
    func run(in model: inout PagerModel) -> Bool {
        let connection = measure.connection
        guard let old = try? TableSchema.read(rebuild.table, connection) else { return false }
        let oldIndexes = (try? old.indexes(connection)) ?? []
        let oldSizes = oldIndexes.map { measure.size($0.name) }
        let indexes = rebuild.indexes ?? oldIndexes.map(\.sql)
        let triggers = rebuild.triggers ?? ((try? old.triggers(connection)) ?? []).map(\.sql)
        let new = newTable(old, indexes: indexes) ?? fallback(old, oldIndexes: oldSizes)
        model.transaction { load in
            // The schema entry, the progress row; the new roots.
            load.statement(journaled: true)
            load.writeSchema(1)
            load.appendSchema(
                Int64(rebuild.columns.utf8.count) + indexes.reduce(0) { $0 + Int64($1.utf8.count) }
                    + 64 * Int64(1 + new.automatic.count + new.built.count))
            load.write(1)
            load.allocate(2 + Int64(new.automatic.count + new.built.count))
        }
        let batches = max(1, (new.rows + Int64(max(1, rebuild.batchRows)) - 1) / Int64(max(1, rebuild.batchRows)))
        model.transactions(batches) { load, batch, count in
            load.statement(journaled: true)
            // The progress row, and the new table's last leaf and its parents.
            load.write(4)
            load.allocate(PagerModel.share(new.tablePages, batch, count))
            for index in new.automatic + new.built {
                let entries = PagerModel.share(index.entries, batch, count)
                load.write(min(entries, index.pages * batch / count))
                load.allocate(PagerModel.share(index.pages, batch, count))
            }
        }
        model.transaction { load in
            // Every statement of the swap changes schema entries; the renames rewrite
            // every entry that names the tables or their indexes.
            load.statement(journaled: true)
            load.writeSchema(Int64.max)
            // The recreated triggers get new entries, at the end.
            load.appendSchema(triggers.reduce(0) { $0 + Int64($1.utf8.count) + 64 })
            // The progress row.
            load.statement(journaled: false)
            load.write(1)
        }
        // The old table's leaves are taken to be as many as the new one's: it is not
        // walked (see `newTable`).
        model.transactions(batches) { load, batch, count in
            load.statement(journaled: true)
            load.write(2 + PagerModel.share(new.tablePages, batch, count))
            let entries = PagerModel.share(new.rows, batch, count)
            for size in oldSizes { load.write(min(entries, size.pages)) }
        }
        return true
    }

    /// A b-tree the step fills: its entries, their bytes and pages.
    private struct Tree {
        var entries: Int64
        var bytes: Int64
        var pages: Int64
    }

    private struct NewTable {
        /// Rows the copy writes (those `where` keeps), `batch_rows` of them per batch.
        var rows: Int64
        var tablePages: Int64
        /// Indexes of the new table's own constraints, filled by the copy.
        var automatic: [Tree]
        /// Indexes the step gives the table (its plan's or the old table's), filled by the
        /// copy too.
        var built: [Tree]
    }

    /// The new table and its indexes (`indexes`: their CREATE statements), measured.
    private func newTable(_ old: TableSchema, indexes: [String]) -> NewTable? {
        guard let scratch = try? Connection(path: ":memory:"),
            (try? scratch.runPlanStatement(
                "CREATE TABLE \(old.quotedName)(\(rebuild.columns))\(rebuild.options.map { " " + $0 } ?? "")")) != nil,
            let columns = try? scratch.rows(
                "SELECT cid, type, hidden, pk FROM pragma_table_xinfo(?) ORDER BY cid", [.text(old.name)]),
            let newSchema = try? TableSchema.read(old.name, scratch)
        else { return nil }
        let automatic = (try? scratch.rows(
            "SELECT name FROM pragma_index_list(?) WHERE origin <> 'c'", [.text(old.name)]))?.compactMap { $0[0].textValue } ?? []
        for sql in indexes { try? scratch.runPlanStatement(sql) }
        let built = (try? scratch.rows(
            "SELECT name FROM pragma_index_list(?) WHERE origin = 'c'", [.text(old.name)]))?.compactMap { $0[0].textValue } ?? []
        // The value of each stored column: c<n>, the select's n-th term, as the column stores it.
        var value: [Int64: String] = [:]
        var primaryKey: [String] = []
        for row in columns where (row[2].integerValue ?? 0) == 0 {
            let bytes = TableMeasure.bytes("c\(value.count)", TableMeasure.Affinity(declared: row[1].textValue ?? ""))
            if (row[3].integerValue ?? 0) > 0 { primaryKey.append(bytes) }
            value[row[0].integerValue ?? -1] = bytes
        }
        let width = value.count
        guard (try? measure.connection.preparePlanStatement("SELECT \(rebuild.select) FROM \(old.quotedName) LIMIT 0"))?.columnCount == width
        else { return nil }
        let record = TableMeasure.record(value.keys.sorted().compactMap { value[$0] })
        // A new rowid table numbers its rows afresh, about the old rowids' size.
        let rowid = newSchema.withoutRowid ? nil : "_rowid"
        let tail = newSchema.withoutRowid ? primaryKey : [TableMeasure.bytes("_rowid")]
        var terms = ["_keep", "_keep * \(TableMeasure.cell(record, rowid: rowid))"]
        for index in automatic + built {
            let keys = (try? scratch.rows(
                "SELECT cid FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", [.text(index)])) ?? []
            // An expression or a generated column: no larger than the row, as a bound.
            let values = keys.map { key in
                let cid = key[0].integerValue ?? -2
                return cid == -1 ? TableMeasure.bytes("_rowid") : value[cid] ?? record
            }
            terms.append("_keep * \(TableMeasure.cell(TableMeasure.record(values + tail), rowid: nil))")
        }
        let names = (0..<width).map { "c\($0)" } + ["_rowid", "_keep"]
        let oldRowid = old.rowidAlias.map { "\(old.quotedName).\($0)" } ?? "NULL"
        let keep = rebuild.filter.map { "CASE WHEN (\($0)) THEN 1 ELSE 0 END" } ?? "1"
        // The old table is not walked (dbstat, count(*)): the estimate runs under the
        // watchdog, and its rows are only read, by the copy, batch by batch.
        guard let (total, sums) = measure.sums(terms, table: old, total: nil, columns: names, rows: { sample in
            "SELECT \(rebuild.select), \(oldRowid), \(keep) FROM \(old.quotedName) WHERE \(sample)"
        }) else { return nil }
        let kept = max(1, min(total, sums[0]))
        func tree(_ bytes: Int64, fill: Double) -> Tree {
            Tree(entries: kept, bytes: bytes, pages: measure.pages(bytes, fill: fill, dividerBytes: bytes / kept + 4))
        }
        let indexes = sums.dropFirst(2).map { tree($0, fill: TableMeasure.Fill.random) }
        return NewTable(
            rows: kept,
            tablePages: measure.pages(sums[1], fill: newSchema.withoutRowid ? TableMeasure.Fill.random : TableMeasure.Fill.appended),
            automatic: Array(indexes.prefix(automatic.count)),
            built: indexes.dropFirst(automatic.count).map { tree($0.bytes, fill: TableMeasure.Fill.appended) })
    }

    private func fallback(_ old: TableSchema, oldIndexes: [TableMeasure.TreeSize]) -> NewTable {
        let oldTree = measure.size(old.name)
        return NewTable(
            rows: oldTree.cells, tablePages: oldTree.pages * 3 / 2 + 1, automatic: [],
            built: oldIndexes.map { Tree(entries: $0.cells, bytes: $0.usedBytes * 3 / 2, pages: $0.pages * 3 / 2 + 1) })
    }
}
