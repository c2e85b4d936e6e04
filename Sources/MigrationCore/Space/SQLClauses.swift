/// Just enough of a SQL lexer to find the clauses of a statement at its top level: the
/// key list of a CREATE INDEX, the SET and WHERE of an UPDATE, the SELECT of an INSERT.
///
/// The space estimate measures the data a statement will touch by running a read-only
/// query built from these clauses; SQLite has no API that hands them out. Anything this
/// cannot take apart gives nil, and the estimate falls back to a coarser bound.
struct SQLClauses {
    /// One token, with the parenthesis depth it starts at (a "(" is at its outer depth).
    struct Token {
        enum Kind { case word, quoted, string, number, punctuation }
        var kind: Kind
        var range: Range<String.Index>
        var depth: Int
        /// Upper-cased text of a word, the character of punctuation, empty otherwise.
        var keyword: String
    }

    let text: String
    let tokens: [Token]

    init(_ sql: String) {
        text = sql
        tokens = SQLClauses.lex(sql)
    }

    // MARK: - Clauses of the statements the estimate looks into

    /// `CREATE [UNIQUE] INDEX ... ON table (key, ...) [WHERE condition]`.
    struct IndexDefinition {
        var table: String
        /// The key expressions, without COLLATE and ASC/DESC (they do not change sizes).
        var keys: [String]
        var condition: String?
    }

    func indexDefinition() -> IndexDefinition? {
        guard let index = firstTopLevel("INDEX"), let on = firstTopLevel("ON", after: index),
            let open = firstTopLevel("(", after: on), open > on + 1,
            let close = matchingClose(open)
        else { return nil }
        let table = unquotedName(tokens[(on + 1)..<open])
        let keys = split(from: open + 1, to: close).map { stripOrdering($0) }
        guard let table, !keys.isEmpty, !keys.contains(where: { $0.isEmpty }) else { return nil }
        var condition: String?
        if let whereToken = firstTopLevel("WHERE", after: close) { condition = source(from: whereToken + 1) }
        return IndexDefinition(table: table, keys: keys, condition: condition)
    }

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
            guard assignment.count >= 3, tokens[assignment.lowerBound + 1].keyword == "=",
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

    /// `[WITH ...] INSERT|REPLACE ... INTO table [AS alias] [(columns)] <select> [upsert]`:
    /// the named columns (nil: all) and the SELECT or VALUES that produces the rows.
    func insertDefinition() -> (columns: [String]?, rows: String, with: String?)? {
        guard let verb = firstTopLevel(of: ["INSERT", "REPLACE"]), let into = firstTopLevel("INTO", after: verb) else {
            return nil
        }
        var position = into + 1
        guard position < tokens.count, [.word, .quoted].contains(tokens[position].kind) else { return nil }
        position += 1
        if position + 1 < tokens.count, tokens[position].keyword == "." { position += 2 }
        if position + 1 < tokens.count, tokens[position].keyword == "AS" { position += 2 }
        var columns: [String]?
        if position < tokens.count, tokens[position].keyword == "(", let close = matchingClose(position) {
            var names: [String] = []
            for item in splitTokens(from: position + 1, to: close) {
                guard let name = unquotedName(tokens[item]) else { return nil }
                names.append(name)
            }
            columns = names
            position = close + 1
        }
        guard position < tokens.count, ["SELECT", "VALUES", "WITH"].contains(tokens[position].keyword) else {
            return nil
        }
        var end = tokens.count
        var search = position
        while let on = firstTopLevel(of: ["ON", "RETURNING"], after: search) {
            if tokens[on].keyword == "RETURNING" || (on + 1 < tokens.count && tokens[on + 1].keyword == "CONFLICT") {
                end = on
                break
            }
            search = on
        }
        return (columns, source(from: position, to: end), verb > 0 ? source(from: 0, to: verb) : nil)
    }

    /// `CREATE TABLE name AS <select>`: the SELECT.
    func createTableAsSelect() -> String? {
        guard let table = firstTopLevel("TABLE"), let asToken = firstTopLevel("AS", after: table),
            firstTopLevel("(", after: table).map({ $0 > asToken }) ?? true
        else { return nil }
        return source(from: asToken + 1)
    }

    // MARK: - Token helpers

    /// Text from the start of token `start` to the start of token `end` (the end of the text
    /// when `end` is past the last token), trimmed.
    func source(from start: Int, to end: Int? = nil) -> String {
        guard start < tokens.count else { return "" }
        let upper = (end ?? tokens.count) < tokens.count ? tokens[end!].range.lowerBound : text.endIndex
        guard tokens[start].range.lowerBound <= upper else { return "" }
        return String(text[tokens[start].range.lowerBound..<upper]).trimmingWhitespace()
    }

    func firstTopLevel(_ keyword: String, after start: Int = -1) -> Int? {
        firstTopLevel(of: [keyword], after: start)
    }

    func firstTopLevel(of keywords: [String], after start: Int = -1) -> Int? {
        guard start + 1 < tokens.count else { return nil }
        return tokens[(start + 1)...].firstIndex { $0.depth == 0 && keywords.contains($0.keyword) }
    }

    func matchingClose(_ open: Int) -> Int? {
        let depth = tokens[open].depth
        return tokens[(open + 1)...].firstIndex { $0.keyword == ")" && $0.depth == depth }
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

    func split(from start: Int, to end: Int) -> [String] {
        splitTokens(from: start, to: end).map { source(from: $0.lowerBound, to: $0.upperBound) }
    }

    /// An index key without trailing ASC/DESC and COLLATE name.
    private func stripOrdering(_ key: String) -> String {
        let inner = SQLClauses(key)
        var end = inner.tokens.count
        if end > 0, ["ASC", "DESC"].contains(inner.tokens[end - 1].keyword), inner.tokens[end - 1].depth == 0 { end -= 1 }
        if end >= 2, inner.tokens[end - 2].keyword == "COLLATE", inner.tokens[end - 2].depth == 0 { end -= 2 }
        return end == 0 ? "" : inner.source(from: 0, to: end)
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
        let raw = String(text[token.range])
        guard token.kind == .quoted, let first = raw.first else { return raw }
        let closing: Character = first == "[" ? "]" : first
        let body = raw.dropFirst().dropLast()
        return body.replacingOccurrences(of: String([closing, closing]), with: String(closing))
    }

    // MARK: - Lexer

    private static func lex(_ sql: String) -> [Token] {
        var tokens: [Token] = []
        var depth = 0
        var index = sql.startIndex
        func advance(while predicate: (Character) -> Bool) {
            while index < sql.endIndex, predicate(sql[index]) { index = sql.index(after: index) }
        }
        while index < sql.endIndex {
            let character = sql[index]
            let start = index
            if character.isWhitespace {
                index = sql.index(after: index)
                continue
            }
            if character == "-", sql[index...].hasPrefix("--") {
                advance { $0 != "\n" }
                continue
            }
            if character == "/", sql[index...].hasPrefix("/*") {
                index = sql.index(index, offsetBy: 2)
                while index < sql.endIndex, !sql[index...].hasPrefix("*/") { index = sql.index(after: index) }
                index = index < sql.endIndex ? sql.index(index, offsetBy: 2) : index
                continue
            }
            switch character {
            case "'", "\"", "`", "[":
                let closing: Character = character == "[" ? "]" : character
                index = sql.index(after: index)
                while index < sql.endIndex {
                    let next = sql[index]
                    index = sql.index(after: index)
                    if next == closing {
                        // A doubled quote stays inside ('it''s', "a""b"); ] cannot be doubled.
                        if closing != "]", index < sql.endIndex, sql[index] == closing {
                            index = sql.index(after: index)
                            continue
                        }
                        break
                    }
                }
                tokens.append(Token(
                    kind: character == "'" ? .string : .quoted, range: start..<index, depth: depth, keyword: ""))
            case _ where character.isLetter || character == "_" || character == "$" || character == "@"
                || character == ":" || character == "?" || character == "#":
                index = sql.index(after: index)
                advance { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" }
                // x'..' and X'..' are blob literals.
                if (character == "x" || character == "X"), index == sql.index(after: start), index < sql.endIndex,
                    sql[index] == "'"
                {
                    index = sql.index(after: index)
                    advance { $0 != "'" }
                    if index < sql.endIndex { index = sql.index(after: index) }
                    tokens.append(Token(kind: .string, range: start..<index, depth: depth, keyword: ""))
                } else {
                    tokens.append(Token(
                        kind: .word, range: start..<index, depth: depth, keyword: String(sql[start..<index]).uppercased()))
                }
            case _ where character.isNumber || (character == "." && sql[sql.index(after: index)...].first?.isNumber == true):
                advance { $0.isNumber || $0.isLetter || $0 == "." }
                tokens.append(Token(kind: .number, range: start..<index, depth: depth, keyword: ""))
            default:
                index = sql.index(after: index)
                if character == ")" { depth = max(0, depth - 1) }
                tokens.append(Token(kind: .punctuation, range: start..<index, depth: depth, keyword: String(character)))
                if character == "(" { depth += 1 }
            }
        }
        return tokens
    }
}
