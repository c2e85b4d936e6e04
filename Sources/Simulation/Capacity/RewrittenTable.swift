import MigrationCore

/// The table a step rewrites or fills, row by row, when it names one: what grows in a
/// capacity search when nothing else says which table should.
enum RewrittenTable {
    static func of(_ action: StepAction) -> String? {
        switch action {
        case .rebuild(let rebuild): return rebuild.table
        case .backfill(let backfill): return backfill.table
        case .sql(let statements): return statements.lazy.compactMap(touchedTable).first
        }
    }

    /// Whether a step commits per batch with a durable cursor, so that a killed launch keeps
    /// the batches it did (docs/CONTRACT.md §1 `rebuild`, `backfill`).
    static func isResumable(_ action: StepAction) -> Bool {
        switch action {
        case .rebuild, .backfill: return true
        case .sql: return false
        }
    }

    /// `UPDATE [OR ...] name`, `CREATE [UNIQUE] INDEX ... ON name`, `ALTER TABLE name`:
    /// the statements whose cost grows with a table's rows.
    private static func touchedTable(_ sql: String) -> String? {
        let tokenizer = SQLTokenizer(sql)
        let tokens = tokenizer.filter { !$0.isTrivia }
        guard let first = tokens.first else { return nil }
        func name(after index: Int) -> String? {
            guard tokens.indices.contains(index) else { return nil }
            var position = index
            // A schema-qualified name: the table is the part after the dot.
            if tokens.indices.contains(position + 2), tokenizer.matches(tokens[position + 1], ".") { position += 2 }
            let token = tokens[position]
            guard token.kind == .identifier || token.kind == .quotedIdentifier || token.kind == .keyword else { return nil }
            return tokenizer.unquoted(token)
        }
        if tokenizer.matches(first, "UPDATE") {
            return tokens.count > 2 && tokenizer.matches(tokens[1], "OR") ? name(after: 3) : name(after: 1)
        }
        if tokenizer.matches(first, "ALTER"), tokens.count > 2, tokenizer.matches(tokens[1], "TABLE") {
            return name(after: 2)
        }
        if tokenizer.matches(first, "CREATE"), tokens.prefix(3).contains(where: { tokenizer.matches($0, "INDEX") }),
            let on = tokens.firstIndex(where: { tokenizer.matches($0, "ON") })
        {
            return name(after: on + 1)
        }
        return nil
    }
}
