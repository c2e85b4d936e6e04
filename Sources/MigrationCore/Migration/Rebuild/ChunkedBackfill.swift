/// A `backfill` step: `UPDATE <table> SET <set> WHERE <where>` in key-ordered batches of
/// `batch_rows` rows that `where` keeps, each committed with a durable cursor, so that a launch killed in
/// the middle loses at most one batch. The version advances with the last batch: that
/// transaction also sets `user_version` and forgets the progress row.
///
/// The key is the rowid (the primary key of a WITHOUT ROWID table); `set` must not
/// change it, or a row could move past the cursor and be updated twice. Rows beyond the
/// high-water key (the greatest key when the backfill began) are not touched: nothing
/// inserts rows while the app migrates.
///
/// A half-done backfill of another definition cannot be taken back (its batches
/// committed); its cursor is forgotten and the new definition starts from the first key.
struct ChunkedBackfill: StepExecutor {
    let backfill: Backfill

    static let phase = ChunkPhase.backfill.rawValue

    func run(_ context: StepContext) throws(SQLiteError) -> StepWork {
        let connection = context.connection
        let store = ProgressStore(connection: connection)
        let own = try PendingWork.settle(context)
        let table = try TableSchema.require(backfill.table, connection)
        let ranges = try KeyRanges(table: table, rows: backfill.batchRows, connection: connection)
        var progress: ProgressStore.Progress
        if let own, own.phase == ChunkedBackfill.phase, own.definition == context.step.definitionHash {
            progress = own
        } else {
            if let own { try PendingWork.discard(own, connection) }
            progress = ProgressStore.Progress(
                step: context.step.version, definition: context.step.definitionHash, phase: ChunkedBackfill.phase,
                highWater: try ranges.lastKey())
        }
        let filter = backfill.filter.map { " AND (\($0))" } ?? ""
        context.phaseStarting(ChunkedBackfill.phase)
        var finished = false
        while !finished {
            var batch = progress
            let updated = try connection.chunkTransaction { () throws(SQLiteError) -> Bool in
                let end = try batch.highWater.flatMap { (highWater) throws(SQLiteError) in
                    try ranges.batchEnd(after: batch.cursor, through: highWater, keeping: backfill.filter)
                }
                if let end {
                    let (condition, values) = ranges.range(after: batch.cursor, through: end.key)
                    try ranges.statement(
                        "UPDATE \(table.quotedName) SET \(backfill.set) WHERE \(condition)\(filter)", holdsPlanText: true
                    ).run(values)
                    batch.rows += connection.changes
                    batch.batches += 1
                    batch.cursor = end.key
                }
                finished = end?.isLast ?? true
                if finished {
                    try store.clear(step: batch.step)
                    try context.stampVersion()
                } else {
                    try store.save(batch)
                }
                return end != nil
            }
            progress = batch
            if updated {
                try context.batchCommitted(
                    rows: progress.rows, batches: progress.batches, cursor: progress.cursor, phase: ChunkedBackfill.phase)
            }
        }
        try context.checkpoint(.afterLastBatch)
        return StepWork(costClass: .data, rows: progress.rows, batches: progress.batches)
    }
}
