/// A Kotlin or Java source file as tokens, for reading what a Room app hands to `execSQL`
/// and declares in its annotations without compiling it.
///
/// OVERVIEW: one pass over the text that knows exactly what the two languages need to
/// tell code from text: `//` and `/* */` comments (nested in Kotlin), string literals with
/// their escapes, Kotlin's `$name` and `${...}` templates, raw strings (`"""`, Kotlin) and
/// text blocks (`"""`, Java 15), character literals and backtick-quoted names. A `"` inside
/// a comment, or `//` inside a string, is therefore never mistaken for the other.
///
///     let tokens = SourceTokens("val A = \"x\" // \"not a string\"", language: .kotlin)
///     // identifier val, identifier A, symbol =, string [x]
///
/// LIMITATIONS: numbers are kept as written (an importer needs only the integers in
/// `Migration(1, 2)`); operators are single characters apart from `::` and `->`; a
/// template's expression is kept as source text and read again when it is evaluated.
struct SourceTokens {
    enum Language: Sendable { case kotlin, java }

    struct Token: Equatable {
        enum Kind: Equatable { case identifier, string, character, number, symbol }
        var kind: Kind
        /// An identifier's name, a number as written or a symbol.
        var text: String
        /// A string's pieces in order (empty for other kinds).
        var parts: [StringPart] = []
        /// `"""`: a Kotlin raw string or a Java text block.
        var isRaw = false
        /// 1-based line of the token's first character.
        var line: Int
    }

    enum StringPart: Equatable {
        case text(String)
        /// A Kotlin template: the expression's source (`name` for `$name`).
        case template(String)
    }

    let language: Language
    let tokens: [Token]

    init(_ source: String, language: Language) {
        self.language = language
        var lexer = Lexer(characters: Array(source.unicodeScalars), language: language)
        tokens = lexer.readAll()
    }

    subscript(index: Int) -> Token { tokens[index] }
    var count: Int { tokens.count }

    /// Whether the token at `index` is the identifier or symbol `text`.
    func `is`(_ index: Int, _ text: String) -> Bool {
        index >= 0 && index < tokens.count && tokens[index].kind != .string && tokens[index].kind != .character
            && tokens[index].text == text
    }

    /// The arguments of a call or an annotation whose parentheses hold `range`: the ranges
    /// between its top-level commas.
    func arguments(in range: Range<Int>) -> [Range<Int>] {
        var arguments: [Range<Int>] = []
        var start = range.lowerBound
        var index = range.lowerBound
        while index < range.upperBound {
            if self.is(index, ",") {
                arguments.append(start..<index)
                start = index + 1
            } else if self.is(index, "(") || self.is(index, "[") || self.is(index, "{"), let close = closing(index) {
                index = close
            }
            index += 1
        }
        if start < range.upperBound { arguments.append(start..<range.upperBound) }
        return arguments
    }

    /// The index of the bracket that closes the one at `open` (`(`, `[` or `{`), or nil
    /// when the file ends first.
    func closing(_ open: Int) -> Int? {
        let pairs: [String: String] = ["(": ")", "[": "]", "{": "}"]
        guard open < tokens.count, tokens[open].kind == .symbol, pairs[tokens[open].text] != nil else { return nil }
        var depth = 0
        for index in open..<tokens.count where tokens[index].kind == .symbol {
            switch tokens[index].text {
            case "(", "[", "{": depth += 1
            case ")", "]", "}":
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
        }
        return nil
    }
}

// MARK: - The lexer

private struct Lexer {
    let characters: [Unicode.Scalar]
    let language: SourceTokens.Language
    var position = 0
    var line = 1

    init(characters: [Unicode.Scalar], language: SourceTokens.Language) {
        self.characters = characters
        self.language = language
    }

    func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        position + offset < characters.count ? characters[position + offset] : nil
    }

    mutating func advance() -> Unicode.Scalar {
        let character = characters[position]
        position += 1
        if character == "\n" { line += 1 }
        return character
    }

    mutating func readAll() -> [SourceTokens.Token] {
        var tokens: [SourceTokens.Token] = []
        while let character = peek() {
            let start = line
            if character.properties.isWhitespace {
                _ = advance()
            } else if character == "/", peek(1) == "/" {
                while let next = peek(), next != "\n" { _ = advance() }
            } else if character == "/", peek(1) == "*" {
                skipBlockComment()
            } else if character == "\"" {
                tokens.append(readString(line: start))
            } else if character == "'" {
                tokens.append(readCharacter(line: start))
            } else if character == "`", language == .kotlin {
                _ = advance()
                var name = ""
                while let next = peek(), next != "`", next != "\n" { name.unicodeScalars.append(advance()) }
                if peek() == "`" { _ = advance() }
                tokens.append(.init(kind: .identifier, text: name, line: start))
            } else if Self.startsIdentifier(character) {
                tokens.append(.init(kind: .identifier, text: readWhile(Self.continuesIdentifier), line: start))
            } else if character.properties.numericType != nil, ("0"..."9").contains(character) {
                tokens.append(.init(kind: .number, text: readWhile { Self.continuesIdentifier($0) || $0 == "." }, line: start))
            } else if character == ":", peek(1) == ":" {
                position += 2
                tokens.append(.init(kind: .symbol, text: "::", line: start))
            } else if character == "-", peek(1) == ">" {
                position += 2
                tokens.append(.init(kind: .symbol, text: "->", line: start))
            } else {
                tokens.append(.init(kind: .symbol, text: String(advance()), line: start))
            }
        }
        return tokens
    }

    static func startsIdentifier(_ character: Unicode.Scalar) -> Bool {
        character == "_" || character == "$" || character.properties.isAlphabetic
    }

    static func continuesIdentifier(_ character: Unicode.Scalar) -> Bool {
        startsIdentifier(character) || ("0"..."9").contains(character)
    }

    mutating func readWhile(_ accepts: (Unicode.Scalar) -> Bool) -> String {
        var text = ""
        while let next = peek(), accepts(next) { text.unicodeScalars.append(advance()) }
        return text
    }

    /// `/* ... */`; Kotlin's nest, Java's end at the first `*/`.
    mutating func skipBlockComment() {
        position += 2
        var depth = 1
        while let character = peek() {
            if character == "*", peek(1) == "/" {
                position += 2
                depth -= 1
                if depth == 0 || language == .java { return }
            } else if character == "/", peek(1) == "*", language == .kotlin {
                position += 2
                depth += 1
            } else {
                _ = advance()
            }
        }
    }

    mutating func readCharacter(line start: Int) -> SourceTokens.Token {
        _ = advance()
        var text = ""
        while let next = peek(), next != "'", next != "\n" {
            if next == "\\" {
                _ = advance()
                if let escaped = readEscape() { text.unicodeScalars.append(escaped) }
            } else {
                text.unicodeScalars.append(advance())
            }
        }
        if peek() == "'" { _ = advance() }
        return .init(kind: .character, text: text, line: start)
    }

    mutating func readString(line start: Int) -> SourceTokens.Token {
        let isRaw = peek(1) == "\"" && peek(2) == "\""
        position += isRaw ? 3 : 1
        var parts: [SourceTokens.StringPart] = []
        var text = ""
        func flush() {
            if !text.isEmpty { parts.append(.text(text)) }
            text = ""
        }
        while let character = peek() {
            if isRaw {
                // The raw string ends at the last `"` of the first run of three or more.
                if character == "\"", peek(1) == "\"", peek(2) == "\"" {
                    while peek(3) == "\"" { text.unicodeScalars.append(advance()) }
                    position += 3
                    break
                }
            } else if character == "\"" {
                _ = advance()
                break
            } else if character == "\n" {
                break  // never closed on its line: not code either compiler accepts
            }
            if character == "\\", !(isRaw && language == .kotlin) {
                _ = advance()
                if language == .java, isRaw, peek() == "\n" {
                    _ = advance()  // a text block's line continuation
                } else if let escaped = readEscape() {
                    text.unicodeScalars.append(escaped)
                }
            } else if character == "$", language == .kotlin, let template = readTemplate() {
                flush()
                parts.append(.template(template))
            } else {
                text.unicodeScalars.append(advance())
            }
        }
        flush()
        if isRaw, language == .java { parts = Self.textBlock(parts) }
        return .init(kind: .string, text: "", parts: parts, isRaw: isRaw, line: start)
    }

    /// After a `\`: the character it stands for (`\n`, `\t`, `\uXXXX`, ...).
    mutating func readEscape() -> Unicode.Scalar? {
        guard let character = peek() else { return nil }
        _ = advance()
        switch character {
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "b": return "\u{8}"
        case "f": return "\u{C}"
        case "s": return " "
        case "0": return "\0"
        case "u":
            var hex = ""
            while hex.count < 4, let next = peek(), next.properties.isASCIIHexDigit { hex.unicodeScalars.append(advance()) }
            return UInt32(hex, radix: 16).flatMap(Unicode.Scalar.init)
        default: return character
        }
    }

    /// At a `$` in a Kotlin string: `$name` or `${expression}`, or nil when the `$` is
    /// just a character.
    mutating func readTemplate() -> String? {
        if peek(1) == "{" {
            position += 2
            var depth = 1
            var source = ""
            while let character = peek() {
                if character == "\"" {
                    // A string inside the expression: its braces are text.
                    source.unicodeScalars.append(advance())
                    while let next = peek(), next != "\"", next != "\n" {
                        if next == "\\" { source.unicodeScalars.append(advance()) }
                        if peek() != nil { source.unicodeScalars.append(advance()) }
                    }
                    if peek() == "\"" { source.unicodeScalars.append(advance()) }
                    continue
                }
                if character == "{" { depth += 1 }
                if character == "}" {
                    depth -= 1
                    if depth == 0 {
                        _ = advance()
                        return source
                    }
                }
                source.unicodeScalars.append(advance())
            }
            return source
        }
        guard let next = peek(1), next == "_" || next.properties.isAlphabetic else { return nil }
        _ = advance()
        return readWhile { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }

    /// A Java text block's content as the compiler makes it: the line after the opening
    /// quotes starts it, and the indentation common to its lines is removed.
    static func textBlock(_ parts: [SourceTokens.StringPart]) -> [SourceTokens.StringPart] {
        let text = parts.map { part -> String in
            if case .text(let text) = part { return text }
            return ""
        }.joined()
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let first = lines.first, first.allSatisfy(\.isWhitespace) { lines.removeFirst() }
        return [.text(KotlinText.removingCommonIndent(lines, isTextBlock: true))]
    }
}
