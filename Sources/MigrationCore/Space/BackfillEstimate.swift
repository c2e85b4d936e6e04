/// The transactions of a `backfill` step (ChunkedBackfill): `batch_rows` of the rows
/// `where` keeps per transaction, each rewritten in place (RowUpdate), with the progress
/// row and page 1.
struct BackfillEstimate {
    let measure: TableMeasure
    let backfill: Backfill

    /// Adds the step's transactions to `model`; false when the table does not exist.
    func run(in model: inout PagerModel) -> Bool {
        guard let table = try? TableSchema.read(backfill.table, measure.connection) else { return false }
        let sql = "UPDATE \(table.quotedName) SET \(backfill.set)"
        var change = RowUpdate(
            table: table.name, tree: measure.size(table.name),
            indexes: ((try? measure.connection.rows("SELECT name FROM pragma_index_list(?)", [.text(table.name)])) ?? [])
                .compactMap { $0[0].textValue }.map { ($0, measure.size($0)) },
            usable: measure.files.usableSize)
        if let assignments = SQLClauses(sql).updateDefinition()?.assignments {
            change.measure(
                measure, file: table, shape: measure.connection, source: table.quotedName, assignments: assignments,
                condition: backfill.filter)
        }
        let journaled = TransactionPages.opensStatementJournal(
            try? measure.connection.planRows("EXPLAIN " + sql + (backfill.filter.map { " WHERE " + $0 } ?? "")))
        let batchRows = Int64(max(1, backfill.batchRows))
        let matched = max(1, change.matched)
        // A batch's rows lie among that share of the keys: the sparser the matches, the
        // more of the table's pages one batch touches.
        let keysPerBatch = (batchRows * max(1, change.tree.cells) + matched - 1) / matched
        model.transactions(max(1, (matched + batchRows - 1) / batchRows)) { load, batch, count in
            load.statement(journaled: journaled)
            change.add(to: &load, batches: count, batch: batch, batchKeys: keysPerBatch)
            // The progress row.
            load.write(1)
        }
        return true
    }
}
