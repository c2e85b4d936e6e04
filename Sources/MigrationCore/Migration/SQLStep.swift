import CSQLite

/// A `sql` step: its statements in one `BEGIN IMMEDIATE` transaction that also sets
/// `user_version`, so that the step is applied whole or not at all.
struct SQLStep: StepExecutor {
    let statements: [String]

    func run(_ context: StepContext) throws(SQLiteError) -> StepWork {
        let connection = context.connection
        var cost = CostClass.metadata
        var droppedRows = false
        var changedRows = false
        try connection.execute("BEGIN IMMEDIATE")
        do {
            for sql in statements {
                let statementCost = try runClassified(sql, on: connection)
                cost = max(cost, statementCost.cost)
                droppedRows = droppedRows || statementCost.droppedRows
                changedRows = changedRows || statementCost.changedRows
            }
            // The hand-written 12-step rebuild: rows copied into a new table, the old one dropped.
            if droppedRows && changedRows { cost = .rewrite }
            try context.stampVersion()
            context.reached(.insideStep)
            try connection.execute("COMMIT")
        } catch {
            // After SQLITE_FULL and some other errors SQLite rolls back only the statement.
            connection.rollbackIfNeeded()
            throw error
        }
        return StepWork(costClass: cost)
    }

    /// Runs one statement and says what it cost, from the actions the authorizer saw at
    /// prepare time and the rows it changed.
    private func runClassified(
        _ sql: String, on connection: Connection
    ) throws(SQLiteError) -> (cost: CostClass, droppedRows: Bool, changedRows: Bool) {
        let (statement, actions) = try connection.prepareRecordingActions(sql)
        var cost = CostClass.metadata
        var droppedRows = false
        for action in actions {
            switch action.code {
            case SQLITE_CREATE_INDEX:
                if try hasRows(action.second, connection) { cost = max(cost, .index) }
            case SQLITE_REINDEX:
                // CREATE INDEX reports a REINDEX of its new index too; only a REINDEX
                // statement rebuilds existing indexes.
                if StatementRules.leadingWords(of: sql, count: 1) == ["REINDEX"] { cost = max(cost, .index) }
            case SQLITE_ALTER_TABLE:
                // DROP COLUMN rewrites every row; RENAME and ADD COLUMN change only the schema.
                let words = StatementRules.leadingWords(of: sql, count: 6)
                if words.contains("DROP"), try hasRows(action.second, connection) { cost = max(cost, .rewrite) }
            case SQLITE_DROP_TABLE:
                if try hasRows(action.first, connection) {
                    cost = max(cost, .data)
                    droppedRows = true
                }
            default:
                break
            }
        }
        let before = connection.totalChanges
        try statement.run()
        let changedRows = connection.totalChanges > before
        if changedRows { cost = max(cost, .data) }
        return (cost, droppedRows, changedRows)
    }

    private func hasRows(_ table: String?, _ connection: Connection) throws(SQLiteError) -> Bool {
        guard let table, !table.hasPrefix("sqlite_") else { return false }
        return try connection.integer("SELECT EXISTS (SELECT 1 FROM \(SQLText.quote(table)))") != 0
    }
}
