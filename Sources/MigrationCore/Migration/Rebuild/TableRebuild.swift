import CSQLite

/// A `rebuild` step: SQLite's generalized ALTER TABLE ("Making Other Kinds Of Table
/// Schema Changes", https://www.sqlite.org/lang_altertable.html#otheralter) done in small
/// committed batches, so that a launch killed in the middle loses at most one batch.
///
/// The documented procedure is one transaction whose copy and DROP grow with the table.
/// Here every transaction of the rows is bounded by the step's `batch_rows` (the work the
/// user sized to fit a launch under its watchdog), and each records where the step stands
/// in the step's `_preflight_progress` row, in the same transaction as the work it
/// describes:
///
/// 1. create: `_preflight_new_<table>` from `columns` and `options`, with the new
///    table's indexes under provisional names (`_preflight_newidx_<index>`), and the
///    high-water key (the old table's greatest key when the copy began); phase `copy`.
/// 2. copy: `batch_rows` keys per transaction, in key order; the cursor is the last key
///    a committed batch covered. Each batch adds its rows to the new indexes too: an index
///    built at the swap would sort the whole table in one transaction.
/// 3. swap: one `BEGIN IMMEDIATE` transaction renames the old table out of the way
///    (`_preflight_old_<table>`, intact until the version bump, its indexes renamed to
///    `_preflight_oldidx_<index>`) and the new one and its indexes into place, recreates
///    triggers, carries the AUTOINCREMENT counter, checks views and foreign keys and sets
///    `user_version`; phase `purge`. Nothing in it grows with the table.
/// 4. purge: after the bump, the old table is emptied in batches of `batch_rows` keys and
///    dropped once empty, its indexes with it (`OldTablePurge`).
///
/// Each part is announced (`phase_started`), so that a launch killed in it can be told
/// where it died.
///
/// Resuming: the same step with the same definition continues from its cursor; half-done
/// work of another definition is discarded in one transaction and the step starts over.
struct TableRebuild: StepExecutor {
    let rebuild: Rebuild

    static let createPhase = ChunkPhase.create.rawValue
    static let copyPhase = ChunkPhase.copy.rawValue
    static let swapPhase = ChunkPhase.swap.rawValue
    static let purgePhase = ChunkPhase.purge.rawValue
    /// Prefix of the name the new table has until the swap.
    static let newPrefix = ProgressStore.internalPrefix + "new_"
    /// Prefixes of the names the new table's indexes have until the swap, and the old
    /// table's after it.
    static let newIndexPrefix = ProgressStore.internalPrefix + "newidx_"
    static let oldIndexPrefix = ProgressStore.internalPrefix + "oldidx_"

    func run(_ context: StepContext) throws(SQLiteError) -> StepWork {
        let connection = context.connection
        let own = try PendingWork.settle(context)
        let old = try TableSchema.require(rebuild.table, connection)
        let newName = TableRebuild.newPrefix + old.name
        var progress: ProgressStore.Progress
        if let own, own.phase == TableRebuild.copyPhase, own.definition == context.step.definitionHash,
            try TableSchema.read(newName, connection) != nil
        {
            progress = own
        } else {
            if let own { try PendingWork.discard(own, connection) }
            context.phaseStarting(TableRebuild.createPhase)
            progress = try create(newName, from: old, context)
        }
        context.phaseStarting(TableRebuild.copyPhase)
        try copy(into: newName, from: old, progress: &progress, context)
        let copied = (rows: progress.rows, batches: progress.batches)
        context.phaseStarting(TableRebuild.swapPhase)
        let swapMs = try swap(newName, replacing: old, progress: &progress, context)
        // The step is applied; what follows is clean-up, measured apart from the step.
        var work = StepWork(costClass: .rewrite, swapMs: swapMs, space: context.beginCleanup())
        context.phaseStarting(TableRebuild.purgePhase)
        do {
            try OldTablePurge(
                connection: connection, table: OldTablePurge.prefix + old.name, batchRows: rebuild.batchRows
            ).run(progress: &progress, checkpoint: { (point) throws(SQLiteError) in try context.checkpoint(point) }) {
                (purged) throws(SQLiteError) in
                try context.batchCommitted(
                    rows: purged.rows, batches: purged.batches, cursor: purged.cursor, phase: TableRebuild.purgePhase)
            }
        } catch where error.isDiskFull {
            // The batch rolled back; the purge stays pending for a launch with room.
            work.cleanupPending = true
        }
        // The rows the step copied; every transaction of its batches, the purge's too.
        work.rows = copied.rows
        work.batches = copied.batches + progress.batches
        return work
    }

    /// Finishes the purge of an applied rebuild that an interrupted run left behind. Call it
    /// right after opening the database, before the next step runs and before the final
    /// state is read. `plan` (when given) supplies the step's `batch_rows`; `emit` hears
    /// that the purge begins (`phase_started`) and of each committed purge batch
    /// (`batch_committed`, the step's progress durable by then); `checkpoint` is asked as
    /// `OldTablePurge` says. Returns the step's final progress (its step, rows and
    /// batches), or nil when nothing was pending.
    @discardableResult
    static func finishPendingPurge(
        connection: Connection, plan: Plan? = nil, emit: (MigrationEvent) -> Void = { _ in },
        checkpoint: (MigrationCheckpoint) throws(SQLiteError) -> Void = { _ in }
    ) throws(SQLiteError) -> ProgressStore.Progress? {
        let store = ProgressStore(connection: connection)
        guard var progress = try store.pending(), progress.phase == purgePhase else { return nil }
        var batchRows = Rebuild.defaultBatchRows
        if case .rebuild(let rebuild)? = plan?.step(version: progress.step)?.action { batchRows = rebuild.batchRows }
        var started = MigrationEvent(.phaseStarted, version: progress.step)
        started.phase = purgePhase
        emit(started)
        let tables = try OldTablePurge.leftoverTables(connection)
        if tables.isEmpty {
            try connection.chunkTransaction { () throws(SQLiteError) in try store.clear(step: progress.step) }
        }
        for table in tables {
            try OldTablePurge(connection: connection, table: table, batchRows: batchRows)
                .run(progress: &progress, checkpoint: checkpoint) { purged in
                    var event = MigrationEvent(.batchCommitted, version: purged.step)
                    event.rows = purged.rows
                    event.batches = purged.batches
                    event.cursor = purged.cursor
                    event.phase = purgePhase
                    emit(event)
                }
        }
        return progress
    }

    // MARK: - Create and copy

    /// > 4. Use CREATE TABLE to construct a new table "new_X" that is in the desired
    /// > revised format of table X.
    private func create(
        _ newName: String, from old: TableSchema, _ context: StepContext
    ) throws(SQLiteError) -> ProgressStore.Progress {
        let connection = context.connection
        let progress = try connection.chunkTransaction { () throws(SQLiteError) -> ProgressStore.Progress in
            try connection.runPlanStatement(
                "CREATE TABLE \(SQLText.quote(newName))(\(rebuild.columns))\(rebuild.options.map { " " + $0 } ?? "")")
            // On the empty table: each copied batch then adds its own entries.
            for index in try newIndexes(of: old, connection) {
                try connection.runPlanStatement(
                    index.storedSQL(name: TableRebuild.newIndexPrefix + index.name, table: newName))
            }
            let highWater = try KeyRanges(table: old, rows: 1, connection: connection).lastKey()
            let progress = ProgressStore.Progress(
                step: context.step.version, definition: context.step.definitionHash, phase: TableRebuild.copyPhase,
                highWater: highWater)
            try ProgressStore(connection: connection).save(progress)
            return progress
        }
        try context.checkpoint(.afterCreate)
        return progress
    }

    /// > 5. Transfer content from X into new_X using a statement like:
    /// > INSERT INTO new_X SELECT ... FROM X.
    ///
    /// One transaction per `batch_rows` keys, up to the high-water key, each committing
    /// its rows with the cursor.
    private func copy(
        into newName: String, from old: TableSchema, progress: inout ProgressStore.Progress, _ context: StepContext
    ) throws(SQLiteError) {
        if let highWater = progress.highWater {  // nil: the old table was empty
            try copyBatches(into: newName, from: old, through: highWater, progress: &progress, context)
        }
        try context.checkpoint(.afterLastBatch)
    }

    private func copyBatches(
        into newName: String, from old: TableSchema, through highWater: [SQLiteValue],
        progress: inout ProgressStore.Progress, _ context: StepContext
    ) throws(SQLiteError) {
        let connection = context.connection
        let store = ProgressStore(connection: connection)
        let target = try TableSchema.require(newName, connection)
        let ranges = try KeyRanges(table: old, rows: rebuild.batchRows, connection: connection)
        let filter = rebuild.filter.map { " AND (\($0))" } ?? ""
        var finished = false
        while !finished {
            var batch = progress
            let copied = try connection.chunkTransaction { () throws(SQLiteError) -> Bool in
                guard let end = try ranges.batchEnd(after: batch.cursor, through: highWater, keeping: rebuild.filter) else {
                    return false
                }
                let (condition, values) = ranges.range(after: batch.cursor, through: end.key)
                try ranges.statement(
                    """
                    INSERT INTO \(target.quotedName)(\(target.insertColumnList)) SELECT \(rebuild.select) \
                    FROM \(old.quotedName) WHERE \(condition)\(filter) ORDER BY \(ranges.key.ascending)
                    """, holdsPlanText: true
                ).run(values)
                batch.rows += connection.changes
                batch.batches += 1
                batch.cursor = end.key
                try store.save(batch)
                finished = end.isLast
                return true
            }
            guard copied else { break }
            progress = batch
            try context.batchCommitted(
                rows: progress.rows, batches: progress.batches, cursor: progress.cursor, phase: TableRebuild.copyPhase)
        }
    }

    // MARK: - Swap

    /// The documented steps 6 to 11 in one transaction, with step 6 (DROP TABLE X) turned
    /// into a rename so that the old rows stay whole until the version bump and are
    /// removed in batches after it. Returns the transaction's milliseconds.
    private func swap(
        _ newName: String, replacing old: TableSchema, progress: inout ProgressStore.Progress, _ context: StepContext
    ) throws(SQLiteError) -> Int {
        let connection = context.connection
        let clock = ContinuousClock()
        let start = clock.now
        // > 1. If foreign key constraints are enabled, disable them using PRAGMA foreign_keys=OFF.
        // (A no-op inside a transaction, so it happens here, before BEGIN.) legacy_alter_table
        // keeps RENAME from rewriting views, triggers and other tables' foreign keys to
        // follow the old table to its new name: they must go on naming `<table>`.
        let foreignKeys = try connection.integer("PRAGMA foreign_keys") != 0
        let legacyAlterTable = try connection.integer("PRAGMA legacy_alter_table") != 0
        if foreignKeys { try connection.execute("PRAGMA foreign_keys = OFF") }
        if !legacyAlterTable { try connection.execute("PRAGMA legacy_alter_table = ON") }
        func restore() throws(SQLiteError) {
            // > 12. If foreign keys constraints were originally enabled, reenable them now.
            if !legacyAlterTable { try connection.execute("PRAGMA legacy_alter_table = OFF") }
            if foreignKeys { try connection.execute("PRAGMA foreign_keys = ON") }
        }
        var swapped = progress
        do {
            // > 2. Start a transaction.
            try connection.chunkTransaction { () throws(SQLiteError) in
                try swapInTransaction(newName, replacing: old, checkForeignKeys: foreignKeys, context)
                // The purge counts its own rows and batches from here.
                swapped = ProgressStore.Progress(
                    step: progress.step, definition: progress.definition, phase: TableRebuild.purgePhase)
                try ProgressStore(connection: connection).save(swapped)
                try context.stampVersion()
                try context.checkpoint(.insideSwap)
                // > 11. Commit the transaction started in step 2.
            }
        } catch {
            // The swap's own error is what the caller must see; the connection's pragmas
            // matter no more once the step failed (the migration stops and closes it).
            if error != .abandoned { try? restore() }
            throw error
        }
        try restore()
        progress = swapped
        return milliseconds(clock.now - start)
    }

    private func swapInTransaction(
        _ newName: String, replacing old: TableSchema, checkForeignKeys: Bool, _ context: StepContext
    ) throws(SQLiteError) {
        let connection = context.connection
        let oldName = OldTablePurge.prefix + old.name
        // > 3. Remember the format of all indexes, triggers, and views associated with table X.
        let newIndexes = try newIndexes(of: old, connection)
        let triggers = try old.triggers(connection)
        let brokenViews = try ViewCheck.brokenViews(connection)
        // Their names must be free for the new table's; the old table keeps its rows.
        for trigger in triggers { try connection.execute("DROP TRIGGER \(SQLText.quote(trigger.name))") }
        // > 6. Drop the old table X — here: renamed out of the way, emptied after the bump.
        try connection.execute("ALTER TABLE \(old.quotedName) RENAME TO \(SQLText.quote(oldName))")
        // > 7. Change the name of new_X to X using: ALTER TABLE new_X RENAME TO X.
        try connection.execute("ALTER TABLE \(SQLText.quote(newName)) RENAME TO \(old.quotedName)")
        // > 8. Use CREATE INDEX, CREATE TRIGGER, and CREATE VIEW to reconstruct indexes,
        // > triggers, and views associated with table X.
        // The indexes were built with the copy; they change names only. The old table's
        // go with it to the purge, and the new table's take the names and the statements
        // a fresh CREATE INDEX would have stored.
        let oldIndexes = try TableSchema.require(oldName, connection).indexes(connection)
        var renames: [IndexRename] = []
        for index in oldIndexes {
            let renamed = TableRebuild.oldIndexPrefix + index.name
            let statement = try IndexStatement(index.sql, context: "index \"\(index.name)\" of \(old.quotedName)")
            renames.append(IndexRename(from: index.name, to: renamed, sql: statement.storedSQL(name: renamed)))
        }
        for index in newIndexes {
            renames.append(IndexRename(from: TableRebuild.newIndexPrefix + index.name, to: index.name, sql: index.storedSQL()))
        }
        try connection.renameIndexes(renames)
        // The plan's statements, or the file's own (as untrusted as the plan's): one
        // statement each, confined.
        for sql in rebuild.triggers ?? triggers.map(\.sql) { try connection.runPlanStatement(sql) }
        try carryAutoincrementCounter(table: old.name, from: oldName, connection)
        // > 9. If any views refer to table X in a way that is affected by the schema change,
        // > then drop those views ... and recreate them.
        // Views name the table, which is the new one now; one that no longer compiles
        // against it fails the step (as ALTER TABLE RENAME itself would, since 3.26).
        try ViewCheck.noneBroken(since: brokenViews, table: old.name, connection)
        // > 10. If foreign key constraints were originally enabled then run
        // > PRAGMA foreign_key_check to verify that the schema change did not break any
        // > foreign key constraints.
        if checkForeignKeys { try ForeignKeyCheck.verify(table: old.name, connection) }
    }

    /// The indexes the rebuilt table gets: the plan's `indexes`, or else the old table's own.
    /// Each must be on the rebuilt table, since it is built on the new one during the copy.
    private func newIndexes(of old: TableSchema, _ connection: Connection) throws(SQLiteError) -> [IndexStatement] {
        var statements: [String]
        if let planned = rebuild.indexes { statements = planned } else { statements = try old.indexes(connection).map(\.sql) }
        var indexes: [IndexStatement] = []
        for (offset, sql) in statements.enumerated() {
            let index = try IndexStatement(sql, context: "rebuild of \(old.quotedName), index \(offset + 1)")
            guard index.table.asciiLowercased() == old.name.asciiLowercased() else {
                throw SQLiteError(
                    code: SQLITE_ERROR,
                    message: "rebuild of \(old.quotedName): index \"\(index.name)\" is on \"\(index.table)\"; a rebuild's indexes must be on the rebuilt table")
            }
            indexes.append(index)
        }
        return indexes
    }

    /// Dropping a table deletes its `sqlite_sequence` row; RENAME moves it with the table.
    /// So the old counter now sits under the old table's new name, and the new table's
    /// row holds only the largest id copied. The new counter is the largest of those and of
    /// both tables' greatest rowids, so that no id handed out before (even of a row deleted
    /// since, or filtered out now) is handed out again.
    private func carryAutoincrementCounter(
        table: String, from oldName: String, _ connection: Connection
    ) throws(SQLiteError) {
        let new = try TableSchema.require(table, connection)
        guard try new.hasAutoincrement(connection), let newRowid = new.rowidAlias else { return }
        let old = try TableSchema.require(oldName, connection)
        let sequence = "SELECT seq FROM sqlite_sequence WHERE name = ?"
        var counter = max(
            try connection.integer(sequence, [.text(oldName)]),
            try connection.integer("SELECT max(\(newRowid)) FROM \(new.quotedName)"))
        if let oldRowid = old.rowidAlias {
            counter = max(counter, try connection.integer("SELECT max(\(oldRowid)) FROM \(old.quotedName)"))
        }
        if let current = try connection.rows(sequence, [.text(new.name)]).first?[0].integerValue {
            if counter > current {
                try connection.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = ?")
                    .run([.integer(counter), .text(new.name)])
            }
        } else if counter > 0 {
            try connection.prepare("INSERT INTO sqlite_sequence(name, seq) VALUES (?, ?)")
                .run([.text(new.name), .integer(counter)])
        }
    }
}
