/// The transactions of a `backfill` step (ChunkedBackfill): `batch_rows` keys per
/// transaction, each row rewritten in place with its new values. The rows' growth is
/// measured by one scan that evaluates `set` over the rows `where` matches.
struct BackfillLoad {
    let probe: SpaceProbe
    let backfill: Backfill

    /// Adds the step's transactions to `simulation`; false when the table is missing.
    func run(in simulation: inout SpaceSimulation) throws(SQLiteError) -> Bool {
        guard let table = try SpaceProbe.table(backfill.table, in: probe.connection) else { return false }
        let update = "UPDATE \(table.quotedName) SET \(backfill.set)"
        let change: RowChange
        if let definition = SQLClauses(update).updateDefinition(),
            let measured = try? RowChange.measure(
                probe, table: table, shapes: probe.connection, assignments: definition.assignments, source: table.quotedName,
                condition: backfill.filter, with: nil,
                sample: try probe.sample(of: table, rows: try probe.rowCount(table.name)))
        {
            change = measured
        } else {
            change = try RowChange.everyRowDoubles(probe, table: table, shapes: probe.connection)
        }
        let journaled = probe.usesStatementJournal(update + (backfill.filter.map { " WHERE " + $0 } ?? ""), .update)
        let batchRows = Int64(max(1, backfill.batchRows))
        let batches = max(1, (change.tableRows + batchRows - 1) / batchRows)
        simulation.transactions(batches) { load, batch, count in
            load.statement(journaled: journaled)
            change.add(to: &load, batches: count, batch: batch)
            // The progress row and page 1.
            load.touch(2)
        }
        return true
    }
}
