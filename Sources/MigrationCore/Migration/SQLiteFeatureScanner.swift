/// Finds the `SQLiteFeature`s one statement uses, from SQLite's own tokens (`SQLTokenizer`):
/// nothing inside a string, a quoted name or a comment counts, and a word counts only where
/// SQLite's grammar reads it as the feature. Many of the words are also names: `over`,
/// `returning`, `filter`, `true` and `strict` can name columns, and `log` or `pi` tables. So
/// `OVER` is a window only after a function call's `)` and before a window, `log` a function
/// only when called where an expression can stand, `DROP` a column drop only as the action
/// of `ALTER TABLE`, `TRUE` a constant only where no column is being named.
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

    /// A feature where the statement uses it, and the token an older parser stops at.
    struct Use {
        var feature: SQLiteFeature
        var near: String?
    }

    /// Every use of a feature, each feature once (its first use), in the order first met.
    func uses() -> [Use] {
        var found: [Use] = []
        func add(_ use: Use) {
            if !found.contains(where: { $0.feature == use.feature }) { found.append(use) }
        }
        alterTableFeatures().forEach(add)
        createTableFeatures().forEach(add)
        upsertFeatures().forEach(add)
        for index in tokens.indices {
            if let use = use(at: index) { add(use) }
        }
        return found
    }

    /// A use whose older parser stops at token `index`.
    private func use(_ feature: SQLiteFeature, near index: Int) -> Use {
        Use(feature: feature, near: tokens.indices.contains(index) ? tokenizer.text(tokens[index]) : nil)
    }

    // MARK: - Statements

    /// `ALTER TABLE t DROP [COLUMN] c`, `RENAME [COLUMN] a TO b` (not `RENAME TO`), and a
    /// generated column added with `ADD [COLUMN]`.
    private func alterTableFeatures() -> [Use] {
        guard let action = alterTableAction else { return [] }
        switch word(action) {
        case "DROP": return [use(.dropColumn, near: action)]
        case "RENAME": return word(action + 1) == "TO" ? [] : [use(.renameColumn, near: action + 1)]
        case "ADD": return generatedColumn(in: (action + 1)..<tokens.count, depth: 0).map { [use(.generatedColumns, near: $0)] } ?? []
        default: return []
        }
    }

    /// Whether the statement is `ALTER TABLE t ADD [COLUMN] ...` with a CHECK constraint:
    /// from 3.37.0 SQLite checks it against the rows already there, before it did not.
    var addsCheckedColumn: Bool {
        guard let action = alterTableAction, word(action) == "ADD" else { return false }
        return tokens.indices.dropFirst(action + 1).contains { word($0) == "CHECK" }
    }

    /// Where the action (`ADD`, `DROP`, `RENAME`) of `ALTER TABLE [schema.]t` is; nil for
    /// any other statement.
    private var alterTableAction: Int? {
        guard word(0) == "ALTER", word(1) == "TABLE" else { return nil }
        return isPunctuation(3, ".") ? 5 : 3
    }

    /// In `CREATE TABLE t(...)`: a generated column in the column list, `STRICT` among the
    /// table options after it.
    private func createTableFeatures() -> [Use] {
        guard let (open, close) = createTableColumns() else { return [] }
        var found: [Use] = []
        if let generated = generatedColumn(in: (open + 1)..<close, depth: 1) { found.append(use(.generatedColumns, near: generated)) }
        if tokens.indices.dropFirst(close + 1).contains(where: { word($0) == "STRICT" && depths[$0] == 0 }) {
            found.append(Use(feature: .strictTables, near: nil))
        }
        return found
    }

    /// The parentheses around the column list of `CREATE [TEMP] TABLE t(...)`; nil for any
    /// other statement and for `CREATE TABLE t AS SELECT ...`.
    private func createTableColumns() -> (open: Int, close: Int)? {
        let table = ["TEMP", "TEMPORARY"].contains(word(1)) ? 2 : 1
        guard word(0) == "CREATE", word(table) == "TABLE",
            let open = tokens.indices.dropFirst(table + 1).first(where: { isPunctuation($0, "(") || word($0) == "AS" }),
            isPunctuation(open, "(")
        else { return nil }
        let close = tokens.indices.dropFirst(open + 1).first { isPunctuation($0, ")") && depths[$0] == 0 } ?? tokens.count
        return (open, close)
    }

    /// The `AS` of `GENERATED ALWAYS AS (...)` or of the short `AS (...)` of a column
    /// definition, at the depth of the column definitions (no `AS` of a CAST: that is
    /// inside parentheses). An older parser stops at that `AS`.
    private func generatedColumn(in range: Range<Int>, depth: Int) -> Int? {
        range.first { index in
            depths[index] == depth && word(index) == "AS" && isPunctuation(index + 1, "(")
        }
    }

    /// UPSERT: each `ON CONFLICT` followed by a conflict target or `DO` (a constraint's
    /// `ON CONFLICT REPLACE` is older). Before 3.35 an INSERT takes one such clause (a
    /// trigger's INSERTs, between semicolons, one each), and `DO UPDATE` only after a target.
    private func upsertFeatures() -> [Use] {
        let clauses = tokens.indices.filter { index in
            word(index) == "ON" && word(index + 1) == "CONFLICT" && (isPunctuation(index + 2, "(") || word(index + 2) == "DO")
        }
        guard let first = clauses.first else { return [] }
        var found = [use(.upsert, near: first)]
        let second = zip(clauses, clauses.dropFirst()).first { pair in
            !(pair.0..<pair.1).contains { isPunctuation($0, ";") }
        }
        if let second {
            found.append(use(.upsertChain, near: second.1))
        } else if let bare = clauses.first(where: { word($0 + 2) == "DO" && word($0 + 3) == "UPDATE" }) {
            found.append(use(.upsertChain, near: bare + 3))
        }
        return found
    }

    // MARK: - Tokens

    /// The use that starts at token `index`, if any.
    private func use(at index: Int) -> Use? {
        let token = tokens[index]
        if token.kind == .punctuation {
            guard tokenizer.matches(token, "->") || tokenizer.matches(token, "->>") else { return nil }
            // An older tokenizer reads `-` and then `>` or `>>`.
            return Use(feature: .jsonOperators, near: String(tokenizer.text(token).dropFirst()))
        }
        switch word(index) {
        case "OVER":
            // `count(*) OVER (...)` or `OVER win`; after anything else `over` is a name. An
            // older parser takes OVER for an alias and stops after it.
            return isPunctuation(index - 1, ")") && (isPunctuation(index + 1, "(") || isName(index + 1))
                ? use(.windowFunctions, near: index + 1) : nil
        case "WINDOW":
            return isName(index + 1) && word(index + 2) == "AS" && isPunctuation(index + 3, "(")
                ? Use(feature: .windowFunctions, near: nil) : nil
        case "RETURNING":
            return isReturningClause(index) ? use(.returning, near: index) : nil
        case "FILTER":
            return isPunctuation(index - 1, ")") && isPunctuation(index + 1, "(") && word(index + 2) == "WHERE"
                ? use(.aggregateFilter, near: index + 1) : nil
        case "NULLS":
            return ["FIRST", "LAST"].contains(word(index + 1)) ? use(.nullsOrder, near: index) : nil
        case "AS":
            if word(index + 1) == "MATERIALIZED", isPunctuation(index + 2, "(") { return use(.materializedHint, near: index + 1) }
            if word(index + 1) == "NOT", word(index + 2) == "MATERIALIZED" { return use(.materializedHint, near: index + 1) }
            return nil
        case "RIGHT", "FULL":
            return word(index + 1) == "JOIN" || (word(index + 1) == "OUTER" && word(index + 2) == "JOIN")
                ? Use(feature: .outerJoins, near: nil) : nil
        case "IS":
            let distinct = word(index + 1) == "NOT" ? index + 2 : index + 1
            return word(distinct) == "DISTINCT" && word(distinct + 1) == "FROM" ? use(.distinctFrom, near: distinct) : nil
        case "UPDATE":
            return updateFrom(at: index).map { use(.updateFrom, near: $0) }
        case "HAVING":
            return groupsBefore(having: index) ? nil : Use(feature: .havingWithoutGroupBy, near: nil)
        case "TRUE", "FALSE":
            return isBooleanConstant(index) ? Use(feature: .trueFalse, near: nil) : nil
        default:
            break
        }
        guard token.kind == .identifier || token.kind == .quotedIdentifier else { return nil }
        let name = tokenizer.unquoted(token).asciiLowercased()
        if name == "sqlite_schema" || name == "sqlite_temp_schema" { return Use(feature: .schemaTableName, near: nil) }
        guard isPunctuation(index + 1, "("), isCalled(index) else { return nil }
        if let order = orderByInside(call: index) { return use(.aggregateOrderBy, near: order) }
        if name == "string_agg", let close = closingParenthesis(ofCall: index), word(close + 1) == "OVER" {
            return Use(feature: .stringAggWindow, near: nil)
        }
        return SQLiteFeature.function(name).map { Use(feature: $0, near: nil) }
    }

    /// The `)` that closes the call whose name is at `index`.
    private func closingParenthesis(ofCall index: Int) -> Int? {
        tokens.indices.dropFirst(index + 2).first { isPunctuation($0, ")") && depths[$0] == depths[index] }
    }

    /// The `FROM` of `UPDATE t SET ... FROM ...`, when the `UPDATE` at `index` begins a
    /// statement (not `ON UPDATE`, `DO UPDATE` or a trigger's `AFTER UPDATE`): the first
    /// `FROM` after its `SET`, at its depth, before the statement ends.
    private func updateFrom(at index: Int) -> Int? {
        let begins = index == 0 || isPunctuation(index - 1, ";") || word(index - 1) == "BEGIN"
            || (isPunctuation(index - 1, ")") && word(0) == "WITH")
        guard begins else { return nil }
        let depth = depths[index]
        var set = false
        for next in tokens.indices.dropFirst(index + 1) where depths[next] == depth {
            if isPunctuation(next, ";") || word(next) == "END" { return nil }
            if word(next) == "SET" { set = true }
            if set && word(next) == "FROM" { return next }
        }
        return nil
    }

    /// Whether the SELECT that the `HAVING` at `index` belongs to has a `GROUP BY`: one
    /// between it and the SELECT, at its depth.
    private func groupsBefore(having index: Int) -> Bool {
        let depth = depths[index]
        for earlier in tokens.indices.prefix(index).reversed() where depths[earlier] == depth {
            if word(earlier) == "GROUP" { return true }
            if word(earlier) == "SELECT" { return false }
        }
        return false
    }

    /// Whether `TRUE` or `FALSE` at `index` is the constant rather than a name: not a
    /// column being declared or given, not a qualified name, not a call.
    private func isBooleanConstant(_ index: Int) -> Bool {
        guard tokens[index].kind == .identifier, !isPunctuation(index + 1, "("), !isPunctuation(index + 1, "."),
            !isPunctuation(index - 1, "."), !["AS", "COLUMN", "ADD", "SET", "DEFAULT"].contains(word(index - 1) ?? "")
        else { return false }
        if let (open, close) = createTableColumns(), index > open, index < close, depths[index] == 1,
            isPunctuation(index - 1, "(") || isPunctuation(index - 1, ",")
        {
            return false
        }
        return true
    }

    /// The `ORDER` of `agg(x ORDER BY y)` in the call whose name is at `index`: at the
    /// call's own depth, in a call that is no subquery.
    private func orderByInside(call index: Int) -> Int? {
        let inside = depths[index] + 1
        for next in tokens.indices.dropFirst(index + 2) {
            if depths[next] < inside { return nil }
            guard depths[next] == inside else { continue }
            if word(next) == "SELECT" || word(next) == "VALUES" { return nil }
            if word(next) == "ORDER" && word(next + 1) == "BY" { return next }
        }
        return nil
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
