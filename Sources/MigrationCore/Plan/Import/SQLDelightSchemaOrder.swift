/// The order in which SQLDelight's generated `Schema.create` runs the `.sq` files'
/// unlabelled statements (`forInitializationStatements` in its TreeUtil.kt), given them
/// in file order (the files sorted by name): every `CREATE TABLE`, as written (SQLite's
/// dialect allows reference cycles, so SQLDelight does not sort tables by foreign key);
/// then the views, each after the views it selects from; then the indexes and triggers;
/// then everything else, virtual tables and `INSERT`s among them. A trigger or an index
/// so comes after its table, and an `INSTEAD OF` trigger after its view.
enum SQLDelightSchemaOrder {
    static func ordered(_ statements: [String]) -> [String] {
        var tables: [String] = []
        var views: [View] = []
        var creators: [String] = []
        var others: [String] = []
        for statement in statements {
            let words = StatementRules.leadingWords(of: statement, count: 4).filter { !["TEMP", "TEMPORARY", "UNIQUE"].contains($0) }
            switch words.count > 1 && words[0] == "CREATE" ? words[1] : "" {
            case "TABLE": tables.append(statement)
            case "VIEW": views.append(View(statement))
            case "INDEX", "TRIGGER": creators.append(statement)
            default: others.append(statement)
            }
        }
        return tables + dependencyOrder(views) + creators + others
    }

    /// The views, each after the views it names, as SQLDelight orders them: pass after pass,
    /// each pass taking the views that name no view still left. A name taken for a view's
    /// when it is a column's can only hold a view back; where that makes a cycle, what is
    /// left keeps the files' order.
    private static func dependencyOrder(_ views: [View]) -> [String] {
        var left = views
        var ordered: [String] = []
        while !left.isEmpty {
            let names = Set(left.map(\.name))
            let ready = left.filter { names.isDisjoint(with: $0.namesUsed) }
            guard !ready.isEmpty else { return ordered + left.map(\.sql) }
            ordered += ready.map(\.sql)
            let taken = Set(ready.map(\.name))
            left.removeAll { taken.contains($0.name) }
        }
        return ordered
    }

    /// A `CREATE [TEMP] VIEW [IF NOT EXISTS] [schema.]name AS ...`: its name and every name
    /// its query uses, folded to lower case as SQLite folds names.
    private struct View {
        var sql: String
        var name = ""
        var namesUsed: Set<String> = []

        init(_ sql: String) {
            self.sql = sql
            let tokenizer = SQLTokenizer(sql)
            let tokens = tokenizer.filter { !$0.isTrivia }
            guard var position = tokens.firstIndex(where: { tokenizer.matches($0, "VIEW") }) else { return }
            position += 1
            if position + 2 < tokens.count, tokenizer.matches(tokens[position], "IF"),
                tokenizer.matches(tokens[position + 1], "NOT"), tokenizer.matches(tokens[position + 2], "EXISTS")
            {
                position += 3
            }
            if position + 2 < tokens.count, tokenizer.matches(tokens[position + 1], ".") { position += 2 }
            guard position < tokens.count else { return }
            func folded(_ token: SQLToken) -> String? {
                [.identifier, .keyword, .quotedIdentifier].contains(token.kind) ? tokenizer.unquoted(token).asciiLowercased() : nil
            }
            name = folded(tokens[position]) ?? ""
            namesUsed = Set(tokens[(position + 1)...].compactMap(folded))
        }
    }
}
