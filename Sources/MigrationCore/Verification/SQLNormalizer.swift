import CSQLite

/// Puts schema SQL into one canonical spelling, so that two statements that SQLite reads
/// the same way compare equal however they were typed.
///
/// OVERVIEW: the text is split into tokens the way SQLite's tokenizer splits it (strings,
/// quoted names, blobs, numbers, words, operators; comments and whitespace dropped), each
/// token gets one spelling, and the tokens are joined with fixed spacing rules:
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
    static func fold(_ name: String) -> String { asciiLowercased(name) }

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

    /// The canonical tokens of `sql`, comments and whitespace dropped.
    static func tokens(_ sql: String) -> [Token] {
        var scanner = Scanner(bytes: Array(sql.utf8))
        var result: [Token] = []
        while let token = scanner.next() { result.append(token) }
        return result
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        private func byte(at offset: Int) -> UInt8? {
            position + offset < bytes.count ? bytes[position + offset] : nil
        }

        private func text(_ range: Range<Int>) -> String {
            String(decoding: bytes[range], as: UTF8.self)
        }

        mutating func next() -> Token? {
            skipSpaceAndComments()
            guard let first = byte(at: 0) else { return nil }
            switch first {
            case UInt8(ascii: "'"):
                let content = quoted(closing: UInt8(ascii: "'"))
                return Token(kind: .literal, text: "'" + content.replacingOccurrences(of: "'", with: "''") + "'")
            case UInt8(ascii: "\""), UInt8(ascii: "`"):
                return quotedName(quoted(closing: first))
            case UInt8(ascii: "["):
                return quotedName(quoted(closing: UInt8(ascii: "]")))
            case UInt8(ascii: "x") where byte(at: 1) == UInt8(ascii: "'"),
                UInt8(ascii: "X") where byte(at: 1) == UInt8(ascii: "'"):
                position += 1
                return Token(kind: .literal, text: "X'" + asciiLowercased(quoted(closing: UInt8(ascii: "'"))) + "'")
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                return number()
            case UInt8(ascii: ".") where byte(at: 1).map(isDigit) == true:
                return number()
            case UInt8(ascii: "?"), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "$"):
                let start = position
                position += 1
                while let next = byte(at: 0), isWordByte(next) { position += 1 }
                return Token(kind: .literal, text: text(start..<position))
            default:
                if isWordStart(first) { return word() }
                return punctuation()
            }
        }

        private mutating func skipSpaceAndComments() {
            while let current = byte(at: 0) {
                if current == UInt8(ascii: " ") || (9...13).contains(current) {
                    position += 1
                } else if current == UInt8(ascii: "-") && byte(at: 1) == UInt8(ascii: "-") {
                    while let next = byte(at: 0), next != UInt8(ascii: "\n") { position += 1 }
                } else if current == UInt8(ascii: "/") && byte(at: 1) == UInt8(ascii: "*") {
                    position += 2
                    while position < bytes.count && !(byte(at: 0) == UInt8(ascii: "*") && byte(at: 1) == UInt8(ascii: "/")) {
                        position += 1
                    }
                    position = min(position + 2, bytes.count)
                } else {
                    return
                }
            }
        }

        /// Reads a quoted run starting at the opening quote; a doubled closing quote is
        /// one quote (except for `[...]`, which has no escape). Returns the content.
        private mutating func quoted(closing: UInt8) -> String {
            position += 1
            var content: [UInt8] = []
            while let current = byte(at: 0) {
                position += 1
                if current == closing {
                    if closing != UInt8(ascii: "]") && byte(at: 0) == closing {
                        content.append(closing)
                        position += 1
                        continue
                    }
                    break
                }
                content.append(current)
            }
            return String(decoding: content, as: UTF8.self)
        }

        /// A quoted name: spelled like the same bare word when it is a plain word, so that
        /// `"notes"` and `notes` (and `"key"` and `key`) come out the same.
        private func quotedName(_ content: String) -> Token {
            let lowered = asciiLowercased(content)
            let utf8 = Array(content.utf8)
            if let first = utf8.first, isWordStart(first), utf8.allSatisfy(isWordByte) {
                let keyword = isKeyword(content)
                return Token(kind: .identifier, text: keyword ? asciiUppercased(content) : lowered, name: lowered)
            }
            return Token(kind: .identifier, text: "\"" + lowered.replacingOccurrences(of: "\"", with: "\"\"") + "\"", name: lowered)
        }

        private mutating func word() -> Token {
            let start = position
            while let next = byte(at: 0), isWordByte(next) { position += 1 }
            let spelled = text(start..<position)
            let lowered = asciiLowercased(spelled)
            if isKeyword(spelled) {
                return Token(kind: .keyword, text: asciiUppercased(spelled), name: lowered)
            }
            return Token(kind: .identifier, text: lowered, name: lowered)
        }

        private mutating func number() -> Token {
            let start = position
            if byte(at: 0) == UInt8(ascii: "0"), let x = byte(at: 1), x == UInt8(ascii: "x") || x == UInt8(ascii: "X") {
                position += 2
                while let next = byte(at: 0), isHexDigit(next) { position += 1 }
            } else {
                while let next = byte(at: 0), isDigit(next) || next == UInt8(ascii: ".") { position += 1 }
                if let e = byte(at: 0), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
                    position += 1
                    if let sign = byte(at: 0), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { position += 1 }
                    while let next = byte(at: 0), isDigit(next) { position += 1 }
                }
            }
            return Token(kind: .literal, text: asciiLowercased(text(start..<position)))
        }

        private static let operators = ["->>", "||", "<=", ">=", "<>", "!=", "==", "<<", ">>", "->"]

        private mutating func punctuation() -> Token {
            for candidate in Scanner.operators {
                let candidateBytes = Array(candidate.utf8)
                if position + candidateBytes.count <= bytes.count
                    && Array(bytes[position..<(position + candidateBytes.count)]) == candidateBytes {
                    position += candidateBytes.count
                    let canonical = candidate == "==" ? "=" : candidate == "<>" ? "!=" : candidate
                    return Token(kind: .punctuation, text: canonical)
                }
            }
            // One character (a whole UTF-8 sequence, should a stray one appear).
            let start = position
            position += 1
            while let next = byte(at: 0), next & 0xC0 == 0x80 { position += 1 }
            return Token(kind: .punctuation, text: text(start..<position))
        }
    }
}

// MARK: - Character classes

private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

private func isHexDigit(_ byte: UInt8) -> Bool {
    isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
}

private func isWordStart(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        || byte == UInt8(ascii: "_") || byte >= 0x80
}

private func isWordByte(_ byte: UInt8) -> Bool {
    isWordStart(byte) || isDigit(byte) || byte == UInt8(ascii: "$")
}

/// Whether SQLite's tokenizer reads `word` as a keyword (https://sqlite.org/c3ref/keyword_check.html).
private func isKeyword(_ word: String) -> Bool {
    var word = word
    return word.withUTF8 { buffer in
        buffer.withMemoryRebound(to: CChar.self) { characters in
            sqlite3_keyword_check(characters.baseAddress, Int32(characters.count)) != 0
        }
    }
}

private func asciiLowercased(_ text: String) -> String {
    String(decoding: text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
}

private func asciiUppercased(_ text: String) -> String {
    String(decoding: text.utf8.map { (97...122).contains($0) ? $0 - 32 : $0 }, as: UTF8.self)
}
