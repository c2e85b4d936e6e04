/// Puts schema SQL into one canonical spelling, so that two statements that SQLite reads
/// the same way compare equal however they were typed.
///
/// OVERVIEW: the text is split into tokens by `SQLTokenizer`, as SQLite's tokenizer splits
/// it (strings, quoted names, blobs, numbers, words, operators; comments and whitespace
/// dropped), each token gets one spelling, and the tokens are joined with fixed spacing
/// rules:
///
/// - keywords (`sqlite3_keyword_check`) in upper case, identifiers in lower case (SQLite
///   folds identifiers for ASCII letters only, and so does this);
/// - identifier quoting (`"x"`, `` `x` ``, `[x]`) removed where the name is a plain word,
///   otherwise written as `"x"`;
/// - string literals kept byte for byte; blob literals as `X'..'` with lower-case digits;
/// - `==` written `=`, `<>` written `!=`;
/// - `IF NOT EXISTS` after `CREATE` removed; `TEMP` kept; trailing `;` removed.
///
/// LIMITATIONS: a token-level canonical form, not a parse tree: `(a)` and `a` stay
/// different (except around a whole default value), and so do `a = b` and `b = a`.
enum SQLNormalizer {
    /// One token in its canonical spelling.
    struct Token: Equatable {
        enum Kind: Equatable {
            /// A bare word SQLite knows as a keyword.
            case keyword
            /// A bare word that is not a keyword, or any quoted name.
            case identifier
            case literal
            case punctuation
        }

        var kind: Kind
        var text: String
        /// For words and quoted names: the name SQLite sees, lower-cased, without quotes.
        var name: String?

        func isKeyword(_ word: String) -> Bool { kind == .keyword && text == word }
        func isPunctuation(_ mark: String) -> Bool { kind == .punctuation && text == mark }
    }

    // MARK: - Normalizing

    /// `name` as SQLite compares names: ASCII letters lower-cased, nothing else changed.
    static func fold(_ name: String) -> String { name.asciiLowercased() }

    /// `sql`, one complete statement, in its canonical spelling.
    static func statement(_ sql: String) -> String {
        render(statementTokens(sql))
    }

    /// The canonical tokens of one statement, with `IF NOT EXISTS` and trailing `;` removed.
    static func statementTokens(_ sql: String) -> [Token] {
        var tokens = self.tokens(sql)
        while let last = tokens.last, last.isPunctuation(";") { tokens.removeLast() }
        if let first = tokens.first, first.isKeyword("CREATE") {
            let window = tokens.indices.dropFirst().prefix(6)
            if let start = window.first(where: { index in
                index + 2 < tokens.count && tokens[index].isKeyword("IF") && tokens[index + 1].isKeyword("NOT")
                    && tokens[index + 2].isKeyword("EXISTS")
            }) {
                tokens.removeSubrange(start..<(start + 3))
            }
        }
        return tokens
    }

    /// An expression (a default value, a CHECK, a WHERE clause) in its canonical spelling,
    /// without parentheses around the whole of it.
    static func expression(_ sql: String) -> String {
        render(strippingOuterParentheses(tokens(sql)))
    }

    /// `tokens` without any pairs of parentheses that enclose all of them.
    static func strippingOuterParentheses(_ tokens: [Token]) -> [Token] {
        var tokens = tokens[...]
        while tokens.count >= 2, tokens.first!.isPunctuation("("), closingIndex(in: tokens, from: tokens.startIndex) == tokens.endIndex - 1 {
            tokens = tokens.dropFirst().dropLast()
        }
        return Array(tokens)
    }

    /// The index of the `)` matching the `(` at `open`, or nil when it is not closed.
    static func closingIndex(in tokens: ArraySlice<Token>, from open: Int) -> Int? {
        var depth = 0
        for index in open..<tokens.endIndex {
            if tokens[index].isPunctuation("(") { depth += 1 }
            if tokens[index].isPunctuation(")") {
                depth -= 1
                if depth == 0 { return index }
            }
        }
        return nil
    }

    /// `tokens` split at the commas outside any parentheses.
    static func splitAtTopLevelCommas(_ tokens: ArraySlice<Token>) -> [ArraySlice<Token>] {
        var parts: [ArraySlice<Token>] = []
        var depth = 0
        var start = tokens.startIndex
        for index in tokens.indices {
            let token = tokens[index]
            if token.isPunctuation("(") { depth += 1 }
            if token.isPunctuation(")") { depth -= 1 }
            if depth == 0 && token.isPunctuation(",") {
                parts.append(tokens[start..<index])
                start = index + 1
            }
        }
        if start < tokens.endIndex { parts.append(tokens[start..<tokens.endIndex]) }
        return parts
    }

    // MARK: - Rendering

    /// Joins canonical tokens: one space between tokens, but none inside `()` edges, before
    /// `,` `;` `.`, after `.` or a unary sign, or between a name (or CAST, RAISE, ...) and
    /// its `(`: `CREATE TABLE notes(id INTEGER PRIMARY KEY, CHECK (length(id) > 0))`.
    static func render<Tokens: Collection>(_ tokens: Tokens) -> String where Tokens.Element == Token {
        var result = ""
        var previous: Token?
        var previousWasUnary = false
        for token in tokens {
            if let previous, needsSpace(between: previous, and: token, afterUnary: previousWasUnary) {
                result += " "
            }
            result += token.text
            previousWasUnary = (token.isPunctuation("-") || token.isPunctuation("+")) && isOperand(after: previous) == false
            previous = token
        }
        return result
    }

    private static func needsSpace(between previous: Token, and token: Token, afterUnary: Bool) -> Bool {
        if afterUnary { return false }
        if token.kind == .punctuation && [",", ")", ";", "."].contains(token.text) { return false }
        if previous.kind == .punctuation && ["(", "."].contains(previous.text) { return false }
        if token.isPunctuation("(") {
            return !(previous.kind == .identifier || (previous.kind == .keyword && callKeywords.contains(previous.text)))
        }
        return true
    }

    /// Keywords written like a function call: `CAST(x AS TEXT)`, `RAISE(ABORT, 'no')`.
    private static let callKeywords: Set<String> = ["CAST", "RAISE", "REPLACE", "LIKE", "GLOB", "MATCH", "REGEXP"]

    /// Whether a `-` or `+` after `previous` is binary (follows an operand).
    private static func isOperand(after previous: Token?) -> Bool {
        guard let previous else { return false }
        switch previous.kind {
        case .identifier, .literal: return true
        case .keyword: return false
        case .punctuation: return previous.text == ")"
        }
    }

    // MARK: - Tokenizing

    /// The canonical tokens of `sql` (read by `SQLTokenizer`), comments and whitespace dropped.
    static func tokens(_ sql: String) -> [Token] {
        let tokenizer = SQLTokenizer(sql)
        return tokenizer.compactMap { canonical($0, of: tokenizer) }
    }

    /// One token of `tokenizer`'s text in its canonical spelling; nil for whitespace and comments.
    static func canonical(_ token: SQLToken, of tokenizer: SQLTokenizer) -> Token? {
        let text = tokenizer.text(token)
        switch token.kind {
        case .whitespace, .comment:
            return nil
        case .keyword:
            return Token(kind: .keyword, text: text.asciiUppercased(), name: text.asciiLowercased())
        case .identifier:
            return Token(kind: .identifier, text: text.asciiLowercased(), name: text.asciiLowercased())
        case .quotedIdentifier:
            return quotedName(tokenizer.unquoted(token))
        case .string, .variable:
            return Token(kind: .literal, text: text)
        case .blob:
            // x'AB' -> X'ab': the digits between the quotes in lower case.
            return Token(kind: .literal, text: "X" + String(text.dropFirst()).asciiLowercased())
        case .number:
            return Token(kind: .literal, text: text.asciiLowercased())
        case .punctuation:
            return Token(kind: .punctuation, text: text == "==" ? "=" : text == "<>" ? "!=" : text)
        case .illegal:
            // Not in SQL that SQLite accepted; kept as written.
            return Token(kind: .punctuation, text: text)
        }
    }

    /// A quoted name: spelled like the same bare word when it is a plain word, so that
    /// `"notes"` and `notes` (and `"key"` and `key`) come out the same.
    private static func quotedName(_ content: String) -> Token {
        let lowered = content.asciiLowercased()
        // A plain word: the whole name reads as one bare word.
        let bare = SQLTokenizer(content)
        let word = bare.bytes.isEmpty ? nil : bare.token(at: 0)
        if let word, word.range.count == bare.bytes.count, word.kind == .keyword || word.kind == .identifier {
            return Token(kind: .identifier, text: word.kind == .keyword ? content.asciiUppercased() : lowered, name: lowered)
        }
        return Token(kind: .identifier, text: "\"" + lowered.replacingOccurrences(of: "\"", with: "\"\"") + "\"", name: lowered)
    }
}
