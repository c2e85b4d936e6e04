/// The schema and data a `sql` step's statements see part-way through the step, for the
/// statements that cannot be measured against the database as it is: they name a table
/// or a column that an earlier statement of the step creates (`CREATE TABLE new_t` then
/// `INSERT INTO new_t SELECT ...`; `ALTER TABLE ... ADD COLUMN c` then `CREATE INDEX ...
/// ON t(c)`; the hand-written 12-step rebuild).
///
/// - The shape (tables, columns, indexes) is a **shadow** in-memory database: the
///   file's schema, with every statement of the step replayed on it so far.
/// - The rows are **relations**: for each table the step has changed, a SELECT over the
///   real tables that yields its rows as they will be (a new table's rows are the rows
///   its INSERTs select; a table with an added column gets the column's default). They
///   become common table expressions named like the tables, which hide the real tables of
///   the same name in the measuring queries.
///
/// Nothing is written to the migrated database.
final class StepSchema {
    /// A table as the step has changed it: its columns, and a SELECT of its rows (those
    /// columns and then the rowid), or nil when the step dropped it.
    struct Relation {
        var name: String
        var columns: [String]
        var rows: String?
    }

    let probe: SpaceProbe
    private var shadowConnection: Connection?
    private var replayed: [String] = []
    private var relations: [String: Relation] = [:]
    static let key = "_preflight_key"

    init(probe: SpaceProbe) {
        self.probe = probe
    }

    /// True when the step has changed (created, altered, dropped, filled) `table`.
    func hasChanged(_ table: String) -> Bool {
        relations[table.lowercased()] != nil
    }

    /// Where statements are measured: against the file itself until the step changes a
    /// table they name, then against the shadow and the relations.
    func catalog(shadowed: Bool) throws(SQLiteError) -> Catalog {
        guard shadowed else { return Catalog(shapes: probe.connection, relations: nil) }
        let live = relations.values.filter { $0.rows != nil }.sorted { $0.name < $1.name }
        let ctes = live.map { relation in
            "\(SQLText.quote(relation.name))(\((relation.columns + [Self.key]).map(SQLText.quote).joined(separator: ", "))) AS (\(relation.rows!))"
        }
        return Catalog(shapes: try shadow(), relations: ctes.isEmpty ? nil : ctes.joined(separator: ", "))
    }

    /// The shadow database, made on first use from the file's schema and the statements
    /// replayed so far. Both come from outside (the upload, the plan): each replays as one
    /// statement of plan SQL, confined as it is on the real file.
    func shadow() throws(SQLiteError) -> Connection {
        if let shadowConnection { return shadowConnection }
        let shadow = try Connection(path: ":memory:")
        for row in try probe.connection.rows(
            "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid")
        {
            if let sql = row[0].textValue { try? shadow.runPlanStatement(sql) }
        }
        for sql in replayed { try? shadow.runPlanStatement(sql) }
        shadowConnection = shadow
        return shadow
    }

    // MARK: - After each statement

    /// Records what `sql` did to the step's tables (its verb and the table it named) and
    /// replays it on the shadow. `inserted`: the SELECT of the rows an INSERT added (in
    /// the table's column order, then the rowid) and the pages they take; `reads`: the
    /// tables the statement read.
    func apply(
        _ sql: String, verb: String?, table: String?, inserted: (rows: String, pages: Int64)?, reads: [String]
    ) {
        replayed.append(sql)
        if let shadowConnection { try? shadowConnection.runPlanStatement(sql) }
        guard let table, let verb else { return }
        let clauses = SQLClauses(sql)
        // A word or quoted name at `index` of the statement's tokens, without quotes.
        func name(at index: Int) -> String? {
            guard clauses.tokens.indices.contains(index) else { return nil }
            let token = clauses.tokens[index]
            return token.kind == .word || token.kind == .quoted ? clauses.unquoted(token) : nil
        }
        // The cases that need what the table held before this statement read it from
        // `relations` and the sizes, which only these cases change (the replay above ran
        // on the shadow).
        switch verb {
        case "CREATE":
            guard let shape = try? shadow(), let columns = try? Self.columns(of: table, in: shape) else { return }
            var rows = "SELECT \((columns + [Self.key]).map { _ in "NULL" }.joined(separator: ", ")) WHERE 0"
            if let select = clauses.createTableAsSelect() {
                let names = (0..<columns.count).map { "c\($0)" }
                rows = "WITH _preflight_p(\(names.joined(separator: ", "))) AS (\(select)) SELECT \(names.joined(separator: ", ")), NULL FROM _preflight_p"
            }
            relations[table.lowercased()] = Relation(name: table, columns: columns, rows: pinned(rows, reads: reads))
            probe.sizes.assume(table, BTreeSizes.Size(pages: 1, usedBytes: 0, cells: 0))
        case "DROP":
            relations[table.lowercased()] = Relation(name: table, columns: [], rows: nil)
            probe.sizes.assume(table, BTreeSizes.Size(pages: 0, usedBytes: 0, cells: 0))
        case "ALTER":
            guard let previous = try? rows(of: table) else { return }
            let words = StatementRules.leadingWords(of: sql, count: 8)
            if let rename = words.firstIndex(of: "RENAME"), words.indices.contains(rename + 1), words[rename + 1] == "TO",
                let name = name(at: clauses.tokens.count - 1)
            {
                relations[table.lowercased()] = Relation(name: table, columns: [], rows: nil)
                relations[name.lowercased()] = Relation(name: name, columns: previous.columns, rows: previous.rows)
                if let previousSize = try? probe.sizes.size(of: table) { probe.sizes.assume(name, previousSize) }
                probe.sizes.assume(table, BTreeSizes.Size(pages: 0, usedBytes: 0, cells: 0))
                return
            }
            guard let shape = try? shadow(), let columns = try? Self.columns(of: table, in: shape),
                let defaults = try? shape.rows("SELECT name, dflt_value FROM pragma_table_xinfo(?)", [.text(table)])
            else { return }
            var renamed: [String: String] = [:]
            if words.contains("RENAME"), let to = clauses.tokens.lastIndex(where: { $0.keyword == "TO" }), to >= 1 {
                renamed[(name(at: to + 1) ?? "").lowercased()] = name(at: to - 1) ?? ""
            }
            let had = Set(previous.columns.map { $0.lowercased() })
            let values = columns.map { column -> String in
                let source = renamed[column.lowercased()] ?? column
                if had.contains(source.lowercased()) { return SQLText.quote(source) }
                let fallback = defaults.first { $0[0].textValue?.lowercased() == column.lowercased() }?[1].textValue
                return "(\(fallback ?? "NULL"))"
            }
            relations[table.lowercased()] = Relation(
                name: table, columns: columns, rows: Self.derived(from: previous, values: values))
        case "INSERT", "REPLACE":
            guard let inserted, let previous = try? rows(of: table), let previousRows = previous.rows else { return }
            relations[table.lowercased()] = Relation(
                name: table, columns: previous.columns,
                rows: "SELECT * FROM (\(previousRows)) UNION ALL SELECT * FROM (\(pinned(inserted.rows, reads: reads)))")
            var size = (try? probe.sizes.size(of: table)) ?? BTreeSizes.Size(pages: 0, usedBytes: 0, cells: 0)
            size.pages += inserted.pages
            size.usedBytes += inserted.pages * probe.geometry.usableSize
            probe.sizes.assume(table, size)
        default:
            return
        }
    }

    /// `rows` with the real tables it reads pinned: a later statement may give a
    /// relation the name of a table this one read (the 12-step rebuild renames the new
    /// table to the old one's name), and the SELECT must go on reading the real table.
    private func pinned(_ rows: String, reads: [String]) -> String {
        let real = Set(reads.map { $0.lowercased() }).filter { !$0.hasPrefix("sqlite_") && relations[$0] == nil }
        guard !real.isEmpty else { return rows }
        let pins = Catalog(
            shapes: probe.connection,
            relations: real.sorted().map { "\(SQLText.quote($0)) AS (SELECT * FROM main.\(SQLText.quote($0)))" }
                .joined(separator: ", "))
        let clauses = SQLClauses(rows)
        if clauses.tokens.first?.keyword == "WITH", let select = clauses.firstTopLevel(of: ["SELECT", "VALUES"]) {
            return (pins.with(clauses.source(from: 0, to: select)) ?? "") + " " + clauses.source(from: select)
        }
        return (pins.with(nil) ?? "") + " " + rows
    }

    /// The rows of `table` as the step has them so far: its relation, or the real table.
    private func rows(of table: String) throws(SQLiteError) -> Relation? {
        if let relation = relations[table.lowercased()] { return relation }
        guard let shape = try SpaceProbe.table(table, in: probe.connection) else { return nil }
        let columns = shape.insertable.map(\.name)
        let rowid = shape.rowidExpression.map { "main.\(shape.quotedName).\($0)" } ?? "NULL"
        return Relation(
            name: shape.name, columns: columns,
            rows: "SELECT \((columns.map(SQLText.quote) + [rowid]).joined(separator: ", ")) FROM main.\(shape.quotedName)")
    }

    private static func derived(from previous: Relation, values: [String]) -> String? {
        guard let rows = previous.rows else { return nil }
        let names = (previous.columns + [key]).map(SQLText.quote).joined(separator: ", ")
        return "WITH _preflight_prev(\(names)) AS (\(rows)) SELECT \((values + [SQLText.quote(key)]).joined(separator: ", ")) FROM _preflight_prev"
    }

    private static func columns(of table: String, in connection: Connection) throws(SQLiteError) -> [String]? {
        try SpaceProbe.table(table, in: connection)?.insertable.map(\.name)
    }
}
