import Foundation

/// One migration history, run through `preflight run` and through the oracle (plain SQLite,
/// each step as `BEGIN IMMEDIATE; ...; PRAGMA user_version = N; COMMIT`), whose results
/// must agree.
struct DifferentialCase: Sendable {
    /// Names the case in failure messages (an app's name, or a generator seed).
    var name: String
    /// The plan as Preflight reads it (docs/CONTRACT.md §1).
    var planDocument: Data
    /// For each version from 1, the plain SQL statements the oracle runs for that step: a
    /// `sql` step's own statements, or the hand-written equivalent of a `rebuild` or `backfill`.
    var oracleSteps: [[String]]
    /// Rows inserted into the version-1 schema for the seeded upgrade, or nil for none.
    var seedSQL: String?
}
