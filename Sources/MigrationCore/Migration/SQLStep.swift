import CSQLite

/// A `sql` step: its statements in one `BEGIN IMMEDIATE` transaction that also records the
/// step, so that the step is applied whole or not at all; or, as the runner says
/// (`StepCommit`), inside the runner's transaction around the path, or statement by
/// statement in autocommit.
struct SQLStep: StepExecutor {
    let statements: [String]
    /// Whether `ALTER TABLE ... ADD COLUMN` checks a new CHECK constraint against the rows
    /// already there, as SQLite does from 3.37.0; false for a device older than that.
    var checksAddedColumns = true

    func run(_ context: StepContext) throws(SQLiteError) -> StepWork {
        let connection = context.connection
        var cost = CostClass.metadata
        var droppedRows = false
        var changedRows = false
        try context.beginStepTransaction()
        do {
            for sql in statements {
                context.statementStarting()
                let statementCost = try runClassified(sql, on: connection)
                cost = max(cost, statementCost.cost)
                droppedRows = droppedRows || statementCost.droppedRows
                changedRows = changedRows || statementCost.changedRows
            }
            // The hand-written 12-step rebuild: rows copied into a new table, the old one dropped.
            if droppedRows && changedRows { cost = .rewrite }
            try context.stampVersion()
            try context.checkpoint(.insideStep)
            try context.commitStepTransaction()
        } catch {
            // After SQLITE_FULL and some other errors SQLite rolls back only the statement.
            // An abandoned step leaves its transaction open, as a kill would.
            if error != .abandoned { context.rollBackStep() }
            throw error
        }
        return StepWork(costClass: cost)
    }

    /// Runs one statement and says what it cost, from the actions the authorizer saw at
    /// prepare time and the rows it changed. The cost is only described, never acted on:
    /// nothing here can make the statement fail or change what it does (what refuses a
    /// statement is `PlanSQLPolicy`, in the same authorizer callback).
    private func runClassified(
        _ sql: String, on connection: Connection
    ) throws(SQLiteError) -> (cost: CostClass, droppedRows: Bool, changedRows: Bool) {
        let (statement, actions) = try connection.preparePlanStatementRecordingActions(sql)
        var cost = CostClass.metadata
        var droppedRows = false
        for action in actions {
            switch action.code {
            case SQLITE_CREATE_INDEX:
                if heldRows(action.second, in: action.database, connection) { cost = max(cost, .index) }
            case SQLITE_REINDEX:
                // CREATE INDEX reports a REINDEX of its new index too; only a REINDEX
                // statement rebuilds existing indexes.
                if StatementRules.leadingWords(of: sql, count: 1) == ["REINDEX"] { cost = max(cost, .index) }
            case SQLITE_ALTER_TABLE:
                // DROP COLUMN rewrites every row; RENAME and ADD COLUMN change only the schema.
                let words = StatementRules.leadingWords(of: sql, count: 6)
                if words.contains("DROP"), heldRows(action.second, in: action.database, connection) {
                    cost = max(cost, .rewrite)
                }
            case SQLITE_DROP_TABLE:
                if heldRows(action.first, in: action.database, connection) {
                    cost = max(cost, .data)
                    droppedRows = true
                }
            default:
                break
            }
        }
        let before = connection.totalChanges
        // The linked SQLite checks through quick_check, which this pragma turns off, and
        // turns on again whatever the statement did.
        let unchecked = !checksAddedColumns && SQLiteFeatureScanner(sql).addsCheckedColumn
        if unchecked { try connection.execute("PRAGMA ignore_check_constraints = ON") }
        let outcome = Result { () throws(SQLiteError) in try statement.run() }
        if unchecked { try connection.execute("PRAGMA ignore_check_constraints = OFF") }
        try outcome.get()
        let changedRows = connection.totalChanges != before
        if changedRows { cost = max(cost, .data) }
        return (cost, droppedRows, changedRows)
    }

    /// Whether `table` holds rows before the statement runs. The authorizer reports actions
    /// at prepare time, so a table can be named before it exists: `CREATE TABLE` with a
    /// UNIQUE constraint, a non-INTEGER PRIMARY KEY or WITHOUT ROWID reports the
    /// `CREATE INDEX` of its automatic index first. Such a table holds no rows. When the
    /// question cannot be answered (an unreadable virtual table), the statement is taken
    /// to cost what a filled table would: the statement itself still runs as written.
    private func heldRows(_ table: String?, in database: String?, _ connection: Connection) -> Bool {
        guard let table, !table.lowercased().hasPrefix("sqlite_") else { return false }
        let schema = SQLText.quote(database ?? "main")
        do {
            let exists = try connection.integer(
                "SELECT count(*) FROM \(schema).sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE",
                [.text(table)])
            guard exists != 0 else { return false }
            return try connection.integer("SELECT EXISTS (SELECT 1 FROM \(schema).\(SQLText.quote(table)))") != 0
        } catch {
            return true
        }
    }
}
