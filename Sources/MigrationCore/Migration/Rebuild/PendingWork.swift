/// What a chunked step finds left in the database before it begins, and how it is
/// settled: a rebuild's purge that a killed launch left is finished (its step is applied
/// already), half-done work of another step or of another definition is discarded in one
/// transaction, and the step's own half-done work is handed back to resume.
enum PendingWork {
    /// Settles everything that is not `context`'s own step and returns that step's progress.
    static func settle(_ context: StepContext) throws(SQLiteError) -> ProgressStore.Progress? {
        let connection = context.connection
        let store = ProgressStore(connection: connection)
        while let pending = try store.pending() {
            if pending.phase == TableRebuild.purgePhase {
                try TableRebuild.finishPendingPurge(
                    connection: connection, plan: context.plan,
                    checkpoint: { (point) throws(SQLiteError) in try context.checkpoint(point) })
            } else if pending.step == context.step.version {
                return pending
            } else {
                try discard(pending, connection)
            }
        }
        return nil
    }

    /// Drops a half-done rebuild's new table and forgets the progress, in one transaction,
    /// leaving the database as it was before the work began. (A half-done backfill's
    /// updates cannot be taken back: forgetting its cursor makes the next one start over.)
    static func discard(_ pending: ProgressStore.Progress, _ connection: Connection) throws(SQLiteError) {
        try connection.chunkTransaction { () throws(SQLiteError) in
            for table in try connection.rows(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE ? ESCAPE '\\'",
                [.text(SQLText.likePattern(startingWith: TableRebuild.newPrefix))])
            {
                if let table = table[0].textValue { try connection.execute("DROP TABLE \(SQLText.quote(table))") }
            }
            try ProgressStore(connection: connection).clear(step: pending.step)
        }
    }
}
