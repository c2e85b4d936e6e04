import CSQLite

/// Splits SQL text into tokens by SQLite's own rules, in one pass over its UTF-8 bytes.
///
/// OVERVIEW: `token(at:)` is `sqlite3GetToken` of SQLite's tokenize.c (the 3.40 line,
/// which Preflight links), case for case: every byte from 0x80 up is an identifier
/// character, `$` one after the first, a number is `1`, `1.5`, `.5`, `1e-5` or `0x1F`, and
/// comments, quotes and brackets that are never closed run to the end of the text. Every
/// byte belongs to exactly one token, so the tokens tile the text and any run of them can
/// be sliced out of the original (`text(_:)`).
///
/// ```swift
/// let tokenizer = SQLTokenizer("SELECT 'a;b' -- note")
/// for token in tokenizer where !token.isTrivia { print(token.kind, tokenizer.text(token)) }
/// // keyword SELECT, string 'a;b'
/// ```
///
/// DIFFERENCES FROM SQLITE: SQLite reads a C string and stops at the first NUL byte; a
/// Swift string may hold one, and here it is an illegal token of its own, so that what
/// follows is still read (a NUL inside a quote or comment ends it, as in SQLite). Digit
/// separators (`1_000`, SQLite 3.46) read as 3.40 reads them: an illegal token.
///
/// Related SQLite documentation: https://sqlite.org/lang_keywords.html,
/// https://sqlite.org/c3ref/keyword_check.html
public struct SQLTokenizer: Sequence {
    /// The UTF-8 bytes of the text; token ranges index them.
    public let bytes: [UInt8]

    public init(_ sql: String) {
        bytes = Array(sql.utf8)
    }

    /// Every token in order, whitespace and comments included.
    public func makeIterator() -> Iterator { Iterator(tokenizer: self) }

    public struct Iterator: IteratorProtocol {
        let tokenizer: SQLTokenizer
        var position = 0

        public mutating func next() -> SQLToken? {
            guard position < tokenizer.bytes.count else { return nil }
            let token = tokenizer.token(at: position)
            position = token.range.upperBound
            return token
        }
    }

    // MARK: - Reading tokens

    /// The text of `token` (or of a run of tokens: `range`), as written.
    public func text(_ token: SQLToken) -> String { text(token.range) }

    public func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    /// Whether `token` is spelled `spelling`, ASCII letters compared without case, as
    /// SQLite compares keywords: `matches(token, "END")`.
    public func matches(_ token: SQLToken, _ spelling: String) -> Bool {
        guard token.range.count == spelling.utf8.count else { return false }
        return zip(bytes[token.range], spelling.utf8).allSatisfy { asciiLower($0) == asciiLower($1) }
    }

    /// What `token` spells: a quoted identifier or string without its quotes (a doubled
    /// quote as one, as `sqlite3Dequote` reads it), any other token as written.
    public func unquoted(_ token: SQLToken) -> String {
        guard token.kind == .quotedIdentifier || token.kind == .string, token.range.count >= 2 else {
            return text(token)
        }
        let opening = bytes[token.range.lowerBound]
        let closing = opening == UInt8(ascii: "[") ? UInt8(ascii: "]") : opening
        var content: [UInt8] = []
        var index = token.range.lowerBound + 1
        let end = token.range.upperBound - 1
        while index < end {
            content.append(bytes[index])
            // A doubled closing quote is one quote; `[...]` has none inside, so this never fires there.
            index += bytes[index] == closing && index + 1 < end && bytes[index + 1] == closing ? 2 : 1
        }
        return String(decoding: content, as: UTF8.self)
    }

    /// Whether `bytes[range]` is a word SQLite's tokenizer reads as a keyword.
    public func isKeyword(_ range: Range<Int>) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                sqlite3_keyword_check(characters.baseAddress.map { $0 + range.lowerBound }, Int32(range.count)) != 0
            }
        }
    }

    // MARK: - sqlite3GetToken

    /// The token that starts at byte `start` (which must be inside the text).
    public func token(at start: Int) -> SQLToken {
        let (kind, length) = scan(from: start)
        return SQLToken(kind: kind, range: start..<(start + length))
    }

    /// The kind and length of the token at `start`, following tokenize.c's switch on the
    /// class of its first byte. `z(i)` is 0 past the end, as the C string's terminator is.
    private func scan(from start: Int) -> (SQLToken.Kind, Int) {
        func z(_ offset: Int) -> UInt8 { start + offset < bytes.count ? bytes[start + offset] : 0 }
        let first = z(0)
        switch first {
        // CC_SPACE. A vertical tab (0x0B) continues whitespace but cannot start it.
        case 0x09, 0x0A, 0x0C, 0x0D, 0x20:
            var i = 1
            while isSpace(z(i)) { i += 1 }
            return (.whitespace, i)
        case UInt8(ascii: "-"):
            if z(1) == UInt8(ascii: "-") {
                var i = 2
                while z(i) != 0 && z(i) != UInt8(ascii: "\n") { i += 1 }
                return (.comment, i)
            }
            if z(1) == UInt8(ascii: ">") { return (.punctuation, z(2) == UInt8(ascii: ">") ? 3 : 2) }
            return (.punctuation, 1)
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ";"), UInt8(ascii: "+"), UInt8(ascii: "*"),
            UInt8(ascii: "%"), UInt8(ascii: ","), UInt8(ascii: "&"), UInt8(ascii: "~"):
            return (.punctuation, 1)
        case UInt8(ascii: "/"):
            // "/*" as the last two bytes is a slash and a star, not a comment.
            guard z(1) == UInt8(ascii: "*"), z(2) != 0 else { return (.punctuation, 1) }
            var i = 3
            var c = z(2)
            while !(c == UInt8(ascii: "*") && z(i) == UInt8(ascii: "/")) {
                c = z(i)
                if c == 0 { break }
                i += 1
            }
            return (.comment, c != 0 ? i + 1 : i)
        case UInt8(ascii: "="):
            return (.punctuation, z(1) == UInt8(ascii: "=") ? 2 : 1)
        case UInt8(ascii: "<"):
            let second = z(1)
            return (.punctuation, second == UInt8(ascii: "=") || second == UInt8(ascii: ">") || second == UInt8(ascii: "<") ? 2 : 1)
        case UInt8(ascii: ">"):
            let second = z(1)
            return (.punctuation, second == UInt8(ascii: "=") || second == UInt8(ascii: ">") ? 2 : 1)
        case UInt8(ascii: "!"):
            return z(1) == UInt8(ascii: "=") ? (.punctuation, 2) : (.illegal, 1)
        case UInt8(ascii: "|"):
            return (.punctuation, z(1) == UInt8(ascii: "|") ? 2 : 1)
        case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
            var i = 1
            var c: UInt8 = 0
            while true {
                c = z(i)
                if c == 0 { break }
                if c == first {
                    if z(i + 1) != first { break }
                    i += 1
                }
                i += 1
            }
            if c == 0 { return (.illegal, i) }
            return (first == UInt8(ascii: "'") ? .string : .quotedIdentifier, i + 1)
        case UInt8(ascii: "["):
            var i = 1
            var c = first
            while c != UInt8(ascii: "]") {
                c = z(i)
                if c == 0 { break }
                i += 1
            }
            return (c == UInt8(ascii: "]") ? .quotedIdentifier : .illegal, i)
        case UInt8(ascii: "."):
            guard isDigit(z(1)) else { return (.punctuation, 1) }
            return number(z)
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            return number(z)
        case UInt8(ascii: "?"):
            var i = 1
            while isDigit(z(i)) { i += 1 }
            return (.variable, i)
        case UInt8(ascii: "$"), UInt8(ascii: "@"), UInt8(ascii: "#"), UInt8(ascii: ":"):
            return namedVariable(z)
        case UInt8(ascii: "x"), UInt8(ascii: "X"):
            guard z(1) == UInt8(ascii: "'") else { return word(from: start, z) }
            var i = 2
            while isHexDigit(z(i)) { i += 1 }
            var kind = SQLToken.Kind.blob
            if z(i) != UInt8(ascii: "'") || i % 2 != 0 {
                kind = .illegal
                while z(i) != 0 && z(i) != UInt8(ascii: "'") { i += 1 }
            }
            return (kind, z(i) != 0 ? i + 1 : i)
        case 0xEF where z(1) == 0xBB && z(2) == 0xBF:
            // A UTF-8 byte order mark reads as whitespace wherever it is.
            return (.whitespace, 3)
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "_"), 0x80...0xFF:
            return word(from: start, z)
        default:
            // Control bytes (NUL included, see the type's comment), `\`, `^`, `{`, `}`, DEL.
            return (.illegal, 1)
        }
    }

    /// CC_DIGIT (and CC_DOT before a digit). In 3.40 a hex number ends at its last hex
    /// digit; a decimal one run into identifier characters is illegal as a whole.
    private func number(_ z: (Int) -> UInt8) -> (SQLToken.Kind, Int) {
        if z(0) == UInt8(ascii: "0"), z(1) == UInt8(ascii: "x") || z(1) == UInt8(ascii: "X"), isHexDigit(z(2)) {
            var i = 3
            while isHexDigit(z(i)) { i += 1 }
            return (.number, i)
        }
        var i = 0
        while isDigit(z(i)) { i += 1 }
        if z(i) == UInt8(ascii: ".") {
            i += 1
            while isDigit(z(i)) { i += 1 }
        }
        if z(i) == UInt8(ascii: "e") || z(i) == UInt8(ascii: "E"),
            isDigit(z(i + 1)) || ((z(i + 1) == UInt8(ascii: "+") || z(i + 1) == UInt8(ascii: "-")) && isDigit(z(i + 2)))
        {
            i += 2
            while isDigit(z(i)) { i += 1 }
        }
        var kind = SQLToken.Kind.number
        while isIdentifierByte(z(i)) {
            kind = .illegal
            i += 1
        }
        return (kind, i)
    }

    /// CC_DOLLAR and CC_VARALPHA: `$name`, `@name`, `#name`, `:name`, with Tcl's `::` and
    /// `(suffix)` forms; illegal without a name.
    private func namedVariable(_ z: (Int) -> UInt8) -> (SQLToken.Kind, Int) {
        var kind = SQLToken.Kind.variable
        var nameLength = 0
        var i = 1
        while z(i) != 0 {
            let c = z(i)
            if isIdentifierByte(c) {
                nameLength += 1
            } else if c == UInt8(ascii: "("), nameLength > 0 {
                repeat { i += 1 } while z(i) != 0 && !isSpace(z(i)) && z(i) != UInt8(ascii: ")")
                if z(i) == UInt8(ascii: ")") { i += 1 } else { kind = .illegal }
                break
            } else if c == UInt8(ascii: ":"), z(i + 1) == UInt8(ascii: ":") {
                i += 1
            } else {
                break
            }
            i += 1
        }
        return (nameLength == 0 ? .illegal : kind, i)
    }

    /// CC_KYWD0, CC_KYWD, CC_ID, and x or X not before a quote: a bare word, which is a
    /// keyword when SQLite's keyword table holds it (no keyword has a digit, `$`, `_` or a
    /// byte from 0x80, so checking the whole word is what tokenize.c's keyword path does).
    private func word(from start: Int, _ z: (Int) -> UInt8) -> (SQLToken.Kind, Int) {
        var i = 1
        while isIdentifierByte(z(i)) { i += 1 }
        return (isKeyword(start..<(start + i)) ? .keyword : .identifier, i)
    }
}

// MARK: - Character classes (sqlite3CtypeMap)

/// sqlite3Isspace: space, \t, \n, \v, \f, \r.
private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

private func isHexDigit(_ byte: UInt8) -> Bool {
    isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
}

/// IdChar: ASCII letters and digits, `_`, `$`, and every byte from 0x80.
private func isIdentifierByte(_ byte: UInt8) -> Bool {
    byte >= 0x80 || isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
        || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
}

private func asciiLower(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
}

// MARK: - Case as SQLite folds it

extension String {
    /// The text with ASCII letters in lower case and nothing else changed: how SQLite
    /// folds names and keywords (it leaves other letters alone).
    func asciiLowercased() -> String {
        String(decoding: utf8.map(asciiLower), as: UTF8.self)
    }

    func asciiUppercased() -> String {
        String(decoding: utf8.map { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) ? $0 - 32 : $0 }, as: UTF8.self)
    }
}
