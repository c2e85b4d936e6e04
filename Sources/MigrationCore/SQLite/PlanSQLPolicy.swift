import CSQLite

/// What a plan's SQL may do: everything a migration does to the app's own database, and
/// nothing that reaches past it or takes Preflight's place. Enforced by the authorizer
/// (`Authorizer.confining`) on every statement of plan text, whatever its first words
/// say: a fragment spliced into Preflight's own statement is held to it as well.
///
/// Refused (SQLITE_DENY, so that the prepare fails with SQLITE_AUTH):
/// - `ATTACH` and `DETACH`: another file, on the server. `VACUUM INTO` attaches its
///   target, so it is refused as an attach when it runs.
/// - Transaction statements (`BEGIN`, `COMMIT`, `ROLLBACK`, `END`, `SAVEPOINT`,
///   `RELEASE`): the transactions are Preflight's, as they are the app's runner's.
/// - Every `PRAGMA` outside `allowedPragmas`; Preflight's own pragmas (user_version,
///   application_id, foreign_keys, journal_mode, legacy_alter_table around a rebuild's
///   swap, wal_checkpoint, ...) are not plan SQL and run outside the policy.
///
/// Plain `VACUUM` has no authorizer action of its own; it cannot run in a step's
/// transaction, the plan decoder refuses it, and when it runs it attaches a temporary
/// database, which is refused too (as is every attach: `SQLITE_LIMIT_ATTACHED` is 0).
enum PlanSQLPolicy {
    /// The pragmas plan SQL may use, with any argument: what real migrations run.
    /// - reading the schema: `table_info`, `table_xinfo`, `table_list`, `index_list`,
    ///   `index_info`, `index_xinfo`, `foreign_key_list` (also as `pragma_*()` table
    ///   functions in a SELECT);
    /// - checking it: `foreign_key_check`, `integrity_check`, `quick_check`;
    /// - `defer_foreign_keys`: holds foreign keys until COMMIT, the usual way to reorder
    ///   tables inside a transaction (it resets at the end of the transaction);
    /// - `legacy_alter_table`: what an app sets for a RENAME that must not rewrite its
    ///   views and triggers (Android's framework sets it from API 30). Like on the
    ///   phone, it stays set on the connection for the steps after.
    static let allowedPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
        "foreign_key_check", "integrity_check", "quick_check", "defer_foreign_keys", "legacy_alter_table",
    ]

    /// Pragmas plan SQL may read but not set, because SQLite's own virtual tables read
    /// them while a plan's statement runs: R*Tree and FTS3/FTS4 read `page_size` when
    /// they create their tables, FTS5 reads `data_version`.
    static let readablePragmas: Set<String> = ["page_size", "data_version"]

    /// Whether plan SQL may run `PRAGMA name` (with `argument`, nil for a read): the
    /// decoder's check and the authorizer's.
    static func allowsPragma(_ name: String, argument: String?) -> Bool {
        let name = name.asciiLowercased()
        return allowedPragmas.contains(name) || (argument == nil && readablePragmas.contains(name))
    }

    /// Why the action is refused to plan SQL, or nil when it is allowed. `first` and
    /// `second` are the authorizer's arguments (for a pragma: its name and argument).
    static func refusal(code: Int32, first: String?, second: String?) -> String? {
        switch code {
        case SQLITE_ATTACH:
            return "ATTACH (or VACUUM INTO) is not allowed in a plan's SQL: a step works on the app's database and no other file"
        case SQLITE_DETACH:
            return "DETACH is not allowed in a plan's SQL: a step works on the app's database and no other file"
        case SQLITE_TRANSACTION, SQLITE_SAVEPOINT:
            return "transaction statements (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE) are not allowed in a plan's SQL: each step already runs in Preflight's transactions"
        case SQLITE_PRAGMA:
            let name = first ?? ""
            guard !allowsPragma(name, argument: second) else { return nil }
            return "PRAGMA \(name.asciiLowercased())\(second == nil ? "" : " = \(second ?? "")") is not allowed in a plan's SQL; it may use \(allowedList)"
        default:
            return nil
        }
    }

    /// The allowed pragmas, for messages.
    static var allowedList: String { allowedPragmas.sorted().joined(separator: ", ") }
}
