/// What verification found: the `final` section of the report, and why it failed, if it did.
public struct Verification: Sendable, Equatable {
    public var final: FinalState
    /// One sentence per failed check (integrity, foreign keys, rows lost, schema); empty
    /// when verification passed.
    public var problems: [String]
    /// Virtual tables that could not be counted, left out of `final.tables` and `rows_lost`,
    /// with SQLite's reason (`TableCounts.uncounted`).
    public var uncountedTables: [String: String]

    public var passed: Bool { problems.isEmpty }

    public init(final: FinalState, problems: [String], uncountedTables: [String: String] = [:]) {
        self.final = final
        self.problems = problems
        self.uncountedTables = uncountedTables
    }
}
