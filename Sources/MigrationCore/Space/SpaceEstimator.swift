// Placeholder until the estimate lands (issue 4).
struct SpaceEstimator {
    let connection: Connection
    func estimate(_ step: Step) throws(SQLiteError) -> Int64? { nil }
}
