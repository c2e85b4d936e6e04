import MigrationCore

/// How one table is filled: which columns take values distinct per row, which follow a
/// foreign key to which parent row, and which are drawn from their shape; then the fill
/// itself, one `INSERT ... SELECT` over a recursive counter, repeated for the rows a CHECK
/// turned down.
struct TableFill {
    enum Role: Equatable {
        /// The rowid (INTEGER PRIMARY KEY, or the hidden rowid named explicitly): `n`.
        case rowid
        /// Part of a UNIQUE or PRIMARY KEY with columns of its own: a value from `n` alone.
        case distinct
        /// A column of foreign key `index`.
        case foreignKey(Int)
        case free
    }

    let table: SchemaShape.Table
    let rows: Int
    /// Per column (lowercased): its shape, measured in the sample or by default.
    let shapes: [String: ColumnShape]
    private(set) var roles: [String: Role] = [:]
    /// Per foreign key: the parent's row number for row `n`, as SQL; keys whose columns
    /// are a whole UNIQUE key step through the parents' rows in mixed radix, so that the
    /// combinations stay distinct.
    private(set) var parentRows: [Int: String] = [:]
    /// The foreign keys that step through their parents' rows for a UNIQUE key: never NULL.
    private(set) var keyedForeignKeys: Set<Int> = []
    /// The salt of this table's stream (its place in the schema).
    let salt: Int
    /// Rows the plan's own steps put in the table (Room's `room_master_table`): the new
    /// rows are numbered after them, so that their keys stay clear of the old ones.
    let existingRows: Int64

    init(
        table: SchemaShape.Table, rows: Int, counts: [String: Int], sample: SampleShape?, salt: Int, existingRows: Int64
    ) throws(SynthesisError) {
        self.table = table
        self.rows = rows
        self.salt = salt
        self.existingRows = existingRows
        var shapes: [String: ColumnShape] = [:]
        for column in table.columns {
            var shape = sample?.shape(table: table.name, column: column.name) ?? ColumnShape.defaults(for: column)
            if column.notNull { shape.nullFraction = 0 }
            shapes[column.name.lowercased()] = shape
        }
        self.shapes = shapes
        var foreignKeyOf: [String: Int] = [:]
        for (index, key) in table.foreignKeys.enumerated() {
            for column in key.from { foreignKeyOf[column.lowercased()] = index }
        }
        if let rowid = table.rowidName { roles[rowid.lowercased()] = .rowid }
        for key in table.uniqueKeys {
            let lowered = key.map { $0.lowercased() }
            if lowered.contains(where: { roles[$0] == .rowid }) { continue }
            let own = lowered.filter { foreignKeyOf[$0] == nil }
            if !own.isEmpty {
                for column in own where roles[column] == nil { roles[column] = .distinct }
                continue
            }
            // A key made only of foreign keys (a join table): the parents' rows in mixed radix.
            var divisor = 1
            var combinations = 1
            for index in lowered.compactMap({ foreignKeyOf[$0] }).reduce(into: [Int](), { if !$0.contains($1) { $0.append($1) } })
            where parentRows[index] == nil {
                let parent = table.foreignKeys[index].parent
                let count = counts[parent.lowercased()] ?? 0
                parentRows[index] = "((preflight_counter.n - 1) / \(divisor) % \(max(count, 1)) + 1)"
                keyedForeignKeys.insert(index)
                divisor *= max(count, 1)
                combinations = combinations.multipliedReportingOverflow(by: count).overflow ? Int.max : combinations * count
            }
            if rows > combinations {
                throw .unsatisfiable(
                    "table \"\(table.name)\": its UNIQUE key (\(key.joined(separator: ", "))) is made of foreign keys, and their parents' rows make only \(combinations) distinct combinations for the \(rows) rows asked; give the parents more rows")
            }
        }
        for (column, index) in foreignKeyOf where roles[column] == nil { roles[column] = .foreignKey(index) }
        for column in table.columns where roles[column.name.lowercased()] == nil { roles[column.name.lowercased()] = .free }
        for (index, key) in table.foreignKeys.enumerated() where parentRows[index] == nil {
            let isSelf = key.parent.caseInsensitiveCompare(table.name) == .orderedSame
            let count = isSelf ? rows : counts[key.parent.lowercased()] ?? 0
            // A self-reference points at this row or one before it, which exist once the fill ends.
            parentRows[index] = isSelf ? "(1 + \(ValueExpression.draw(salt * 1000 + 900 + index)) % preflight_counter.n)"
                : "(1 + \(ValueExpression.draw(salt * 1000 + 900 + index)) % \(max(count, 1)))"
        }
    }

    /// The key number of new row `row` (1...N, as SQL): after the rows already there.
    func numbered(_ row: String) -> String {
        existingRows == 0 ? row : "(\(row) + \(existingRows))"
    }

    /// The value of `column` for key number `row` (SQL), when it follows from the row number
    /// alone: what a child's foreign key to this table names.
    func keyValue(_ column: String, row: String) -> String? {
        switch roles[column.lowercased()] {
        case .rowid: return row
        case .distinct:
            guard let shape = shapes[column.lowercased()] else { return nil }
            return ValueExpression.distinct(shape, bounds: ColumnFacts(column: column, checks: table.checks).valueBounds, row: row)
        default: return nil
        }
    }

    // MARK: - The statement

    /// Each inserted column with its value expression. `fills`: every table's fill, by
    /// lowercased name, for the parents' key values; `counts`: rows per table.
    func columnValues(fills: [String: TableFill], counts: [String: Int]) throws(SynthesisError) -> [(name: String, value: String)] {
        var values: [(String, String)] = []
        if let rowid = table.rowidName, table.rowidColumn == nil { values.append((rowid, numbered("preflight_counter.n"))) }
        for (position, column) in table.columns.enumerated() where !column.generated {
            let key = column.name.lowercased()
            let shape = shapes[key] ?? ColumnShape.defaults(for: column)
            let columnSalt = salt * 1000 + position * 4
            switch roles[key] ?? .free {
            case .rowid:
                values.append((column.name, numbered("preflight_counter.n")))
            case .distinct:
                values.append((column.name, keyValue(column.name, row: numbered("preflight_counter.n")) ?? numbered("preflight_counter.n")))
            case .foreignKey(let index):
                let reference = try parentValue(of: column, key: index, fills: fills, counts: counts)
                let fraction = keyedForeignKeys.contains(index) ? 0 : shape.nullFraction
                values.append((column.name, reference.map { ValueExpression.nullable($0, fraction: fraction, salt: columnSalt + 2) } ?? "NULL"))
            case .free:
                let facts = ColumnFacts(column: column.name, checks: table.checks)
                let distinctValues = shape.distinctShare < 0.9 && shape.commonValues.isEmpty
                    ? max(1, Int((shape.distinctShare * Double(rows) * (1 - shape.nullFraction)).rounded())) : nil
                let value = ValueExpression.drawn(shape, facts: facts, salt: columnSalt, distinctValues: distinctValues)
                values.append((column.name, ValueExpression.nullable(value, fraction: shape.nullFraction, salt: columnSalt + 2)))
            }
        }
        return values
    }

    /// The parent's key value that `column` (of foreign key `index`) holds, or nil for NULL
    /// (a nullable column whose parent gets no rows).
    private func parentValue(
        of column: SchemaShape.Column, key index: Int, fills: [String: TableFill], counts: [String: Int]
    ) throws(SynthesisError) -> String? {
        let key = table.foreignKeys[index]
        let parentCount = counts[key.parent.lowercased()] ?? 0
        guard parentCount > 0, let parent = fills[key.parent.lowercased()], let drawnRow = parentRows[index] else {
            if !column.notNull { return nil }
            throw .unsatisfiable(
                "table \"\(table.name)\", column \"\(column.name)\" is NOT NULL and references \"\(key.parent)\", which gets no rows; give \"\(key.parent)\" rows too (--rows \(key.parent)=N)")
        }
        guard let position = key.from.firstIndex(where: { $0.caseInsensitiveCompare(column.name) == .orderedSame }),
            position < key.to.count
        else { return nil }
        let row = parent.numbered(drawnRow)
        let target = key.to[position]
        if let value = parent.keyValue(target, row: row) { return value }
        // A parent key that is not a function of the row number (itself a foreign key):
        // read it from the parent row, which the parents-first order has filled.
        if let rowid = parent.table.rowidName {
            return "(SELECT \(SQLText.quote(target)) FROM \(SQLText.quote(parent.table.name)) WHERE \(SQLText.quote(rowid)) = \(row))"
        }
        throw .unsatisfiable(
            "table \"\(table.name)\", column \"\(column.name)\" references \"\(key.parent)\"(\(target)), a WITHOUT ROWID table whose key is itself a foreign key; Preflight cannot yet synthesize that")
    }

    // MARK: - Filling

    /// The condition that row `n` is in the table already, for the rows a retry makes
    /// again; nil when the table has no key computed from `n`.
    func presence(_ values: [(name: String, value: String)]) -> String? {
        if let rowid = table.rowidName {
            return "EXISTS (SELECT 1 FROM \(SQLText.quote(table.name)) WHERE \(SQLText.quote(rowid)) = \(numbered("preflight_counter.n")))"
        }
        let keyed = table.primaryKey.filter { roles[$0.lowercased()] == .distinct }
        guard !keyed.isEmpty else { return nil }
        let conditions = keyed.compactMap { column in
            values.first { $0.name.caseInsensitiveCompare(column) == .orderedSame }.map { "\(SQLText.quote(column)) = \($0.value)" }
        }
        return "EXISTS (SELECT 1 FROM \(SQLText.quote(table.name)) WHERE \(conditions.joined(separator: " AND ")))"
    }

    /// The counter: rows 1...N with the seeded stream state `h`, started at `start`; from
    /// row `after + 1` on, with the state that row has in the whole stream, for the rows
    /// appended to a table that holds rows 1...`after` already.
    func counter(start: Int64, after: Int = 0) -> String {
        "WITH RECURSIVE preflight_counter(n, h) AS (SELECT \(after + 1), \(ValueExpression.advanced(start, by: after)) UNION ALL SELECT n + 1, h * \(ValueExpression.streamMultiplier) % \(ValueExpression.modulus) FROM preflight_counter WHERE n < \(rows))"
    }
}
