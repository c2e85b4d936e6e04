/// Just enough of a SQL reader to find the clauses of a statement at its top level: the
/// SET and WHERE of an UPDATE, the source and WHERE of a DELETE.
///
/// The space estimate measures the data a statement will touch by running a read-only
/// query built from these clauses; SQLite has no API that hands them out. Anything this
/// cannot take apart gives nil, and the estimate falls back to a coarser bound. The
/// tokens are `SQLTokenizer`'s, whitespace and comments left out.
struct SQLClauses {
    /// One token, with the parenthesis depth it starts at (a "(" is at its outer depth).
    struct Token {
        enum Kind { case word, quoted, string, number, variable, punctuation }
        var kind: Kind
        /// Where the token is in the text's UTF-8 bytes.
        var range: Range<Int>
        var depth: Int
        /// Upper-cased (ASCII, as SQLite folds) text of a word, the text of punctuation
        /// (an operator such as `<=` is one token), empty otherwise.
        var keyword: String
    }

    let tokens: [Token]
    private let tokenizer: SQLTokenizer

    init(_ sql: String) {
        tokenizer = SQLTokenizer(sql)
        tokens = SQLClauses.tokens(of: tokenizer)
    }

    // MARK: - Clauses of the statements the estimate looks into

    /// `[WITH ...] UPDATE [OR x] source SET assignments [WHERE condition] ...` without a FROM.
    struct UpdateDefinition {
        /// The text naming the table (with alias and INDEXED BY), usable after FROM.
        var source: String
        var assignments: [(column: String, value: String)]
        var condition: String?
        var with: String?
    }

    func updateDefinition() -> UpdateDefinition? {
        guard let update = firstTopLevel("UPDATE"), let set = firstTopLevel("SET", after: update) else { return nil }
        var sourceStart = update + 1
        if tokens.indices.contains(sourceStart + 1), tokens[sourceStart].keyword == "OR" { sourceStart += 2 }
        guard sourceStart < set else { return nil }
        let ends = ["FROM", "WHERE", "RETURNING", "ORDER", "LIMIT"]
        let end = firstTopLevel(of: ends, after: set) ?? tokens.count
        if end < tokens.count, tokens[end].keyword == "FROM" { return nil }
        var assignments: [(String, String)] = []
        for assignment in splitTokens(from: set + 1, to: end) {
            // `==` is SQLite's other spelling of `=` (both are TK_EQ).
            guard assignment.count >= 3, ["=", "=="].contains(tokens[assignment.lowerBound + 1].keyword),
                let column = unquotedName(tokens[assignment.lowerBound..<(assignment.lowerBound + 1)])
            else { return nil }
            assignments.append((column, source(from: assignment.lowerBound + 2, to: assignment.upperBound)))
        }
        var condition: String?
        if end < tokens.count, tokens[end].keyword == "WHERE" {
            condition = source(from: end + 1, to: firstTopLevel(of: ["RETURNING", "ORDER", "LIMIT"], after: end) ?? tokens.count)
        }
        return UpdateDefinition(
            source: source(from: sourceStart, to: set), assignments: assignments, condition: condition,
            with: update > 0 ? source(from: 0, to: update) : nil)
    }

    /// `[WITH ...] DELETE FROM source [WHERE condition] ...`: the source and condition.
    func deleteDefinition() -> (source: String, condition: String?, with: String?)? {
        guard let delete = firstTopLevel("DELETE"), let from = firstTopLevel("FROM", after: delete) else { return nil }
        let end = firstTopLevel(of: ["WHERE", "RETURNING", "ORDER", "LIMIT"], after: from) ?? tokens.count
        guard end > from + 1 else { return nil }
        var condition: String?
        if end < tokens.count, tokens[end].keyword == "WHERE" {
            condition = source(from: end + 1, to: firstTopLevel(of: ["RETURNING", "ORDER", "LIMIT"], after: end) ?? tokens.count)
        }
        return (source(from: from + 1, to: end), condition, delete > 0 ? source(from: 0, to: delete) : nil)
    }

    // MARK: - Token helpers

    /// Text from the start of token `start` to the end of the token before `end` (the last
    /// token when `end` is nil or past it): comments between them kept, none after them,
    /// so that the text can be spliced into other SQL.
    func source(from start: Int, to end: Int? = nil) -> String {
        let last = min(end ?? tokens.count, tokens.count) - 1
        guard start <= last else { return "" }
        return tokenizer.text(tokens[start].range.lowerBound..<tokens[last].range.upperBound)
    }

    func firstTopLevel(_ keyword: String, after start: Int = -1) -> Int? {
        firstTopLevel(of: [keyword], after: start)
    }

    func firstTopLevel(of keywords: [String], after start: Int = -1) -> Int? {
        guard start + 1 < tokens.count else { return nil }
        return tokens[(start + 1)...].firstIndex { $0.depth == 0 && keywords.contains($0.keyword) }
    }

    /// The comma-separated items between tokens `start` and `end` (exclusive), as token ranges.
    func splitTokens(from start: Int, to end: Int) -> [Range<Int>] {
        guard start < end else { return [] }
        let depth = tokens[start].depth
        var items: [Range<Int>] = []
        var itemStart = start
        for index in start..<end where tokens[index].keyword == "," && tokens[index].depth == depth {
            items.append(itemStart..<index)
            itemStart = index + 1
        }
        items.append(itemStart..<end)
        return items.filter { !$0.isEmpty }
    }

    /// A (possibly schema-qualified) name spelled by `slice`, without quotes and schema.
    private func unquotedName(_ slice: ArraySlice<Token>) -> String? {
        let parts = slice.filter { $0.keyword != "." }
        guard let last = parts.last, parts.count <= 2, parts.allSatisfy({ $0.kind == .word || $0.kind == .quoted })
        else { return nil }
        return unquoted(last)
    }

    /// A word or quoted name as the name it spells, without its quotes.
    func unquoted(_ token: Token) -> String {
        let spelled = SQLToken(kind: token.kind == .quoted ? .quotedIdentifier : .identifier, range: token.range)
        return tokenizer.unquoted(spelled)
    }

    // MARK: - Tokens

    /// The tokenizer's tokens other than whitespace and comments, with their depth.
    private static func tokens(of tokenizer: SQLTokenizer) -> [Token] {
        var tokens: [Token] = []
        var depth = 0
        for token in tokenizer {
            let kind: Token.Kind
            var keyword = ""
            switch token.kind {
            case .whitespace, .comment: continue
            case .keyword, .identifier:
                kind = .word
                keyword = tokenizer.text(token).asciiUppercased()
            case .quotedIdentifier: kind = .quoted
            case .string, .blob: kind = .string
            case .number: kind = .number
            case .variable: kind = .variable
            case .punctuation, .illegal:
                kind = .punctuation
                keyword = tokenizer.text(token)
            }
            if keyword == ")" { depth = max(0, depth - 1) }
            tokens.append(Token(kind: kind, range: token.range, depth: depth, keyword: keyword))
            if keyword == "(" { depth += 1 }
        }
        return tokens
    }
}
