/// Statements that cannot run inside a step's transaction, or would do nothing there.
///
/// A step runs in `BEGIN IMMEDIATE` ... `PRAGMA user_version = N` ... `COMMIT`, so its
/// statements must not manage transactions, and pragmas that SQLite ignores inside a
/// transaction (`foreign_keys`) or that refuse to run there (`journal_mode` to or from
/// WAL, VACUUM) would silently not do what the author meant. Other pragmas are held to
/// `PlanSQLPolicy`'s allow-list, which the authorizer enforces when they run.
enum StatementRules {
    /// Why `statement` is not allowed in a step, or nil when it is.
    static func problem(in statement: String) -> String? {
        let words = leadingWords(of: statement, count: 4)
        guard let first = words.first else { return nil }
        switch first {
        case "BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE":
            return "\(first) is not allowed: each step already runs in its own transaction"
        case "VACUUM":
            return "VACUUM cannot run inside a transaction; a step runs in one"
        case "ATTACH", "DETACH":
            return "\(first) cannot run inside a transaction; a step runs in one"
        case "PRAGMA":
            return pragmaProblem(words.dropFirst())
        default:
            return nil
        }
    }

    private static func pragmaProblem(_ words: ArraySlice<String>) -> String? {
        // `PRAGMA main.user_version` splits into "MAIN", ".", "USER_VERSION".
        var name = words.first ?? ""
        if words.dropFirst().first == "." { name = words.dropFirst(2).first ?? "" }
        switch name {
        case "FOREIGN_KEYS":
            return "PRAGMA foreign_keys does nothing inside a transaction; set the plan's \"foreign_keys\" instead"
        case "JOURNAL_MODE":
            return "PRAGMA journal_mode cannot change inside a transaction; a step runs in one"
        case "USER_VERSION":
            return "PRAGMA user_version is set by Preflight inside each step's transaction; remove it"
        case "LOCKING_MODE", "SYNCHRONOUS", "PAGE_SIZE", "AUTO_VACUUM":
            return "PRAGMA \(name.lowercased()) does not take effect inside a transaction; a step runs in one"
        case _ where !PlanSQLPolicy.allowedPragmas.contains(name.asciiLowercased()):
            // The authorizer refuses it when it runs (PlanSQLPolicy); said here before anything ran.
            return "PRAGMA \(name.asciiLowercased()) is not allowed in a plan's SQL; it may use \(PlanSQLPolicy.allowedList)"
        default:
            return nil
        }
    }

    /// The first `count` words of `statement` in upper case (ASCII letters, as SQLite
    /// folds them), comments skipped, with `.` as a word of its own and a quoted name
    /// (`"notes"`, `[notes]`) as the name; they end at the first token of another kind.
    static func leadingWords(of statement: String, count: Int) -> [String] {
        let tokenizer = SQLTokenizer(statement)
        var words: [String] = []
        for token in tokenizer where !token.isTrivia {
            guard words.count < count else { break }
            switch token.kind {
            case .keyword, .identifier: words.append(tokenizer.text(token).asciiUppercased())
            case .quotedIdentifier: words.append(tokenizer.unquoted(token).asciiUppercased())
            case .punctuation where tokenizer.matches(token, "."): words.append(".")
            default: return words
            }
        }
        return words
    }
}
