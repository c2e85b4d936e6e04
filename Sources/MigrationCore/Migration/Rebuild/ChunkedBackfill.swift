// Placeholder until the chunked backfill lands (issue 3).
struct ChunkedBackfill: StepExecutor {
    let backfill: Backfill
    func run(_ context: StepContext) throws(SQLiteError) -> StepWork {
        throw SQLiteError(code: 1, message: "backfill steps are not implemented yet")
    }
}
