/// The way a plan's SQL reaches SQLite: one statement at a time, prepared and stepped
/// under `PlanSQLPolicy`. Every piece of plan text goes through here: a `sql` step's
/// statements, a rebuild's and a backfill's statements with their fragments spliced in,
/// the `fresh_install` script, and the space estimate's replays and measuring queries.
/// Preflight's own SQL (its transactions, its pragmas) does not.
extension Connection {
    /// Prepares `sql`, exactly one statement holding plan text. Text after the statement
    /// is an error (`Statement`), so a fragment that ends Preflight's statement early
    /// cannot start another.
    public func preparePlanStatement(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(connection: self, sql: sql, confined: true)
    }

    /// Prepares one statement of plan text and returns it with the actions SQLite
    /// reported while preparing it (a refused statement throws; its actions are moot).
    func preparePlanStatementRecordingActions(_ sql: String) throws(SQLiteError) -> (Statement, [AuthorizedAction]) {
        try authorizer.recording { () throws(SQLiteError) in try preparePlanStatement(sql) }
    }

    /// Prepares and runs one statement of plan text.
    public func runPlanStatement(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) {
        try preparePlanStatement(sql).run(values)
    }

    /// The rows of one statement of plan text.
    func planRows(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        try preparePlanStatement(sql).rows(values)
    }
}
