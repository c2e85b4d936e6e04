import CSQLite

/// Empties and drops the table a rebuild renamed out of the way, after the version bump.
///
/// The swap keeps the old table whole until `user_version` says N (an app rolled back to
/// version N-1 still finds every row). Dropping it at once would be one transaction as
/// large as the table: with `secure_delete` on (Android, Debian) every freed page is
/// journaled and overwritten, so its journal needs as much free disk as the table, on a
/// disk the new table has just filled further, and a watchdog kill in it is rolled back
/// at the next open and comes back at every launch. So its rows go as the copy's came:
/// `batch_rows` keys per transaction, in key order, each committed with the cursor. That
/// is the work the user sized to fit a launch, and no transaction of the purge does more:
/// each batch's rows leave the old table's indexes as they leave the table, and the table
/// is dropped only once it is empty, in the last transaction, together with the step's
/// progress row (a DROP of an empty table frees its indexes' and its own root pages and
/// nothing else).
///
/// The database is already at version N while this runs: a launch killed here leaves a
/// `purge` progress row, and the next launch finishes it (`TableRebuild.finishPendingPurge`)
/// before it runs another step. Only `_preflight_*` objects change, which verification
/// ignores, so a finished purge leaves exactly what an uninterrupted run leaves.
struct OldTablePurge {
    /// Prefix of the name the swap gives the old table.
    static let prefix = ProgressStore.internalPrefix + "old_"

    let connection: Connection
    /// The renamed old table.
    let table: String
    /// The step's `batch_rows`: the keys each transaction deletes, at most.
    let batchRows: Int

    /// Deletes the rows after `progress`'s cursor in transactions of `batchRows` keys, then
    /// drops the emptied table and forgets `progress`'s step. `progress.rows` and
    /// `progress.batches` count the purge's own rows and transactions. `checkpoint` is
    /// asked inside every transaction before its COMMIT (`.insidePurge`) and after every
    /// commit (`.purgeBatchCommitted`), and throws `SQLiteError.abandoned` to stop there;
    /// `onBatch` hears of each committed transaction, with the progress then durable.
    func run(
        progress: inout ProgressStore.Progress, checkpoint: (MigrationCheckpoint) throws(SQLiteError) -> Void,
        onBatch: (ProgressStore.Progress) throws(SQLiteError) -> Void
    ) throws(SQLiteError) {
        let store = ProgressStore(connection: connection)
        guard let schema = try TableSchema.read(table, connection) else {
            // Dropped by a transaction whose progress row was cleared with it: nothing left.
            try connection.chunkTransaction { () throws(SQLiteError) in try store.clear(step: progress.step) }
            return
        }
        let ranges = try KeyRanges(table: schema, rows: batchRows, connection: connection)
        var finished = false
        while !finished {
            var batch = progress
            try connection.chunkTransaction { () throws(SQLiteError) in
                // Rows up to the cursor are gone (nothing inserts into the old table), so
                // the range after it is the table's first `batchRows` keys.
                let end = try ranges.batchEnd(after: batch.cursor, through: nil, keeping: nil)
                if let end {
                    let (condition, values) = ranges.range(after: batch.cursor, through: end.key)
                    try ranges.statement("DELETE FROM \(schema.quotedName) WHERE \(condition)").run(values)
                    batch.rows += connection.changes
                    batch.cursor = end.key
                }
                batch.batches += 1
                finished = end?.isLast ?? true
                if finished {
                    try connection.execute("DROP TABLE \(schema.quotedName)")
                    try store.clear(step: batch.step)
                } else {
                    try store.save(batch)
                }
                try checkpoint(.insidePurge)
            }
            progress = batch
            try onBatch(progress)
            try checkpoint(.purgeBatchCommitted)
        }
    }

    /// The renamed old tables in the database (one at most, unless something else went wrong).
    static func leftoverTables(_ connection: Connection) throws(SQLiteError) -> [String] {
        try connection.rows(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE ? ESCAPE '\\' ORDER BY name",
            [.text(SQLText.likePattern(startingWith: prefix))]
        ).compactMap { $0[0].textValue }
    }
}
