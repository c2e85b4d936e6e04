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
/// - CREATE INDEX: the entries of the table's rows, measured over the rows of the file's
///   table of that name (the old rows of a table the step rebuilds by hand), scaled to
///   the step's row count, a column the step added holding its default; plus the sort.
///   Without such a table, no more than the table's rows.
/// - INSERT and CREATE TABLE AS: no more bytes than the tables the statement reads and
///   its own text (its VALUES), at the fill of rows inserted out of order; each index of
///   the table grows in proportion (by as much, for a table without rows).
/// - UPDATE: the rows it matches rewritten, grown by their new values (RowUpdate);
///   DELETE: the pages of the rows it matches.
/// - DDL is told by the schema's version, its b-trees by the shadow's schema before and
///   after: DROP frees (with secure_delete zeroes) those it removes, a table's indexes
///   and a virtual table's shadow tables with it; CREATE makes a root for each new one.
///   ALTER TABLE DROP COLUMN rewrites every page of the table; RENAME rewrites the
///   schema.
/// - A table that a trigger (or foreign-key action) writes: every page of it may change,
///   and it may grow by as much again.
/// - A statement that cannot be prepared even on the shadow may do anything: it counts
///   as changing every page of the file and adding as many again.
struct SQLStepEstimate {
    let measure: TableMeasure
    private let shadow: Connection?
    /// B-trees the step has made, filled or dropped so far, by lower-cased name.
    private var trees: [String: TableMeasure.TreeSize] = [:]

    init(measure: TableMeasure) {
        self.measure = measure
        shadow = Self.shadow(of: measure.connection)
    }

    mutating func run(_ statements: [String], in model: inout PagerModel) {
        model.transaction { load in
            for sql in statements.flatMap(SQLText.statements(in:)) { add(sql, to: &load) }
        }
    }

    private static func shadow(of connection: Connection) -> Connection? {
        guard let shadow = try? Connection(path: ":memory:"),
            let legacy = try? connection.integer("PRAGMA legacy_alter_table"),
            let schema = try? connection.rows(
                "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY sql LIKE 'CREATE VIRTUAL%' DESC, rowid")
        else { return nil }
        try? shadow.execute("PRAGMA legacy_alter_table = \(legacy)")
        // Virtual tables first: they make their shadow tables, which are then skipped. The
        // schema's text came with the upload: each entry replays as one confined statement.
        for row in schema { if let sql = row[0].textValue { try? shadow.runPlanStatement(sql) } }
        return shadow
    }

    private func tree(_ name: String) -> TableMeasure.TreeSize { trees[name.lowercased()] ?? measure.size(name) }

    /// The first column of `sql`'s rows on the shadow, as text.
    private func names(_ sql: String, _ argument: String = "") -> [String] {
        (try? shadow?.rows(sql, argument.isEmpty ? [] : [.text(argument)]))?.compactMap { $0[0].textValue } ?? []
    }

    private func indexes(of table: String) -> [String] { names("SELECT name FROM pragma_index_list(?)", table) }

    private func columns(of table: String) -> [String] {
        names("SELECT name FROM pragma_table_xinfo(?) ORDER BY cid", table)
    }

    /// The b-trees of the step's schema so far (tables and indexes, not views, triggers
    /// or virtual tables), and its version, which every DDL statement changes.
    private func schema() -> (trees: Set<String>, version: Int64?) {
        (Set(names("SELECT lower(name) FROM sqlite_schema WHERE rootpage > 0")),
         (try? shadow?.integer("PRAGMA schema_version")) ?? nil)
    }

    private static func isInternal(_ name: String?) -> Bool { name?.lowercased().hasPrefix("sqlite_") ?? true }

    private mutating func add(_ sql: String, to load: inout TransactionPages) {
        guard let shadow, let actions = try? shadow.preparePlanStatementRecordingActions(sql).1 else {
            load.statement(journaled: true)
            load.write(measure.files.pageCount)
            load.allocate(measure.files.pageCount)
            return
        }
        let program = try? shadow.planRows("EXPLAIN " + sql)
        // The tables it reads: as the authorizer reports them, and those its program opens
        // (INSERT INTO t SELECT * FROM u copies without reading columns).
        let opened = (program ?? []).filter { $0.count > 4 && $0[1].textValue == "OpenRead" && $0[4].integerValue == 0 }
            .flatMap { names("SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage = ?", "\($0[3].integerValue ?? 0)") }
        let reads = Set((actions.filter { $0.code == SQLITE_READ }.compactMap(\.first) + opened)
            .filter { !Self.isInternal($0) }.map { $0.lowercased() })
        let writes = actions.filter { [SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE].contains($0.code) && $0.database != "temp" }
        let altered = actions.first { $0.code == SQLITE_ALTER_TABLE }?.second
        let columnsBefore = altered.map(columns(of:)) ?? []
        let before = schema()
        try? shadow.runPlanStatement(sql)
        let after = schema()
        let removed = before.trees.subtracting(after.trees).sorted()
        let added = after.trees.subtracting(before.trees).sorted()
        let ddl = before.version != after.version
        load.statement(journaled: ddl || TransactionPages.opensStatementJournal(program, delete: writes.first?.code == SQLITE_DELETE))
        if ddl {
            // The schema cookie (page 1) and the leaves of the schema entries it changes;
            // new entries are appended.
            load.writeHeader()
            load.writeSchema(Int64(max(1, removed.count + added.count)))
            if removed.isEmpty { load.appendSchema(Int64(sql.utf8.count) + 64 * Int64(max(1, added.count))) }
        }
        if let table = altered {
            alter(table, columnsBefore: columnsBefore, removed: removed, added: added, to: &load)
        } else if ddl {
            // DROP frees its b-trees (a table's indexes and a virtual table's shadow tables
            // with it); CREATE makes a root for each new one (an index is built).
            for name in removed {
                load.free(tree(name).pages, of: name)
                made(name, TableMeasure.TreeSize())
            }
            for name in added {
                if let index = actions.first(where: { $0.code == SQLITE_CREATE_INDEX && $0.first?.lowercased() == name }),
                    let table = index.second
                {
                    createIndex(name, on: table, to: &load)
                } else {
                    load.allocate(1)
                    load.created(name)
                    made(name, TableMeasure.TreeSize(pages: 1))
                }
            }
            // CREATE TABLE ... AS SELECT
            if let table = actions.first(where: { $0.code == SQLITE_CREATE_TABLE })?.first, !reads.isEmpty {
                insert(into: table, reads: reads, sql: sql, to: &load)
            }
            // REINDEX (which CREATE INDEX reports too) rebuilds the indexes it names.
            for index in actions.filter({ $0.code == SQLITE_REINDEX && added.isEmpty }).compactMap(\.first) {
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
    }

    /// The file's table named `table`, whose rows stand for the step's (scaled to the
    /// step's row count): the same rows, or those a table of that name is rebuilt from.
    private func file(_ table: String) -> TableSchema? { try? TableSchema.read(table, measure.connection) }

    private mutating func createIndex(_ index: String, on table: String, to load: inout TransactionPages) {
        let size = tree(table)
        var bytes = size.usedBytes + 16 * size.cells
        if let shadow, let file = file(table), let rowid = file.rowidAlias,
            let keys = try? shadow.rows("SELECT cid, lower(name) FROM pragma_index_xinfo(?) WHERE key = 1", [.text(index)])
        {
            let columns = TableMeasure.columns(of: table, shape: shadow, file: file)
            let row = TableMeasure.record(columns.values.map { TableMeasure.bytes($0.value, $0.affinity) })
            // The rowid, or an expression: no larger than the row, as a bound.
            let values = keys.map { key in
                key[1].textValue.flatMap { columns[$0] }.map { TableMeasure.bytes($0.value, $0.affinity) }
                    ?? (key[0].integerValue == -1 ? TableMeasure.bytes("_preflight_rowid") : row)
            }
            let entry = TableMeasure.cell(TableMeasure.record(values + [TableMeasure.bytes("_preflight_rowid")]), rowid: nil)
            if let sums = measure.sums([entry], table: file, total: size.cells, rows: { sample in
                "SELECT *, \(rowid) AS _preflight_rowid FROM \(file.quotedName) WHERE \(sample)"
            })?.sums {
                bytes = sums[0]
            }
        }
        let pages = measure.pages(bytes, fill: TableMeasure.Fill.appended, dividerBytes: bytes / max(1, size.cells) + 4)
        load.allocate(pages)
        load.sort(bytes: bytes, entries: size.cells)
        load.created(index)
        made(index, TableMeasure.TreeSize(pages: pages, usedBytes: bytes, cells: size.cells))
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
            made(index, TableMeasure.TreeSize(
                pages: size.pages + indexPages, usedBytes: size.usedBytes + growth, cells: size.cells + rows))
        }
        made(table, TableMeasure.TreeSize(
            pages: before.pages + pages, usedBytes: before.usedBytes + bytes, cells: before.cells + rows))
    }

    private func update(_ table: String, sql: String, to load: inout TransactionPages) {
        var change = RowUpdate(
            table: table, tree: tree(table), indexes: indexes(of: table).map { ($0, tree($0)) },
            usable: measure.files.usableSize)
        if let shadow, let file = file(table), let definition = SQLClauses(sql).updateDefinition() {
            change.measure(
                measure, file: file, shape: shadow, source: definition.source, assignments: definition.assignments,
                condition: definition.condition, with: definition.with)
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
        if let file = file(table), let definition, let condition = definition.condition,
            let sums = measure.sums(["_k"], table: file, total: size.cells, rows: {
                "\(definition.with.map { $0 + " " } ?? "")SELECT CASE WHEN (\(condition)) THEN 1 ELSE 0 END AS _k FROM \(definition.source) WHERE \($0)"
            })?.sums
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
        _ table: String, columnsBefore: [String], removed: [String], added: [String], to load: inout TransactionPages
    ) {
        if !removed.isEmpty {
            // RENAME TO: every schema entry that names the table is rewritten; its b-tree
            // and its automatic indexes change names.
            load.writeSchema(Int64.max)
            let new = added.first { !Self.isInternal($0) } ?? table
            for name in removed {
                made(name.replacingOccurrences(of: table.lowercased(), with: new), tree(name))
                made(name, TableMeasure.TreeSize())
            }
            return
        }
        let columnsAfter = columns(of: table)
        if columnsAfter.count < columnsBefore.count {
            // DROP COLUMN rewrites every row; rows only shrink.
            let size = tree(table)
            load.write(size.pages, of: table, treePages: size.pages)
            load.writeSchema(Int64.max)
        } else if columnsAfter.count == columnsBefore.count, columnsAfter != columnsBefore {
            // RENAME COLUMN rewrites every schema entry that names the column.
            load.writeSchema(Int64.max)
        }
    }
}
