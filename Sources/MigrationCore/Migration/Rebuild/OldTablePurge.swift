import CSQLite

/// Empties and drops the table a rebuild renamed out of the way, after the version bump.
///
/// The swap keeps the old table whole until `user_version` says N (an app rolled back to
/// version N-1 still finds every row). Dropping it at once would be one transaction as
/// large as the table: with `secure_delete` on (Android, Debian) every freed page is
/// journaled and overwritten, so its journal needs as much free disk as the table (117 MB
/// for a 131 MB file here) on a disk the new table has just filled further, and a kill
/// in it comes back at every launch. So its rows go in transactions that each free about
/// `batchBytes`, each with the cursor, and what is left once less than that remains is
/// dropped in the last transaction together with the step's progress row: a `DROP`
/// frees pages without deleting row by row, which by hand took 450 ms for the million
/// rows that 100 committed deletes of 10,000 took 780 ms for.
///
/// How many rows free `batchBytes` is measured, not assumed: the first transactions
/// delete `batchRowsMultiple` times the step's `batch_rows`, and the pages freed so far
/// (the file's pages in use before and after each delete) size the transactions after them.
///
/// The database is already at version N while this runs: a launch killed here leaves a
/// `purge` progress row, and the next launch finishes it (`TableRebuild.finishPendingPurge`)
/// before it runs another step. Only `_preflight_*` objects change, which verification
/// ignores, so a finished purge leaves exactly what an uninterrupted run leaves.
struct OldTablePurge {
    /// Prefix of the name the swap gives the old table.
    static let prefix = ProgressStore.internalPrefix + "old_"

    /// The bytes of pages one purge transaction frees, about: the free disk its journal
    /// needs (with `secure_delete`, each freed page is journaled and zeroed), and what the
    /// last one drops at most. 16 MiB: next to the copy's own need (the whole new table) a
    /// small share, and on a phone's flash a fraction of a second, far inside its watchdog;
    /// every commit has a fixed price (its syncs, about 2 ms with a rollback journal on the
    /// earlier development machine), which batches of 10,000 of the benchmark's rows
    /// (1.3 MB) paid 100 times.
    static let batchBytes: Int64 = 16 << 20

    /// Rows of the first transactions, which measure the pages a row frees, as a multiple
    /// of the step's `batch_rows`; never fewer in any transaction.
    static let batchRowsMultiple = 5

    /// Freed pages that make a measurement: fewer, and a page or two's rounding would
    /// size the transactions after them many times too large.
    static let measuredPages: Int64 = 64

    let connection: Connection
    /// The renamed old table.
    let table: String
    /// The step's `batch_rows`.
    let batchRows: Int

    /// Deletes rows in transactions of about `batchBytes` until less than that is left,
    /// then drops the table and forgets `progress`'s step. `onBatch` hears of each
    /// committed batch, with the progress then durable.
    func run(
        progress: inout ProgressStore.Progress, onBatch: (ProgressStore.Progress) throws(SQLiteError) -> Void
    ) throws(SQLiteError) {
        let store = ProgressStore(connection: connection)
        guard let schema = try TableSchema.read(table, connection) else {
            // Dropped by a transaction whose progress row was cleared with it: nothing left.
            try connection.chunkTransaction { () throws(SQLiteError) in try store.clear(step: progress.step) }
            return
        }
        let leastRows = max(1, batchRows * Self.batchRowsMultiple)
        let pageSize = max(512, try connection.integer("PRAGMA page_size"))
        var freed = (rows: Int64(0), pages: Int64(0))
        var ranges = try KeyRanges(table: schema, rows: leastRows, connection: connection)
        var finished = false
        while !finished {
            var batch = progress
            let pagesFreed = try connection.chunkTransaction { () throws(SQLiteError) -> Int64 in
                let end = try ranges.batchEnd(after: nil, through: nil, keeping: nil)
                guard let end, !end.isLast else {
                    // Less than one batch left: dropping it is a batch's worth of work.
                    try connection.execute("DROP TABLE \(schema.quotedName)")
                    try store.clear(step: progress.step)
                    finished = true
                    if let end { batch.cursor = end.key; batch.batches += 1 }
                    return 0
                }
                let inUse = try pagesInUse()
                let (condition, values) = ranges.range(after: nil, through: end.key)
                try ranges.statement("DELETE FROM \(schema.quotedName) WHERE \(condition)").run(values)
                batch.cursor = end.key
                batch.batches += 1
                try store.save(batch)
                return inUse - (try pagesInUse())
            }
            progress = batch
            try onBatch(progress)
            guard !finished else { break }
            freed = (freed.rows + Int64(ranges.rows), freed.pages + pagesFreed)
            if freed.pages >= Self.measuredPages {
                let rows = Self.batchBytes / pageSize * freed.rows / freed.pages
                let sized = Int(clamping: max(Int64(leastRows), rows))
                if sized != ranges.rows { ranges = try KeyRanges(table: schema, rows: sized, connection: connection) }
            }
        }
    }

    /// The file's pages that hold something: a page a delete frees joins the freelist (with
    /// auto_vacuum too, until the commit moves it out of the file), so the difference
    /// across the delete, inside its transaction, is the pages it freed.
    private func pagesInUse() throws(SQLiteError) -> Int64 {
        try connection.integer("PRAGMA page_count") - connection.integer("PRAGMA freelist_count")
    }

    /// The renamed old tables in the database (one at most, unless something else went wrong).
    static func leftoverTables(_ connection: Connection) throws(SQLiteError) -> [String] {
        try connection.rows(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE ? ESCAPE '\\' ORDER BY name",
            [.text(SQLText.likePattern(startingWith: prefix))]
        ).compactMap { $0[0].textValue }
    }
}
