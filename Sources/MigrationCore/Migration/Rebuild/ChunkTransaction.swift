import CSQLite

extension Connection {
    /// Runs `body` inside `BEGIN IMMEDIATE` ... `COMMIT`: one batch of a chunked step, or
    /// its create or swap transaction. Any error rolls back (after SQLITE_FULL SQLite may
    /// have rolled back only the statement) — except `SQLiteError.abandoned` (the hooks
    /// stopped the step), which must leave the transaction open as a real kill would, for
    /// the closing connection to roll back.
    func chunkTransaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if error != .abandoned { rollbackIfNeeded() }
            throw error
        }
    }

    /// Rows the last INSERT, UPDATE or DELETE changed itself (`sqlite3_changes`: rows
    /// changed by triggers it fired are not counted, unlike `totalChanges`). The 32-bit
    /// call, as every engine has it (`sqlite3_changes64` is 3.37); one chunk is far below its limit.
    var changes: Int64 { Int64(sqlite3_changes(handle)) }
}
