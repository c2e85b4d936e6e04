/// How a step's work becomes durable, which the plan's runner decides (docs/CONTRACT.md §1
/// `runner`): what a kill in the middle of the step undoes, and what records the step.
enum StepCommit: Sendable, Equatable {
    /// The step's own `BEGIN IMMEDIATE` ... `COMMIT`, which also sets `user_version` (per_step).
    case ownTransaction
    /// The step's own `BEGIN IMMEDIATE` ... `COMMIT`, which records it as a row of
    /// `grdb_migrations`; with `deferredForeignKeys`, GRDB's deferred checks: foreign keys
    /// off around the transaction, `PRAGMA foreign_key_check` before its COMMIT.
    case grdbMigration(deferredForeignKeys: Bool)
    /// Inside the runner's one transaction around the whole path, which records the
    /// version at its end (sqliteopenhelper, room).
    case enclosingTransaction
    /// No transaction: every statement commits on its own, and the runner records the
    /// version after the last step (drift).
    case autocommit

    /// Whether the step's own transaction records it (and so adopts the application id).
    var recordsStep: Bool {
        switch self {
        case .ownTransaction, .grdbMigration: return true
        case .enclosingTransaction, .autocommit: return false
        }
    }
}
