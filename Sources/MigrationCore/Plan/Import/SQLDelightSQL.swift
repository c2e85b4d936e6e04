/// SQLDelight's dialect of SQLite, read with `SQLTokenizer` and turned into SQLite's own as
/// SQLDelight's compiler turns it (its grammar, sqldelight.bnf, and `rawSqlText` in
/// TreeUtil.kt):
///
/// - `import com.example.Priority;` names a Kotlin type for the generated code: no SQL.
/// - `selectAll:` before a statement labels a query of the app's, and `upsert { ...; ...; }`
///   groups several under one label; neither is part of the schema. The unlabelled
///   statements of the `.sq` files are what `Schema.create` runs.
/// - `priority INTEGER AS Priority NOT NULL` gives a column a Kotlin type (also
///   `AS @Redacted String`, `AS List<String>`, `AS VALUE`, `AS LOCK`); SQLite sees
///   `priority INTEGER NOT NULL`. An FTS5 table's column loses its type and constraints
///   too: FTS5 takes neither. `AS (expr)` of a generated column, `AS SELECT`, and an `AS`
///   inside an expression stay.
enum SQLDelightSQL {
    /// The statements of a `.sq` file that create the schema, in the file's order.
    static func schemaStatements(in text: String, file: String) throws(PlanImportError) -> [String] {
        try unlabelledStatements(in: text, file: file).compactMap(migrationStatement)
    }

    /// A statement of a `.sqm` file as SQLite runs it; nil for an `import`.
    static func migrationStatement(_ statement: String) -> String? {
        let statement = SQLDelightStatement(statement)
        guard let first = statement.significant.first else { return nil }
        if statement.tokens[first].kind == .identifier, statement.matches(first, "import") { return nil }
        return statement.withoutKotlinTypes()
    }

    /// The statements of a `.sq` file that carry no label, imports included. A group
    /// (`name { ...; ...; }`) ends at its `}`, where no `;` is, so the text after it is
    /// split anew: read with the rest, a trigger after a group would be cut at its first `;`.
    private static func unlabelledStatements(in text: String, file: String) throws(PlanImportError) -> [String] {
        let bytes = Array(text.utf8)
        var statements: [String] = []
        var start = 0
        reading: while start < bytes.count {
            // `start` is just past a `}`, so on a character boundary.
            let tokenizer = SQLTokenizer(String(decoding: bytes[start...], as: UTF8.self))
            for range in tokenizer.statementRanges() {
                if let groupEnd = try endOfGroup(startingAt: range.lowerBound, in: tokenizer, file: file) {
                    start += groupEnd
                    continue reading
                }
                let statement = tokenizer.text(range)
                if !isLabelled(SQLDelightStatement(statement)) { statements.append(statement) }
            }
            break
        }
        return statements
    }

    /// Where the group that starts at `start` ends (just past its `}`), or nil when no
    /// group starts there. `{` and `}` are illegal in SQL outside strings and comments, so
    /// `name {` starts one and the tokenizer finds its `}`.
    private static func endOfGroup(startingAt start: Int, in tokenizer: SQLTokenizer, file: String) throws(PlanImportError) -> Int? {
        var position = start
        var significant: [SQLToken] = []
        while position < tokenizer.bytes.count, significant.count < 2 {
            let token = tokenizer.token(at: position)
            position = token.range.upperBound
            if !token.isTrivia { significant.append(token) }
        }
        guard significant.count == 2, [.identifier, .keyword].contains(significant[0].kind),
            significant[1].kind == .illegal, tokenizer.matches(significant[1], "{")
        else { return nil }
        var depth = 1
        while position < tokenizer.bytes.count {
            let token = tokenizer.token(at: position)
            position = token.range.upperBound
            guard token.kind == .illegal else { continue }
            if tokenizer.matches(token, "{") { depth += 1 }
            if tokenizer.matches(token, "}") { depth -= 1 }
            if depth == 0 { return position }
        }
        throw PlanImportError("\(file): the group of statements \(tokenizer.text(significant[0])) { has no closing }")
    }

    /// `name:` at the start: a label. A bare `:` is an illegal token to SQLite's tokenizer;
    /// `name:SELECT`, written without a space, reads as the word and a `:SELECT` parameter.
    private static func isLabelled(_ statement: SQLDelightStatement) -> Bool {
        let significant = statement.significant.prefix(2)
        guard significant.count == 2, let first = significant.first,
            [.identifier, .keyword].contains(statement.tokens[first].kind)
        else { return false }
        let second = statement.tokens[significant[significant.startIndex + 1]]
        let text = statement.tokenizer.text(second)
        if second.kind == .illegal && text == ":" { return true }
        return second.kind == .variable && text.hasPrefix(":") && second.range.lowerBound == statement.tokens[first].range.upperBound
    }
}

/// One statement's tokens, with what SQLDelight's Kotlin types take out of it.
private struct SQLDelightStatement {
    let tokenizer: SQLTokenizer
    let tokens: [SQLToken]
    /// Indices of the tokens other than whitespace and comments.
    let significant: [Int]

    init(_ statement: String) {
        tokenizer = SQLTokenizer(statement)
        let tokens = Array(tokenizer)
        self.tokens = tokens
        significant = tokens.indices.filter { !tokens[$0].isTrivia }
    }

    func matches(_ index: Int, _ spelling: String) -> Bool {
        index < tokens.count && tokenizer.matches(tokens[index], spelling)
    }

    /// The statement with each column's Kotlin type taken out, in `CREATE TABLE t (...)`,
    /// `ALTER TABLE t ADD [COLUMN] ...` and `CREATE VIRTUAL TABLE t USING module(...)`,
    /// from its first token: SQLDelight's statement starts there, after any comment.
    func withoutKotlinTypes() -> String {
        guard let first = significant.first else { return "" }
        var removed: [Range<Int>] = []
        let words = significant.prefix(4).map { tokenizer.text(tokens[$0]).asciiUppercased() }
        let head = words.filter { !["TEMP", "TEMPORARY"].contains($0) }
        if head.starts(with: ["CREATE", "TABLE"]), let open = tableColumnsOpening() {
            removed = items(from: open + 1).compactMap(\.kotlinType)
        } else if head.starts(with: ["CREATE", "VIRTUAL", "TABLE"]), let (module, open) = moduleArguments() {
            let arguments = items(from: open + 1)
            removed = module == "fts5" ? arguments.compactMap(fts5ColumnDefinition) : arguments.compactMap(\.kotlinType)
        } else if words.starts(with: ["ALTER", "TABLE"]), let column = addedColumn() {
            removed = items(from: column).compactMap(\.kotlinType)
        }
        var bytes: [UInt8] = []
        var position = tokens[first].range.lowerBound
        for range in removed {
            bytes += tokenizer.bytes[position..<range.lowerBound]
            position = range.upperBound
        }
        bytes += tokenizer.bytes[position...]
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: - Where the columns are

    /// The position in `significant` of the `(` of `CREATE TABLE name (`; nil for
    /// `CREATE TABLE name AS SELECT ...`, whose `AS`s are the query's.
    private func tableColumnsOpening() -> Int? {
        for position in 2..<significant.count {
            if matches(significant[position], "(") { return position }
            if tokens[significant[position]].kind == .keyword, matches(significant[position], "AS") { return nil }
        }
        return nil
    }

    /// The module's name, in lower case, and the position in `significant` of the `(` of
    /// its arguments in `CREATE VIRTUAL TABLE name USING module(...)`.
    private func moduleArguments() -> (module: String, open: Int)? {
        guard let using = significant.firstIndex(where: { tokens[$0].kind == .keyword && matches($0, "USING") }),
            using + 2 < significant.count, matches(significant[using + 2], "(")
        else { return nil }
        return (tokenizer.text(tokens[significant[using + 1]]).asciiLowercased(), using + 2)
    }

    /// The position in `significant` of the column definition in
    /// `ALTER TABLE [schema.]name ADD [COLUMN] ...`.
    private func addedColumn() -> Int? {
        var position = 3
        if position < significant.count, matches(significant[position], ".") { position += 2 }
        guard position < significant.count, matches(significant[position], "ADD") else { return nil }
        position += 1
        if position < significant.count, matches(significant[position], "COLUMN") { position += 1 }
        return position < significant.count ? position : nil
    }

    /// A column definition, a table constraint or a module argument.
    private struct Item {
        /// Positions in `significant`.
        var positions: [Int] = []
        /// The bytes of its Kotlin type: from the end of its SQL type to the end of
        /// `AS [@Annotation ...] Type`, as SQLDelight cuts them.
        var kotlinType: Range<Int>?
    }

    /// The comma-separated items from `start` (a position in `significant`) to the `)`
    /// that closes their list, or to the end. A Kotlin type is read whole, so its commas
    /// (`Map<String, Int>`) and parentheses (`@Since(version = "4")`) are its own: at the
    /// top level of a column definition, `AS` starts one unless `(` follows (a generated
    /// column); every other `AS` of SQL is inside parentheses.
    private func items(from start: Int) -> [Item] {
        var items: [Item] = []
        var item = Item()
        var depth = 0
        var position = start
        while position < significant.count {
            let index = significant[position]
            if depth == 0, matches(index, ",") || matches(index, ")") {
                items.append(item)
                if matches(index, ")") { return items }
                item = Item()
                position += 1
                continue
            }
            if depth == 0, tokens[index].kind == .keyword, matches(index, "AS"), position > start,
                let end = kotlinTypeEnd(from: position + 1)
            {
                item.kotlinType = tokens[significant[position - 1]].range.upperBound..<tokens[significant[end]].range.upperBound
                item.positions += Array(position...end)
                position = end + 1
                continue
            }
            depth += parenthesisBalance(index)
            item.positions.append(position)
            position += 1
        }
        items.append(item)
        return items
    }

    // MARK: - Kotlin types

    /// The position in `significant` of the last token of
    /// `[@Annotation[(...)] ...] name[.name...][<...>]` that starts at `position`; nil when
    /// what is there is no Kotlin type.
    private func kotlinTypeEnd(from position: Int) -> Int? {
        var position = position
        var last: Int?
        func isName(_ position: Int) -> Bool {
            position < significant.count && [.identifier, .keyword].contains(tokens[significant[position]].kind)
        }
        func qualifiedName() {
            while position + 1 < significant.count, matches(significant[position], "."), isName(position + 1) {
                last = position + 1
                position += 2
            }
        }
        // Annotations: `@Name`, `@a.b.Name`, with arguments in parentheses. SQLite reads
        // `@Name(...)` up to a space as one parameter token, so parentheses are counted in
        // every token but strings.
        while position < significant.count, [.variable, .illegal].contains(tokens[significant[position]].kind),
            tokenizer.text(tokens[significant[position]]).hasPrefix("@")
        {
            var open = parenthesisBalance(significant[position])
            last = position
            position += 1
            qualifiedName()
            if open == 0, position < significant.count, matches(significant[position], "(") {
                open = 1
                last = position
                position += 1
            }
            while open > 0, position < significant.count {
                open += parenthesisBalance(significant[position])
                last = position
                position += 1
            }
        }
        guard isName(position) else { return nil }
        last = position
        position += 1
        qualifiedName()
        // Type arguments, nested: `Map<String, List<Int>>` (`>>` closes two).
        if position < significant.count, matches(significant[position], "<") {
            var open = 0
            while position < significant.count {
                let token = tokens[significant[position]]
                if token.kind == .punctuation {
                    let text = tokenizer.text(token)
                    open += text.filter { $0 == "<" }.count - text.filter { $0 == ">" }.count
                }
                last = position
                position += 1
                if open <= 0 { break }
            }
        }
        return last
    }

    /// `(` minus `)` in a token, strings, quoted names and comments aside.
    private func parenthesisBalance(_ index: Int) -> Int {
        let token = tokens[index]
        guard [.punctuation, .variable, .illegal].contains(token.kind) else { return 0 }
        let text = tokenizer.text(token)
        return text.filter { $0 == "(" }.count - text.filter { $0 == ")" }.count
    }

    /// The bytes after the column's name in an FTS5 argument that defines a column with a
    /// type (`title TEXT NOT NULL`, `tags TEXT AS List<String>`): SQLDelight writes the
    /// name alone. An option (`prefix = '2 3'`), a bare name and `name UNINDEXED` stay.
    private func fts5ColumnDefinition(_ argument: Item) -> Range<Int>? {
        let indices = argument.positions.map { significant[$0] }
        guard indices.count > 1, !indices.contains(where: { matches($0, "=") }),
            !(indices.count == 2 && matches(indices[1], "UNINDEXED")),
            let first = indices.first, let last = indices.last
        else { return nil }
        return tokens[first].range.upperBound..<tokens[last].range.upperBound
    }
}
