/// Rows: the seed, INSERT / UPDATE / DELETE in `sql` steps, the FTS5 table's rows, and
/// Preflight's `backfill` step. Every statement is valid on any contents the model allows,
/// so the same history works seeded and from an empty file.
extension HistoryGenerator {
    // MARK: - Values

    /// A literal (or, for a foreign key, a subquery) that `column` of `table` accepts.
    func value(for column: ColumnModel, in table: TableModel) -> String {
        let nullable = !column.notNull && !table.isKeyColumn(column.id)
        if nullable, rng.chance(column.domain == .reference ? 25 : 15) {
            if seeding { note(.seedNull) }
            return "NULL"
        }
        let pooled: ValuePools.Value
        switch column.domain {
        case .uniqueText: return fresh.text(&rng)
        case .uniqueInteger:
            let autoincrement = table.key.isAutoincrement && table.isKeyColumn(column.id)
            let literal = fresh.integer(&rng, positive: autoincrement, extremes: !autoincrement)
            if literal.hasPrefix("9223") || literal.hasPrefix("-9223") { note(.extremeIntegerKey) }
            return literal
        case .uniqueBlob: return fresh.blob()
        case .uniqueReal: return fresh.real(&rng)
        case .uniqueMixed: return fresh.mixed(&rng)
        case .reference:
            guard let reference = column.reference, let parent = model.table(reference.table) else { return "NULL" }
            let key = parent.quoted(reference.column)
            return "(SELECT \(key) FROM \(parent.quotedName) ORDER BY \(key) LIMIT 1 OFFSET \(rng.int(0...5)))"
        case .integer: pooled = rng.pick(ValuePools.integers, or: ValuePools.Value(sql: "0"))
        case .count: pooled = rng.pick(ValuePools.counts, or: ValuePools.Value(sql: "0"))
        case .flag: pooled = ValuePools.Value(sql: rng.chance(50) ? "1" : "0")
        case .text: pooled = rng.pick(ValuePools.texts, or: ValuePools.Value(sql: "''"))
        case .shortText: pooled = rng.pick(ValuePools.shortTexts, or: ValuePools.Value(sql: "''"))
        case .group: pooled = rng.pick(ValuePools.groups, or: ValuePools.Value(sql: "'alpha'"))
        case .real: pooled = rng.pick(ValuePools.reals, or: ValuePools.Value(sql: "0.0"))
        case .blob: pooled = rng.pick(ValuePools.blobs, or: ValuePools.Value(sql: "X''"))
        case .mixed:
            let pools = [ValuePools.integers, ValuePools.texts, ValuePools.reals, ValuePools.blobs]
            pooled = rng.pick(rng.pick(pools, or: ValuePools.integers), or: ValuePools.Value(sql: "0"))
        }
        if seeding { note(pooled.kinds) }
        return pooled.sql
    }

    // MARK: - INSERT

    /// `INSERT INTO table(columns) VALUES (...), ...`: the key left to SQLite where it
    /// assigns one, defaulted columns sometimes left out, generated columns always.
    func insertStatement(_ table: TableModel, rows: Int) -> String {
        let columns = table.columns.filter { column in
            guard column.insertable else { return false }
            if table.isKeyColumn(column.id) { return !table.keyIsAssigned }
            if column.defaultValue != nil || !column.notNull { return !rng.chance(20) }
            return true
        }
        guard !columns.isEmpty else { return "INSERT INTO \(table.quotedName) DEFAULT VALUES" }
        var groupValues: [Int: [String]] = [:]
        let tuples = (0..<rows).map { _ in
            "(" + columns.map { column in
                let literal = value(for: column, in: table)
                if column.domain == .group { groupValues[column.id, default: []].append(literal) }
                return literal
            }.joined(separator: ", ") + ")"
        }
        if seeding, groupValues.values.contains(where: { Set($0.filter { $0 != "NULL" }).count < $0.filter { $0 != "NULL" }.count }) {
            note(.seedDuplicates)
        }
        return "INSERT INTO \(table.quotedName)(\(columns.map { SQLSyntax.identifier($0.name) }.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))"
    }

    /// Seed rows for one table: none, a few, or a dozen, in one or several statements.
    func seedStatements(_ table: TableModel) -> [String] {
        let rows = rng.weighted([1, 3, 4, 2]).map { [0, rng.int(1...3), rng.int(4...8), rng.int(9...14)][$0] } ?? 0
        guard rows > 0 else { return [] }
        if rng.chance(50) { return [insertStatement(table, rows: rows)] }
        var statements: [String] = []
        var left = rows
        while left > 0 {
            let part = min(left, rng.int(1...4))
            statements.append(insertStatement(table, rows: part))
            left -= part
        }
        return statements
    }

    func insertRows() -> Change? {
        guard let table = rng.pick(model.ordinaryTables) else { return nil }
        var statement = insertStatement(table, rows: rng.int(1...4))
        if rng.chance(20), !statement.hasSuffix("DEFAULT VALUES") {
            statement += " ON CONFLICT DO NOTHING"
            note(.upsertRows)
        } else {
            note(.insertRows)
        }
        return Change(name: "insert into \(table.name)", statements: [statement])
    }

    // MARK: - UPDATE and DELETE

    /// Columns whose values may change freely: not in the key, not UNIQUE, not a foreign
    /// key, not generated.
    func updatableColumns(_ table: TableModel) -> [ColumnModel] {
        table.columns.filter { column in
            column.insertable && !table.isKeyColumn(column.id) && !column.domain.isUnique && column.domain != .reference
                && !column.unique && !table.uniques.contains { $0.columns.contains(column.id) }
        }
    }

    /// A WHERE condition over `table`'s columns (unqualified), or nil for every row.
    func condition(_ table: TableModel) -> String? {
        var options: [String] = []
        for column in table.columns {
            let name = table.quoted(column.id)
            if !column.notNull, !table.isKeyColumn(column.id) {
                options.append("\(name) IS NULL")
                options.append("\(name) IS NOT NULL")
            }
            if column.domain.isInteger { options.append("\(name) % 3 = 1") }
            if column.domain.isText {
                options.append("\(name) = ''")
                options.append("length(\(name)) > 5")
                options.append("\(name) LIKE 'a%'")
            }
            if column.domain == .real { options.append("\(name) < 1.0") }
        }
        if let rowid = table.rowidName { options.append("\(table.quotedName).\(rowid) % 2 = 0") }
        return rng.pick(options)
    }

    /// An expression of the row's own values, valid for `column` (its domain, CHECK and NOT NULL).
    func newValue(for column: ColumnModel, in table: TableModel) -> String {
        let name = table.quoted(column.id)
        let fallback = ValuePools.defaults(for: column.domain).first ?? "NULL"
        let expressions: [String]
        switch column.domain {
        case .text: expressions = ["lower(coalesce(\(name), ''))", "coalesce(\(name), '') || ' ✓'", "upper(coalesce(\(name), 'x'))"]
        case .group: expressions = ["upper(coalesce(\(name), 'alpha'))", "'gamma'"]
        case .shortText: expressions = ["substr(coalesce(\(name), ''), 1, 8)", "'ok'"]
        case .integer: expressions = ["coalesce(\(name), 0) % 1000", "-42"]
        case .count: expressions = ["coalesce(\(name), 0) % 1000", "7"]
        case .flag: expressions = ["1 - coalesce(\(name), 0)"]
        case .real: expressions = ["round(coalesce(\(name), 0.0), 2)", "0.25"]
        case .blob: expressions = ["X'CAFE'", "zeroblob(2)"]
        case .mixed: expressions = ["typeof(\(name))", "coalesce(\(name), 0)"]
        case .uniqueText, .uniqueInteger, .uniqueBlob, .uniqueReal, .uniqueMixed, .reference: expressions = [fallback]
        }
        if rng.chance(30) { return value(for: column, in: table) }
        return rng.pick(expressions, or: fallback)
    }

    func updateRows() -> Change? {
        let tables = model.ordinaryTables.filter { !updatableColumns($0).isEmpty }
        guard let table = rng.pick(tables) else { return nil }
        let columns = rng.subset(updatableColumns(table), count: rng.int(1...2))
        let set = columns.map { "\(table.quoted($0.id)) = \(newValue(for: $0, in: table))" }.joined(separator: ", ")
        note(.updateRows)
        var statement = "UPDATE \(table.quotedName) SET \(set)"
        if let condition = condition(table) { statement += " WHERE \(condition)" }
        return Change(name: "update \(table.name)", statements: [statement])
    }

    /// DELETE with the foreign keys' ON DELETE done by hand first (the connection does not
    /// enforce them), so that no row is left pointing at a deleted parent.
    func deleteRows() -> Change? {
        // Parents half the time, so that the hand-made cascades run.
        let parents = model.ordinaryTables.filter { !model.children(of: $0.id).isEmpty }
        let candidates = !parents.isEmpty && rng.chance(50) ? parents : model.ordinaryTables
        guard let table = rng.pick(candidates), let condition = condition(table) else { return nil }
        note(.deleteRows)
        return Change(name: "delete from \(table.name)", statements: deleteStatements(table, where: condition), rowLoss: true)
    }

    private func deleteStatements(_ table: TableModel, where condition: String, depth: Int = 0) -> [String] {
        var statements: [String] = []
        if depth < 8 {
            for (child, column) in model.children(of: table.id) {
                guard let reference = column.reference else { continue }
                let keys = "SELECT \(table.quoted(reference.column)) FROM \(table.quotedName) WHERE \(condition)"
                let matching = "\(child.quoted(column.id)) IN (\(keys))"
                switch reference.onDelete {
                case .cascade:
                    note(.manualCascade)
                    statements += deleteStatements(child, where: matching, depth: depth + 1)
                case .setNull:
                    note(.manualSetNull)
                    statements.append("UPDATE \(child.quotedName) SET \(child.quoted(column.id)) = NULL WHERE \(matching)")
                }
            }
        }
        statements.append("DELETE FROM \(table.quotedName) WHERE \(condition)")
        return statements
    }

    // MARK: - FTS5

    func fullTextInsert(_ fullText: FullTextModel, rows: Int) -> String {
        let tuples = (0..<rows).map { _ in
            "(" + fullText.columns.map { _ in rng.pick(ValuePools.texts, or: ValuePools.Value(sql: "''")).sql }
                .joined(separator: ", ") + ")"
        }
        let columns = fullText.columns.map(SQLSyntax.identifier).joined(separator: ", ")
        return "INSERT INTO \(SQLSyntax.identifier(fullText.name))(\(columns)) VALUES \(tuples.joined(separator: ", "))"
    }

    func insertFullText() -> Change? {
        guard let fullText = model.fullText, fullText.writes < FullTextModel.maximumWrites else { return nil }
        model.fullText?.writes += 1
        note(.ftsInsert)
        return Change(name: "index more text", statements: [fullTextInsert(fullText, rows: rng.int(1...3))])
    }

    func deleteFullText() -> Change? {
        guard let fullText = model.fullText, fullText.writes < FullTextModel.maximumWrites else { return nil }
        model.fullText?.writes += 1
        note(.ftsDelete)
        return Change(
            name: "forget some text",
            statements: ["DELETE FROM \(SQLSyntax.identifier(fullText.name)) WHERE rowid % 2 = 0"], rowLoss: true)
    }

    // MARK: - backfill

    /// Preflight's chunked `UPDATE table SET <set> WHERE <where>`; the oracle runs it as one
    /// UPDATE. The new values depend only on the row itself, so batches change nothing.
    func backfill() -> GeneratedStep? {
        let tables = model.ordinaryTables.filter { !updatableColumns($0).isEmpty }
        guard let table = rng.pick(tables) else { return nil }
        let columns = rng.subset(updatableColumns(table), count: rng.int(1...2))
        let set = columns.map { "\(table.quoted($0.id)) = \(newValue(for: $0, in: table))" }.joined(separator: ", ")
        let filter = rng.chance(75) ? condition(table) : nil
        let definition = BackfillDefinition(
            table: spelling(of: table), set: set, filter: filter, batchRows: rng.int(1...6))
        note(.backfill)
        let oracle = "UPDATE \(table.quotedName) SET \(set)" + (filter.map { " WHERE \($0)" } ?? "")
        return GeneratedStep(
            name: "backfill \(table.name)", action: .backfill(definition), rowLoss: false, oracle: [oracle])
    }

    /// The table's name as a chunked step names it: sometimes in other ASCII case, which
    /// SQLite takes for the same table.
    func spelling(of table: TableModel) -> String {
        let upper = SQLSyntax.asciiUppercased(table.name)
        if upper != table.name, rng.chance(20) {
            note(.tableNameInOtherCase)
            return upper
        }
        return table.name
    }
}
