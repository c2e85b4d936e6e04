/// What a CREATE TABLE statement says that no pragma reports: its columns' collations and
/// generated expressions, its CHECK constraints, WITHOUT ROWID, STRICT and AUTOINCREMENT.
/// Read once with `SQLTokenizer`, so a CHECK inside a string or a quoted name is never
/// taken for one.
///
/// OVERVIEW: the body between the parentheses after the table's name is split at its
/// top-level commas into column definitions and table constraints; each is walked at its
/// own top level (a parenthesised group is skipped as a whole) for COLLATE, CHECK and a
/// generated column's AS. The table options follow the body.
/// `CREATE TABLE ... AS SELECT` has no body, and gives nothing.
///
/// ```swift
/// let statement = CreateTableStatement("CREATE TABLE t(a TEXT COLLATE nocase CHECK (a <> ''))")
/// statement.column(named: "A")?.collation  // "NOCASE"
/// statement.checks[0].text                 // "a <> ''"
/// statement.checks[0].canonical            // "a != ''"
/// ```
///
/// Related SQLite documentation: https://sqlite.org/lang_createtable.html
public struct CreateTableStatement {
    public struct Column: Equatable, Sendable {
        /// The name as SQLite compares names: unquoted, ASCII letters in lower case.
        public var name: String
        /// The COLLATE name in upper case; nil when the definition names none.
        public var collation: String?
        /// A generated column's expression, canonical (`SQLNormalizer`), without the
        /// parentheses around it.
        public var generatedAs: String?
    }

    /// One CHECK constraint, of a column or of the table.
    public struct Check: Equatable, Sendable {
        /// The tokens inside `CHECK ( ... )`, whitespace and comments left out; read them
        /// with the statement's `tokenizer`.
        public var tokens: [SQLToken]
        /// The expression as written, from its first token to its last.
        public var text: String
        /// The expression in `SQLNormalizer`'s canonical spelling, without parentheses
        /// around the whole of it: two CHECKs SQLite reads the same way compare equal.
        public var canonical: String
    }

    /// The statement's tokenizer, which `Check.tokens` index into.
    public let tokenizer: SQLTokenizer
    /// In the order they are declared.
    public private(set) var columns: [Column] = []
    /// In the order they are declared.
    public private(set) var checks: [Check] = []
    public private(set) var withoutRowID = false
    public private(set) var strict = false
    public private(set) var autoincrement = false

    /// The statement's tokens, whitespace and comments left out, and the same tokens in
    /// their canonical spelling, index for index.
    private let tokens: [SQLToken]
    private let words: [SQLNormalizer.Token]

    private static let constraintStarts: Set<String> = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]

    public init(_ sql: String) {
        tokenizer = SQLTokenizer(sql)
        var tokens: [SQLToken] = []
        var words: [SQLNormalizer.Token] = []
        for token in tokenizer {
            guard let word = SQLNormalizer.canonical(token, of: tokenizer) else { continue }
            tokens.append(token)
            words.append(word)
        }
        while let last = words.last, last.isPunctuation(";") {
            words.removeLast()
            tokens.removeLast()
        }
        self.tokens = tokens
        self.words = words
        // CREATE TABLE name ( body ) options -- or CREATE TABLE name AS SELECT, which has no body.
        guard let open = words.firstIndex(where: { $0.isPunctuation("(") || $0.isKeyword("AS") }),
            words[open].isPunctuation("("),
            let close = SQLNormalizer.closingIndex(in: words[...], from: open)
        else { return }
        for option in SQLNormalizer.splitAtTopLevelCommas(words[(close + 1)...]) {
            let names = option.map { $0.name ?? $0.text }
            if names == ["without", "rowid"] { withoutRowID = true }
            if names == ["strict"] { strict = true }
        }
        // A word nothing else may use, after a column's PRIMARY KEY or inside the table's
        // `PRIMARY KEY (id AUTOINCREMENT)`.
        autoincrement = words[(open + 1)..<close].contains { $0.isKeyword("AUTOINCREMENT") }
        for item in SQLNormalizer.splitAtTopLevelCommas(words[(open + 1)..<close]) {
            guard let first = item.first else { continue }
            if first.kind == .keyword && Self.constraintStarts.contains(first.text) {
                scan(item, column: nil)
            } else {
                columns.append(Column(name: first.name ?? SQLNormalizer.fold(first.text)))
                scan(item.dropFirst(), column: columns.count - 1)
            }
        }
    }

    /// The column named `name`, compared as SQLite compares names.
    public func column(named name: String) -> Column? {
        let folded = SQLNormalizer.fold(name)
        return columns.first { $0.name == folded }
    }

    /// Walks one column definition (of `columns[column]`) or table constraint at its top
    /// level, picking out COLLATE, CHECK and a generated column's AS.
    private mutating func scan(_ item: ArraySlice<SQLNormalizer.Token>, column: Int?) {
        var index = item.startIndex
        while index < item.endIndex {
            let word = item[index]
            if word.isPunctuation("("), let close = SQLNormalizer.closingIndex(in: item, from: index) {
                index = close + 1
                continue
            }
            if word.kind == .keyword {
                switch word.text {
                case "COLLATE" where index + 1 < item.endIndex:
                    if let column { columns[column].collation = (item[index + 1].name ?? item[index + 1].text).uppercased() }
                case "CHECK":
                    if let inner = group(after: index, in: item) {
                        checks.append(Check(tokens: Array(tokens[inner]), text: text(of: inner), canonical: canonical(inner)))
                    }
                case "AS":
                    if let column, let inner = group(after: index, in: item) { columns[column].generatedAs = canonical(inner) }
                default:
                    break
                }
            }
            index += 1
        }
    }

    /// The indices of the tokens inside the parentheses right after `index`.
    private func group(after index: Int, in item: ArraySlice<SQLNormalizer.Token>) -> Range<Int>? {
        let open = index + 1
        guard open < item.endIndex, item[open].isPunctuation("("),
            let close = SQLNormalizer.closingIndex(in: item, from: open)
        else { return nil }
        return (open + 1)..<close
    }

    private func canonical(_ range: Range<Int>) -> String {
        SQLNormalizer.render(SQLNormalizer.strippingOuterParentheses(Array(words[range])))
    }

    /// The text from the first token of `range` to its last, as written.
    private func text(of range: Range<Int>) -> String {
        guard let first = range.first, let last = range.last else { return "" }
        return tokenizer.text(tokens[first].range.lowerBound..<tokens[last].range.upperBound)
    }
}
