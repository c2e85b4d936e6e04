import CSQLite

/// The pages a `sql` step's statements write, in its one transaction.
///
/// Each statement is prepared with the authorizer against a shadow: an in-memory database
/// with the file's schema and the step's earlier statements replayed on it, so that
/// `INSERT INTO new_t ...` after `CREATE TABLE new_t` prepares. What SQLite reports names
/// what the statement creates, drops, alters, reads and writes, its triggers' writes
/// included. Sizes are the file's b-trees (dbstat), or what the step has put in those it
/// made or changed:
///
/// - CREATE INDEX: the entries of the table's rows, measured over the file's rows (those
///   the table was copied from, for a table the step made), a column the step added
///   holding its default; plus the sort. Otherwise, no more than the table's rows.
/// - INSERT and CREATE TABLE AS: no more bytes than the tables the statement reads and
///   its own text (its VALUES), at the fill of rows inserted out of order; each index of
///   the table grows in proportion (by as much, for a table without rows).
/// - UPDATE: the rows it matches rewritten, grown by their new values (RowUpdate);
///   DELETE: the pages of the rows it matches.
/// - DROP frees (and with secure_delete zeroes) the b-trees; ALTER TABLE DROP COLUMN
///   rewrites every page of the table; RENAME rewrites the schema.
/// - A table that a trigger (or foreign-key action) writes: every page of it may change,
///   and it may grow by as much again.
/// - A statement that cannot be prepared even on the shadow may do anything: it counts
///   as changing every page of the file and adding as many again.
struct SQLStepEstimate {
    let measure: TableMeasure

    func run(_ statements: [String], in model: inout PagerModel) {
        var step = StepSchema(measure: measure)
        model.transaction { load in
            for sql in statements.flatMap(SQLText.statements(in:)) { step.add(sql, to: &load) }
        }
    }
}

/// The step's schema and sizes, statement after statement.
private struct StepSchema {
    let measure: TableMeasure
    let shadow: Connection?
    /// B-trees the step has made, filled or dropped, by lower-cased name.
    var trees: [String: TableMeasure.TreeSize] = [:]
    /// Names whose rows are no longer the file's table of that name (made, renamed or
    /// dropped by the step).
    var replaced: Set<String> = []
    /// Tables the step made as a copy of one table of the file: that table.
    var origin: [String: String] = [:]

    init(measure: TableMeasure) {
        self.measure = measure
        shadow = Self.shadow(of: measure.connection)
    }

    private static func shadow(of connection: Connection) -> Connection? {
        guard let shadow = try? Connection(path: ":memory:"),
            let legacy = try? connection.integer("PRAGMA legacy_alter_table"),
            let schema = try? connection.rows(
                "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY sql LIKE 'CREATE VIRTUAL%' DESC, rowid")
        else { return nil }
        try? shadow.execute("PRAGMA legacy_alter_table = \(legacy)")
        // Virtual tables first: they make their shadow tables, which are then skipped.
        for row in schema { if let sql = row[0].textValue { try? shadow.execute(sql) } }
        return shadow
    }

    func tree(_ name: String) -> TableMeasure.TreeSize { trees[name.lowercased()] ?? measure.size(name) }

    private func names(_ sql: String, _ argument: String) -> [String] {
        ((try? shadow?.rows(sql, [.text(argument)])) ?? nil)?.compactMap { $0[0].textValue } ?? []
    }

    private func indexes(of table: String) -> [String] { names("SELECT name FROM pragma_index_list(?)", table) }

    private func columns(of table: String) -> [String] {
        names("SELECT name FROM pragma_table_xinfo(?) ORDER BY cid", table)
    }

    private func tables() -> Set<String> {
        Set(names("SELECT lower(name) FROM sqlite_schema WHERE type = ?", "table"))
    }

    private static let creates = [
        SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW, SQLITE_CREATE_VTABLE,
    ]

    private static func isInternal(_ name: String?) -> Bool { name?.lowercased().hasPrefix("sqlite_") ?? true }

    mutating func add(_ sql: String, to load: inout TransactionPages) {
        guard let shadow, let actions = try? shadow.prepareRecordingActions(sql).1 else {
            load.statement(journaled: true)
            load.write(measure.files.pageCount)
            load.allocate(measure.files.pageCount)
            return
        }
        func first(_ code: Int32) -> AuthorizedAction? {
            actions.first { $0.code == code && $0.database != "temp" && !Self.isInternal($0.first) }
        }
        let authorized = Set(actions.filter { $0.code == SQLITE_READ && !Self.isInternal($0.first) }.compactMap { $0.first?.lowercased() })
        let writes = actions.filter { [SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE].contains($0.code) && $0.database != "temp" }
        let ddl = actions.contains { (Self.creates + [
            SQLITE_DROP_INDEX, SQLITE_DROP_TABLE, SQLITE_DROP_TRIGGER, SQLITE_DROP_VIEW, SQLITE_DROP_VTABLE,
            SQLITE_ALTER_TABLE, SQLITE_REINDEX,
        ]).contains($0.code) && $0.database != "temp" }
        // What the statement's DDL needs from the schema before it runs.
        let dropped = first(SQLITE_DROP_TABLE)?.first
        let droppedIndexes = dropped.map(indexes(of:)) ?? []
        let altered = actions.first { $0.code == SQLITE_ALTER_TABLE }?.second
        let columnsBefore = altered.map(columns(of:)) ?? []
        let tablesBefore = tables()
        let program = try? shadow.rows("EXPLAIN " + sql)
        // The tables it reads: as the authorizer reports them, and those its program opens
        // (INSERT INTO t SELECT * FROM u copies without reading columns).
        let opened = (program ?? []).filter { $0.count > 4 && $0[1].textValue == "OpenRead" && $0[4].integerValue == 0 }
            .compactMap { $0[3].integerValue }
            .flatMap { names("SELECT lower(name) FROM sqlite_schema WHERE type = 'table' AND rootpage = ?", "\($0)") }
        let reads = authorized.union(opened.filter { !Self.isInternal($0) })
        let journaled = ddl || TransactionPages.opensStatementJournal(program, delete: writes.first?.code == SQLITE_DELETE)
        try? shadow.execute(sql)
        load.statement(journaled: journaled)
        if ddl {
            // The schema cookie (page 1) and the leaves of the statement's schema entries:
            // its own, and those of the automatic indexes it makes or the indexes it drops.
            let automatic = actions.filter { $0.code == SQLITE_CREATE_INDEX && Self.isInternal($0.first) }.count
            load.writeHeader()
            load.writeSchema(1 + Int64(automatic + droppedIndexes.count))
            if actions.contains(where: { Self.creates.contains($0.code) }) {
                load.appendSchema(Int64(sql.utf8.count) + 64 * Int64(1 + automatic))
            }
        }
        if let action = first(SQLITE_CREATE_INDEX), let index = action.first, let table = action.second {
            createIndex(index, on: table, to: &load)
        } else if let table = first(SQLITE_CREATE_TABLE)?.first {
            let automatic = actions.filter { $0.code == SQLITE_CREATE_INDEX && Self.isInternal($0.first) }.count
            load.allocate(1 + Int64(automatic))
            load.created(table)
            made(table, TableMeasure.TreeSize(pages: 1))
            // CREATE TABLE ... AS SELECT
            if !reads.isEmpty { insert(into: table, reads: reads, sql: sql, to: &load) }
        } else if let table = first(SQLITE_CREATE_VTABLE)?.first {
            // An FTS table's shadow tables (fts3.html §9): a root page each, and their indexes.
            load.allocate(8)
            made(table, TableMeasure.TreeSize(pages: 8))
        } else if let table = dropped {
            for name in [table] + droppedIndexes {
                load.free(tree(name).pages, of: name)
                made(name, TableMeasure.TreeSize())
            }
        } else if first(SQLITE_DROP_VTABLE) != nil {
            for name in tablesBefore.subtracting(tables()) {
                load.free(tree(name).pages, of: name)
                made(name, TableMeasure.TreeSize())
            }
        } else if let index = first(SQLITE_DROP_INDEX)?.first {
            load.free(tree(index).pages, of: index)
            made(index, TableMeasure.TreeSize())
        } else if let table = altered {
            alter(table, columnsBefore: columnsBefore, tablesBefore: tablesBefore, to: &load)
        } else if ddl {
            for index in actions.filter({ $0.code == SQLITE_REINDEX }).compactMap(\.first) {
                let size = tree(index)
                load.free(size.pages, of: index)
                load.allocate(size.pages)
                load.sort(bytes: size.usedBytes, entries: size.cells)
            }
        } else if let target = writes.first(where: { !Self.isInternal($0.first) }), let table = target.first {
            switch target.code {
            case SQLITE_INSERT: insert(into: table, reads: reads, sql: sql, to: &load)
            case SQLITE_UPDATE: update(table, sql: sql, to: &load)
            default: delete(table, sql: sql, to: &load)
            }
            let others = Set(writes.compactMap { $0.first?.lowercased() }).subtracting([table.lowercased()])
            for name in others.sorted() {
                guard !Self.isInternal(name) else {
                    load.write(1, of: name)
                    continue
                }
                for tree in [name] + indexes(of: name) {
                    let size = self.tree(tree)
                    load.write(size.pages, of: tree, treePages: size.pages)
                    load.allocate(size.pages)
                }
            }
        } else {
            // SELECT, PRAGMA: page 1 at most; ANALYZE: the sqlite_stat1 table.
            load.writeHeader()
            if actions.contains(where: { $0.code == SQLITE_ANALYZE }) { load.allocate(2) }
        }
    }

    private mutating func made(_ name: String, _ size: TableMeasure.TreeSize) {
        trees[name.lowercased()] = size
        replaced.insert(name.lowercased())
        origin[name.lowercased()] = nil
    }

    /// The table of the file whose rows `table` holds: itself, or the one it was copied from.
    private func fileTable(_ table: String) -> TableSchema? {
        let name = replaced.contains(table.lowercased()) ? origin[table.lowercased()] : table
        return name.flatMap { try? TableSchema.read($0, measure.connection) }
    }

    private mutating func createIndex(_ index: String, on table: String, to load: inout TransactionPages) {
        let size = tree(table)
        var entries = size.cells
        var bytes = size.usedBytes + 16 * size.cells
        if let file = fileTable(table), let rowid = file.rowidAlias,
            let keys = try? shadow?.rows("SELECT cid, name FROM pragma_index_xinfo(?) WHERE key = 1", [.text(index)]),
            let shape = try? shadow?.rows("SELECT lower(name), type, dflt_value FROM pragma_table_xinfo(?)", [.text(table)])
        {
            let stored = Set(file.columns.map { $0.name.lowercased() })
            let row = TableMeasure.record(file.columns.map { TableMeasure.bytes(SQLText.quote($0.name)) })
            let values = keys.map { key -> String in
                guard let name = key[1].textValue else {
                    // The rowid, or an expression: no larger than the row, as a bound.
                    return key[0].integerValue == -1 ? TableMeasure.bytes("_preflight_rowid") : row
                }
                if stored.contains(name.lowercased()) { return TableMeasure.bytes(SQLText.quote(name)) }
                let column = shape.first { $0[0].textValue == name.lowercased() }
                return TableMeasure.bytes(
                    "(\(column?[2].textValue ?? "NULL"))",
                    TableMeasure.Affinity(declared: column?[1].textValue ?? ""))
            }
            let entry = TableMeasure.cell(TableMeasure.record(values + [TableMeasure.bytes("_preflight_rowid")]), rowid: nil)
            let total = measure.size(file.name).cells
            if let sums = measure.sums([entry], table: file, total: total, rows: { sample in
                "SELECT *, \(rowid) AS _preflight_rowid FROM \(file.quotedName) WHERE \(sample)"
            }) {
                entries = total
                bytes = sums[0]
            }
        }
        let pages = measure.pages(bytes, fill: TableMeasure.Fill.appended, dividerBytes: bytes / max(1, entries) + 4)
        load.allocate(pages)
        load.sort(bytes: bytes, entries: entries)
        load.created(index)
        made(index, TableMeasure.TreeSize(pages: pages, usedBytes: bytes, cells: entries))
    }

    private mutating func insert(into table: String, reads: Set<String>, sql: String, to load: inout TransactionPages) {
        let bytes = reads.reduce(Int64(sql.utf8.count)) { $0 + tree($1).usedBytes }
        let rows = reads.reduce(Int64(sql.filter { $0 == "(" }.count) + 1) { $0 + tree($1).cells }
        let before = tree(table)
        load.write(3, of: table, treePages: before.pages)
        let pages = measure.pages(bytes, fill: TableMeasure.Fill.random)
        load.allocate(pages)
        for index in indexes(of: table) {
            let size = tree(index)
            let growth = before.usedBytes > 0 ? bytes * size.usedBytes / before.usedBytes : bytes + 16 * rows
            let indexPages = measure.pages(growth, fill: TableMeasure.Fill.random)
            load.write(min(size.pages, rows + 1), of: index, treePages: size.pages)
            load.allocate(indexPages)
            trees[index.lowercased()] = TableMeasure.TreeSize(
                pages: size.pages + indexPages, usedBytes: size.usedBytes + growth, cells: size.cells + rows)
        }
        trees[table.lowercased()] = TableMeasure.TreeSize(
            pages: before.pages + pages, usedBytes: before.usedBytes + bytes, cells: before.cells + rows)
        // A copy of one table of the file into a table the step made.
        if before.cells == 0, replaced.contains(table.lowercased()), reads.count == 1, let source = reads.first {
            origin[table.lowercased()] = replaced.contains(source) ? origin[source] : source
        }
    }

    private func update(_ table: String, sql: String, to load: inout TransactionPages) {
        var change: RowUpdate
        if let shadow, !replaced.contains(table.lowercased()),
            let file = try? TableSchema.read(table, measure.connection),
            let definition = SQLClauses(sql).updateDefinition()
        {
            change = RowUpdate.measure(
                measure, table: file, shape: shadow, source: definition.source, assignments: definition.assignments,
                condition: definition.condition, with: definition.with)
        } else {
            change = RowUpdate(
                table: table, tree: tree(table), matched: tree(table).cells, growth: tree(table).usedBytes,
                indexes: indexes(of: table).map { RowUpdate.Index(name: $0, tree: tree($0), growth: tree($0).usedBytes) },
                usable: measure.files.usableSize)
        }
        change.add(to: &load, batches: 1, batch: 0)
    }

    private func delete(_ table: String, sql: String, to load: inout TransactionPages) {
        let size = tree(table)
        let definition = SQLClauses(sql).deleteDefinition()
        if let definition, definition.condition == nil {
            // Without WHERE the table and its indexes are cleared, page by page.
            for name in [table] + indexes(of: table) { load.free(max(1, tree(name).pages), of: name) }
            return
        }
        var matched = size.cells
        if !replaced.contains(table.lowercased()),
            let file = try? TableSchema.read(table, measure.connection),
            let definition, let condition = definition.condition,
            let sums = measure.sums(["_k"], table: file, total: size.cells, rows: {
                "\(definition.with.map { $0 + " " } ?? "")SELECT CASE WHEN (\(condition)) THEN 1 ELSE 0 END AS _k FROM \(definition.source) WHERE \($0)"
            })
        {
            matched = min(size.cells, sums[0])
        }
        // Each row deleted changes its leaf (and overflow pages); its entries their pages.
        guard matched > 0 else { return }
        load.write(min(size.pages, matched * (1 + size.pages / max(1, size.cells)) + 2), of: table, treePages: size.pages)
        for index in indexes(of: table) {
            let indexSize = tree(index)
            load.write(min(indexSize.pages, matched + 1), of: index, treePages: indexSize.pages)
        }
    }

    private mutating func alter(
        _ table: String, columnsBefore: [String], tablesBefore: Set<String>, to load: inout TransactionPages
    ) {
        let after = tables()
        if !after.contains(table.lowercased()), let renamed = after.subtracting(tablesBefore).first {
            // RENAME TO: every schema entry that names the table is rewritten.
            load.writeSchema(Int64.max)
            let size = tree(table)
            let source = replaced.contains(table.lowercased()) ? origin[table.lowercased()] : table
            made(renamed, size)
            origin[renamed] = source
            made(table, TableMeasure.TreeSize())
            return
        }
        let columnsAfter = columns(of: table)
        if columnsAfter.count < columnsBefore.count {
            // DROP COLUMN rewrites every row; rows only shrink.
            let size = tree(table)
            load.write(size.pages, of: table, treePages: size.pages)
            load.writeSchema(Int64.max)
        } else if columnsAfter != columnsBefore, columnsAfter.count == columnsBefore.count {
            // RENAME COLUMN rewrites every schema entry that names the column.
            load.writeSchema(Int64.max)
        }
    }
}
