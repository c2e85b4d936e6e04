/// One token of SQL text, as SQLite's tokenizer reads it (see `SQLTokenizer`).
public struct SQLToken: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// Spaces, tabs, newlines, form feeds, carriage returns (and a UTF-8 byte order mark).
        case whitespace
        /// `-- ...` to the end of the line, or `/* ... */`; an unterminated one runs to the
        /// end of the text.
        case comment
        /// A bare word that SQLite knows as a keyword (`sqlite3_keyword_check`). Many
        /// keywords can still name things (`key`, `temp`): that is the parser's business.
        case keyword
        /// A bare word that is not a keyword: letters, digits, `_`, `$` and every byte from
        /// 0x80 up (so any non-ASCII character), not starting with a digit or `$`.
        case identifier
        /// `"..."`, `` `...` `` (a doubled quote stands for one) or `[...]` (no escape).
        case quotedIdentifier
        /// `'...'`, a doubled `''` standing for one quote.
        case string
        /// `x'00ff'`: an even number of hex digits.
        case blob
        /// `12`, `1.5`, `.5`, `1e-5`, `0x1F`.
        case number
        /// `?`, `?12`, `:name`, `@name`, `$name`, `#name`.
        case variable
        /// An operator or a mark: `( ) , . ; + - * / % & | ~ = == < <= <> << > >= >> != || -> ->>`.
        case punctuation
        /// What SQLite refuses ("unrecognized token"): an unterminated quote, a blob with an
        /// odd count or a non-hex digit, a number run into letters (`1abc`), a lone `!`, a
        /// stray control byte or one of `\ ^ { }`.
        case illegal
    }

    public var kind: Kind
    /// Where the token is in the text's UTF-8 bytes.
    public var range: Range<Int>

    public init(kind: Kind, range: Range<Int>) {
        self.kind = kind
        self.range = range
    }

    /// Whitespace or a comment: what SQLite's parser skips.
    public var isTrivia: Bool { kind == .whitespace || kind == .comment }
}
