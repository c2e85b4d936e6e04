import CSQLite

/// Empties and drops the table a rebuild renamed out of the way, after the version bump.
///
/// The swap keeps the old table whole until `user_version` says N (an app rolled back to
/// version N-1 still finds every row). Dropping it at once would be one transaction as
/// large as the table: with `secure_delete` on (Android, Debian) every freed page is
/// overwritten, about a second per 110 MB here. So its rows go in batches of
/// `batchRowsMultiple` times the step's `batch_rows`, each batch its own transaction with
/// the cursor, and the table, down to less than one batch by then, is dropped in the
/// last small transaction together with the step's progress row.
///
/// The database is already at version N while this runs: a launch killed here leaves a
/// `purge` progress row, and the next launch finishes it (`TableRebuild.finishPendingPurge`)
/// before it runs another step. Only `_preflight_*` objects change, which verification
/// ignores, so a finished purge leaves exactly what an uninterrupted run leaves.
struct OldTablePurge {
    /// Prefix of the name the swap gives the old table.
    static let prefix = ProgressStore.internalPrefix + "old_"

    /// Rows per purge transaction, as a multiple of the step's `batch_rows`. Every commit
    /// has a fixed price (its syncs: about 2 ms with a rollback journal here, as much as
    /// deleting 1,000 rows), and the purge, coming after the bump, only has to stay small
    /// next to the watchdog, not as small as a copy batch. `preflight-bench rebuild`
    /// (1,000,000 rows, batch_rows 2,000, rollback journal): about 2.0-2.4x the
    /// one-transaction change with purge batches of 1x, 1.7-1.9x with 5x; 20x gained
    /// nothing more.
    static let batchRowsMultiple = 5

    let connection: Connection
    /// The renamed old table.
    let table: String
    /// The step's `batch_rows`.
    let batchRows: Int

    /// Deletes the first `batchRows * batchRowsMultiple` rows in each transaction until
    /// fewer are left, then drops the table and forgets `progress`'s step. `onBatch` hears
    /// of each committed batch, with the progress then durable.
    func run(
        progress: inout ProgressStore.Progress, onBatch: (ProgressStore.Progress) throws(SQLiteError) -> Void
    ) throws(SQLiteError) {
        let store = ProgressStore(connection: connection)
        guard let schema = try TableSchema.read(table, connection) else {
            // Dropped by a transaction whose progress row was cleared with it: nothing left.
            try connection.chunkTransaction { () throws(SQLiteError) in try store.clear(step: progress.step) }
            return
        }
        let ranges = try KeyRanges(table: schema, rows: batchRows * Self.batchRowsMultiple, connection: connection)
        var finished = false
        while !finished {
            var batch = progress
            try connection.chunkTransaction { () throws(SQLiteError) in
                let end = try ranges.batchEnd(after: nil, through: nil, keeping: nil)
                guard let end, !end.isLast else {
                    // Less than one batch left: dropping it is a batch's worth of work.
                    try connection.execute("DROP TABLE \(schema.quotedName)")
                    try store.clear(step: progress.step)
                    finished = true
                    if let end { batch.cursor = end.key; batch.batches += 1 }
                    return
                }
                let (condition, values) = ranges.range(after: nil, through: end.key)
                try ranges.statement("DELETE FROM \(schema.quotedName) WHERE \(condition)").run(values)
                batch.cursor = end.key
                batch.batches += 1
                try store.save(batch)
            }
            progress = batch
            try onBatch(progress)
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
