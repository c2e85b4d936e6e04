/// The pieces of plan SQL that Preflight splices into statements of its own: a rebuild's
/// `columns` (inside `CREATE TABLE new(...)`), `select` and `where`, a backfill's `set`
/// and `where`. Each must be exactly one fragment, read as SQLite's tokenizer reads it:
/// nothing in it may end the statement around it and start another (a `;`, or a `)`
/// that closes Preflight's parenthesis), and it must end where its text ends (not inside
/// a comment, which would swallow the SQL that follows it).
///
/// This is the check a plan author sees; what enforces it is that every such statement
/// is prepared as exactly one statement of plan SQL (`Connection.preparePlanStatement`).
enum FragmentRules {
    /// What is wrong with `fragment`, as the end of a sentence that starts with its key
    /// ("must be one fragment of SQL, but it ..."), or nil when it is one.
    static func problem(in fragment: String) -> String? {
        let tokenizer = SQLTokenizer(fragment)
        var depth = 0
        for token in tokenizer {
            let text = tokenizer.text(token)
            switch token.kind {
            case .punctuation where text == ";":
                return "holds a \";\" (at byte \(token.range.lowerBound)), which would end the statement it is part of"
            case .punctuation where text == "(":
                depth += 1
            case .punctuation where text == ")":
                guard depth > 0 else {
                    return "closes a parenthesis it did not open (at byte \(token.range.lowerBound)), which would close the statement it is part of"
                }
                depth -= 1
            case .illegal:
                return "holds text SQLite cannot read: \(text.prefix(40))"
            case .comment where token.range.upperBound == tokenizer.bytes.count && !isClosedBlockComment(text):
                return "ends inside a comment, which would swallow the SQL Preflight puts after it"
            default:
                break
            }
        }
        guard depth == 0 else { return "leaves \(depth) parenthes\(depth == 1 ? "is" : "es") open" }
        return nil
    }

    /// `/* ... */`, closed; a `--` comment or an unclosed `/*` runs on into what follows.
    private static func isClosedBlockComment(_ text: String) -> Bool {
        text.hasPrefix("/*") && text.utf8.count >= 4 && text.hasSuffix("*/")
    }
}
