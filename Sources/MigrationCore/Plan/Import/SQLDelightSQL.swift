/// SQLDelight's dialect of SQLite, turned into SQLite's own, with `SQLTokenizer`:
///
/// - `import com.example.Priority;` names a Kotlin type for the generated code: no SQL.
/// - `selectAll:` before a statement labels a query of the app's, not part of the schema;
///   the unlabelled statements of the `.sq` files are what `Schema.create` runs.
/// - `priority INTEGER AS Priority NOT NULL` gives a column a Kotlin type; SQLite sees
///   `priority INTEGER NOT NULL`. (`AS (expr)`, a generated column, and `AS SELECT` stay.)
enum SQLDelightSQL {
    /// The statements of a `.sq` file that create the schema.
    static func schemaStatements(in text: String) -> [String] {
        SQLText.statements(in: text).compactMap { statement in
            isLabelled(statement) ? nil : migrationStatement(statement)
        }
    }

    /// A statement of a `.sqm` file as SQLite runs it; nil for an `import`.
    static func migrationStatement(_ statement: String) -> String? {
        let tokenizer = SQLTokenizer(statement)
        let significant = tokenizer.filter { !$0.isTrivia }
        if let first = significant.first, first.kind == .identifier, tokenizer.text(first) == "import" { return nil }
        return withoutKotlinTypes(statement)
    }

    /// Tables first, then views, indexes and triggers, then what fills them (an `INSERT`):
    /// each `.sq` file holds one table with its own indexes and views, and a view or an
    /// index names tables of other files.
    static func creationOrder(_ statements: [String]) -> [String] {
        func rank(_ statement: String) -> Int {
            let words = StatementRules.leadingWords(of: statement, count: 4).filter { !["TEMP", "TEMPORARY", "UNIQUE", "VIRTUAL"].contains($0) }
            guard words.first == "CREATE", words.count > 1 else { return 4 }
            switch words[1] {
            case "TABLE": return 0
            case "VIEW": return 1
            case "INDEX": return 2
            case "TRIGGER": return 3
            default: return 4
            }
        }
        return statements.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    }

    /// `name:` at the start: a label (a bare `:` is an illegal token to SQLite's tokenizer,
    /// `name:SELECT` a `:SELECT` parameter).
    private static func isLabelled(_ statement: String) -> Bool {
        let tokenizer = SQLTokenizer(statement)
        let significant = tokenizer.filter { !$0.isTrivia }.prefix(2)
        guard significant.count == 2, [.identifier, .keyword].contains(significant.first?.kind) else { return false }
        let second = significant[significant.startIndex + 1]
        let text = tokenizer.text(second)
        return (second.kind == .illegal && text == ":") || (second.kind == .variable && text.hasPrefix(":"))
    }

    /// Removes each column's `AS KotlinType` in `CREATE TABLE t (...)` and
    /// `ALTER TABLE t ADD [COLUMN] ...`.
    private static func withoutKotlinTypes(_ statement: String) -> String {
        let tokenizer = SQLTokenizer(statement)
        let tokens = Array(tokenizer)
        let words = StatementRules.leadingWords(of: statement, count: 8)
        let isCreateTable = words.first == "CREATE" && words.contains("TABLE")
        let isAddColumn = words.first == "ALTER" && words.contains("ADD")
        guard isCreateTable || isAddColumn else { return statement }
        // Column definitions sit inside the table's parentheses, or after ADD.
        let columnDepth = isCreateTable ? 1 : 0
        var removed: [Range<Int>] = []
        var depth = 0
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            if token.kind == .punctuation {
                if tokenizer.matches(token, "(") { depth += 1 } else if tokenizer.matches(token, ")") { depth -= 1 }
            }
            if depth == columnDepth, token.kind == .keyword, tokenizer.matches(token, "AS"),
                let end = kotlinTypeEnd(after: index, in: tokens, tokenizer)
            {
                // From the whitespace before AS to the end of the type.
                let start = index > 0 && tokens[index - 1].kind == .whitespace ? tokens[index - 1].range.lowerBound : token.range.lowerBound
                removed.append(start..<tokens[end].range.upperBound)
                index = end + 1
                continue
            }
            index += 1
        }
        guard !removed.isEmpty else { return statement }
        var bytes: [UInt8] = []
        var position = 0
        for range in removed {
            bytes += tokenizer.bytes[position..<range.lowerBound]
            position = range.upperBound
        }
        bytes += tokenizer.bytes[position...]
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The index of the last token of the Kotlin type after the `AS` at `asIndex`
    /// (`@Annotation`s, a dotted name, `<...>` type arguments), or nil when what follows is
    /// SQL: `AS (` of a generated column, `AS SELECT` of a table made from a query.
    private static func kotlinTypeEnd(after asIndex: Int, in tokens: [SQLToken], _ tokenizer: SQLTokenizer) -> Int? {
        var index = asIndex + 1
        func skipTrivia() { while index < tokens.count, tokens[index].isTrivia { index += 1 } }
        func isName(_ token: SQLToken) -> Bool { token.kind == .identifier || token.kind == .keyword }
        skipTrivia()
        while index < tokens.count, tokens[index].kind == .variable, tokenizer.text(tokens[index]).hasPrefix("@") {
            index += 1
            skipTrivia()
        }
        guard index < tokens.count, isName(tokens[index]),
            !["SELECT", "WITH", "VALUES"].contains(where: { tokenizer.matches(tokens[index], $0) })
        else { return nil }
        var last = index
        index += 1
        // `.Name` parts of a qualified name.
        while index + 1 < tokens.count, tokenizer.matches(tokens[index], "."), isName(tokens[index + 1]) {
            last = index + 1
            index += 2
        }
        // `<...>`, nested (`>>` closes two).
        var probe = index
        while probe < tokens.count, tokens[probe].isTrivia { probe += 1 }
        if probe < tokens.count, tokenizer.matches(tokens[probe], "<") {
            var open = 0
            while probe < tokens.count {
                let text = tokenizer.text(tokens[probe])
                if tokens[probe].kind == .punctuation {
                    open += text.filter { $0 == "<" }.count - text.filter { $0 == ">" }.count
                }
                last = probe
                probe += 1
                if open <= 0 { break }
            }
        }
        return last
    }
}
