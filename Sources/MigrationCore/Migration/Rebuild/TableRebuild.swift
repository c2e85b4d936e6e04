// Placeholder until the chunked rebuild lands (issue 3).
struct TableRebuild: StepExecutor {
    let rebuild: Rebuild
    func run(_ context: StepContext) throws(SQLiteError) -> StepWork {
        throw SQLiteError(code: 1, message: "rebuild steps are not implemented yet")
    }
}
