/// Finds the `SQLiteFeature`s one statement uses, from SQLite's own tokens (`SQLTokenizer`):
/// nothing inside a string, a quoted name or a comment counts, and a word counts only where
/// SQLite's grammar reads it as the feature. Many of the words are also names: `over`,
/// `returning`, `do` and `strict` can name columns, and `log` or `pi` tables. So `OVER` is a
/// window only after a function call's `)` and before a window, `log` a function only when
/// called where an expression can stand, `DROP` a column drop only as the action of
/// `ALTER TABLE`.
///
/// It reads what is written, not what it means: a view or trigger created with a function
/// counts, though an older SQLite would only fail when it is used.
struct SQLiteFeatureScanner {
    private let tokenizer: SQLTokenizer
    /// The statement's tokens without whitespace and comments.
    private let tokens: [SQLToken]
    /// How many parentheses enclose each token (a parenthesis is outside the pair it makes).
    private let depths: [Int]

    init(_ statement: String) {
        tokenizer = SQLTokenizer(statement)
        tokens = tokenizer.filter { !$0.isTrivia }
        var depth = 0
        var depths: [Int] = []
        for token in tokens {
            if tokenizer.matches(token, ")") { depth = max(0, depth - 1) }
            depths.append(depth)
            if tokenizer.matches(token, "(") { depth += 1 }
        }
        self.depths = depths
    }

    /// Every feature the statement uses, each once, in the order first met.
    func features() -> [SQLiteFeature] {
        var found: [SQLiteFeature] = []
        func add(_ feature: SQLiteFeature) {
            if !found.contains(feature) { found.append(feature) }
        }
        alterTableFeatures().forEach(add)
        createTableFeatures().forEach(add)
        for index in tokens.indices {
            if let feature = feature(at: index) { add(feature) }
        }
        return found
    }

    // MARK: - Statements

    /// `ALTER TABLE t DROP [COLUMN] c`, `RENAME [COLUMN] a TO b` (not `RENAME TO`), and a
    /// generated column added with `ADD [COLUMN]`.
    private func alterTableFeatures() -> [SQLiteFeature] {
        guard word(0) == "ALTER", word(1) == "TABLE" else { return [] }
        let action = isPunctuation(3, ".") ? 5 : 3
        switch word(action) {
        case "DROP": return [.dropColumn]
        case "RENAME": return word(action + 1) == "TO" ? [] : [.renameColumn]
        case "ADD": return generatesColumn(in: (action + 1)..<tokens.count, depth: 0) ? [.generatedColumns] : []
        default: return []
        }
    }

    /// In `CREATE TABLE t(...)`: a generated column in the column list, `STRICT` among the
    /// table options after it.
    private func createTableFeatures() -> [SQLiteFeature] {
        let table = ["TEMP", "TEMPORARY"].contains(word(1)) ? 2 : 1
        guard word(0) == "CREATE", word(table) == "TABLE" else { return [] }
        // `CREATE TABLE t AS SELECT ...` has no column list.
        guard let open = tokens.indices.dropFirst(table + 1).first(where: { isPunctuation($0, "(") || word($0) == "AS" }),
            isPunctuation(open, "(")
        else { return [] }
        let close = tokens.indices.dropFirst(open + 1).first { isPunctuation($0, ")") && depths[$0] == 0 } ?? tokens.count
        var found: [SQLiteFeature] = []
        if generatesColumn(in: (open + 1)..<close, depth: 1) { found.append(.generatedColumns) }
        if tokens.indices.dropFirst(close + 1).contains(where: { word($0) == "STRICT" && depths[$0] == 0 }) {
            found.append(.strictTables)
        }
        return found
    }

    /// `GENERATED ALWAYS AS (...)` or the short `AS (...)` of a column definition, at the
    /// depth of the column definitions (no `AS` of a CAST: that is inside parentheses).
    private func generatesColumn(in range: Range<Int>, depth: Int) -> Bool {
        range.contains { index in
            depths[index] == depth
                && ((word(index) == "AS" && isPunctuation(index + 1, "("))
                    || (word(index) == "GENERATED" && word(index + 1) == "ALWAYS"))
        }
    }

    // MARK: - Tokens

    /// The feature that starts at token `index`, if any.
    private func feature(at index: Int) -> SQLiteFeature? {
        let token = tokens[index]
        if token.kind == .punctuation {
            return tokenizer.matches(token, "->") || tokenizer.matches(token, "->>") ? .jsonOperators : nil
        }
        switch word(index) {
        case "OVER":
            // `count(*) OVER (...)` or `OVER win`; after anything else `over` is a name.
            return isPunctuation(index - 1, ")") && (isPunctuation(index + 1, "(") || isName(index + 1)) ? .windowFunctions : nil
        case "WINDOW":
            return isName(index + 1) && word(index + 2) == "AS" && isPunctuation(index + 3, "(") ? .windowFunctions : nil
        case "DO":
            return ["UPDATE", "NOTHING"].contains(word(index + 1)) ? .upsert : nil
        case "RETURNING":
            return isReturningClause(index) ? .returning : nil
        default:
            break
        }
        guard token.kind == .identifier || token.kind == .quotedIdentifier, isPunctuation(index + 1, "("),
            let function = SQLiteFeature.function(tokenizer.unquoted(token)), isCalled(index)
        else { return nil }
        return function
    }

    /// `RETURNING` of an INSERT, UPDATE or DELETE: outside parentheses, after the end of a
    /// clause, and not a column named so (`SET returning = 1`, `WHERE returning IS NULL`).
    private func isReturningClause(_ index: Int) -> Bool {
        guard ["INSERT", "REPLACE", "UPDATE", "DELETE", "WITH"].contains(word(0)), depths[index] == 0, index > 0,
            index + 1 < tokens.count, !isPunctuation(index + 1, "="), !isPunctuation(index + 1, ".")
        else { return false }
        let previous = tokens[index - 1]
        switch previous.kind {
        case .identifier, .quotedIdentifier, .string, .number, .blob, .variable: return true
        case .punctuation: return tokenizer.matches(previous, ")")
        case .keyword: return ["NULL", "VALUES", "NOTHING", "END", "CURRENT_TIME", "CURRENT_DATE", "CURRENT_TIMESTAMP"].contains(word(index - 1))
        default: return false
        }
    }

    /// Whether the name at `index`, followed by `(`, is a function call rather than a table,
    /// view or common table expression being named, or a column's type (`DECIMAL(10, 2)`).
    private func isCalled(_ index: Int) -> Bool {
        guard index > 0 else { return false }
        let previous = tokens[index - 1]
        if previous.kind == .identifier || previous.kind == .quotedIdentifier || isPunctuation(index - 1, ".") {
            return false
        }
        if ["TABLE", "INTO", "REFERENCES", "VIEW", "EXISTS", "WITH", "RECURSIVE", "PRAGMA"].contains(word(index - 1)) {
            return false
        }
        // `CREATE INDEX i ON log(x)`: the first ON names the table.
        if word(index - 1) == "ON", word(0) == "CREATE",
            tokens.indices.prefix(index - 1).contains(where: { word($0) == "INDEX" }),
            !tokens.indices.prefix(index - 1).contains(where: { word($0) == "ON" })
        {
            return false
        }
        // `WITH a AS (...), log(x) AS (SELECT ...)`: a table expression, not a call with an alias.
        if let close = tokens.indices.dropFirst(index + 2).first(where: { isPunctuation($0, ")") && depths[$0] == depths[index] }),
            word(close + 1) == "AS", isPunctuation(close + 2, "(") || ["NOT", "MATERIALIZED"].contains(word(close + 2))
        {
            return false
        }
        return true
    }

    /// A bare word in upper case (a keyword or an identifier); nil for any other token and
    /// past either end.
    private func word(_ index: Int) -> String? {
        guard tokens.indices.contains(index) else { return nil }
        let token = tokens[index]
        guard token.kind == .keyword || token.kind == .identifier else { return nil }
        return tokenizer.text(token).asciiUppercased()
    }

    private func isName(_ index: Int) -> Bool {
        guard tokens.indices.contains(index) else { return false }
        return tokens[index].kind == .identifier || tokens[index].kind == .quotedIdentifier
    }

    private func isPunctuation(_ index: Int, _ mark: String) -> Bool {
        tokens.indices.contains(index) && tokens[index].kind == .punctuation && tokenizer.matches(tokens[index], mark)
    }
}
