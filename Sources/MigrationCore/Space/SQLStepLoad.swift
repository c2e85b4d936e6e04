import CSQLite

/// The pages a `sql` step's statements write, in its one transaction.
///
/// Each statement is prepared (not run) with the authorizer, which names the tables and
/// indexes it creates, drops, alters or writes; its verb says what it does to them. Sizes
/// come from dbstat and from one measuring query per statement that writes rows
/// (SpaceProbe). A statement that names what an earlier statement of the step created or
/// changed (`INSERT INTO new_t ...` after `CREATE TABLE new_t`) is measured against the
/// step's schema as it will be by then (StepSchema). One that cannot be prepared even
/// there is left out: the estimate covers the rest.
struct SQLStepLoad {
    let probe: SpaceProbe

    /// Adds the step's transaction to `simulation`; false when a statement was left out.
    func run(_ statements: [String], in simulation: inout SpaceSimulation) -> Bool {
        var complete = true
        let schema = StepSchema(probe: probe)
        simulation.transaction { load in
            for sql in statements.flatMap(SQLText.statements(in:)) {
                do {
                    if try !add(sql, schema: schema, to: &load) { complete = false }
                } catch {
                    complete = false
                    schema.apply(sql, verb: nil, table: nil, inserted: nil, reads: [])
                }
            }
            // PRAGMA user_version (and application_id): page 1.
            load.touch(1)
        }
        return complete
    }

    /// What one statement does, as the authorizer reports it while it is prepared.
    private struct Analysis {
        var sql: String
        var clauses: SQLClauses
        var verb: String?
        var actions: [AuthorizedAction]
        var catalog: Catalog

        /// The table the statement writes (INSERT, UPDATE, DELETE), not the schema's own.
        func target(_ code: Int32) -> String? {
            actions.first { $0.code == code && !($0.first ?? "sqlite_").lowercased().hasPrefix("sqlite_") }?.first
        }

        /// The table the statement is about.
        var table: String? {
            switch verb {
            case "INSERT", "REPLACE": return target(SQLITE_INSERT)
            case "UPDATE": return target(SQLITE_UPDATE)
            case "DELETE": return target(SQLITE_DELETE)
            case "ALTER": return actions.first { $0.code == SQLITE_ALTER_TABLE }?.second
            case "CREATE":
                if let index = actions.first(where: { $0.code == SQLITE_CREATE_INDEX }) { return index.second }
                return actions.first { $0.code == SQLITE_CREATE_TABLE }?.first
            case "DROP":
                return actions.first { $0.code == SQLITE_DROP_TABLE }?.first
            default: return nil
            }
        }

        var reads: [String] { actions.filter { $0.code == SQLITE_READ }.compactMap(\.first) }
    }

    /// Adds one statement, measured against the file or, when it names what the step has
    /// changed, against the step's schema; false when it cannot be prepared either way.
    private func add(_ sql: String, schema: StepSchema, to load: inout TransactionLoad) throws(SQLiteError) -> Bool {
        let clauses = SQLClauses(sql)
        let verb = clauses.firstTopLevel(of: [
            "INSERT", "REPLACE", "UPDATE", "DELETE", "SELECT", "CREATE", "DROP", "ALTER", "REINDEX", "PRAGMA", "ANALYZE",
        ]).map { clauses.tokens[$0].keyword }
        var analysis: Analysis?
        if let actions = try? probe.connection.preparePlanStatementRecordingActions(sql).1 {
            let named = actions.flatMap { [$0.first, $0.second].compactMap { $0 } }
            if !named.contains(where: schema.hasChanged) {
                analysis = Analysis(
                    sql: sql, clauses: clauses, verb: verb, actions: actions, catalog: try schema.catalog(shadowed: false))
            }
        }
        if analysis == nil {
            let shadow = try schema.shadow()
            guard let actions = try? shadow.preparePlanStatementRecordingActions(sql).1 else {
                schema.apply(sql, verb: nil, table: nil, inserted: nil, reads: [])
                return false
            }
            analysis = Analysis(sql: sql, clauses: clauses, verb: verb, actions: actions, catalog: try schema.catalog(shadowed: true))
        }
        let statement = analysis!
        var inserted: (rows: String, pages: Int64)?
        defer {
            // Only CREATE TABLE makes a relation; an index, view or trigger leaves the rows.
            let createsTable = statement.actions.contains { $0.code == SQLITE_CREATE_TABLE }
            schema.apply(
                sql, verb: verb == "CREATE" && !createsTable ? nil : verb, table: statement.table, inserted: inserted,
                reads: statement.reads)
        }
        switch verb {
        case "CREATE":
            if let table = statement.table, statement.actions.contains(where: { $0.code == SQLITE_CREATE_INDEX }) {
                try createIndex(statement, table: table, to: &load)
            } else if statement.actions.contains(where: { $0.code == SQLITE_CREATE_TABLE }),
                let select = clauses.createTableAsSelect()
            {
                try createTableAs(select, statement, to: &load)
            } else {
                load.statement(journaled: true)
                load.touch(1)
                if statement.actions.contains(where: { $0.code == SQLITE_CREATE_TABLE }) { load.allocate(1) }
            }
        case "DROP":
            load.statement(journaled: true)
            load.touch(1)
            if let table = statement.table {
                let indexes = try SpaceProbe.indexes(of: table, in: statement.catalog.shapes).map(\.name)
                for name in [table] + indexes { load.free(try probe.sizes.size(of: name).pages, of: name) }
            } else if let index = statement.actions.first(where: { $0.code == SQLITE_DROP_INDEX })?.first {
                load.free(try probe.sizes.size(of: index).pages, of: index)
            }
        case "ALTER":
            load.statement(journaled: true)
            let words = StatementRules.leadingWords(of: sql, count: 6)
            if words.contains("DROP"), let table = statement.table {
                // DROP COLUMN rewrites every row in place; rows only shrink. Measured:
                // journal (rollback) or WAL plus statement journal (WAL) of the whole table.
                load.rewrite(try probe.sizes.size(of: table).pages, of: table)
                load.touch(try probe.sizes.schemaPages())
            } else if words.contains("RENAME") {
                // RENAME rewrites every schema entry that names the table or column.
                load.touch(try probe.sizes.schemaPages())
            } else {
                load.touch(1)
            }
        case "UPDATE":
            guard let table = statement.table else { load.touch(1); break }
            try update(statement, table: table, to: &load)
        case "DELETE":
            guard let table = statement.table else { load.touch(1); break }
            try delete(statement, table: table, to: &load)
        case "INSERT", "REPLACE":
            guard let table = statement.table else { load.touch(1); break }
            inserted = try insert(statement, table: table, to: &load)
        case "REINDEX":
            load.statement(journaled: true)
            for action in statement.actions where action.code == SQLITE_REINDEX {
                guard let name = action.first else { continue }
                let size = try probe.sizes.size(of: name)
                load.free(size.pages, of: name)
                load.allocate(size.pages)
                load.sort(fileBytes: size.usedBytes, memoryBytes: size.usedBytes * 2)
            }
        default:
            load.statement(journaled: false)
            load.touch(1)
        }
        return true
    }

    // MARK: - Statements

    private func createIndex(_ statement: Analysis, table: String, to load: inout TransactionLoad) throws(SQLiteError) {
        load.statement(journaled: true)
        load.touch(1)
        guard let definition = statement.clauses.indexDefinition(),
            let shape = try SpaceProbe.table(table, in: statement.catalog.shapes)
        else {
            // Not taken apart: no key is larger than the table's rows.
            let size = try probe.sizes.size(of: table)
            load.allocate(size.pages)
            load.sort(fileBytes: size.usedBytes, memoryBytes: size.usedBytes * 2)
            return
        }
        var rows = shape
        if statement.catalog.relations != nil { rows.rowidExpression = SQLText.quote(StepSchema.key) }
        let index = SpaceProbe.Index(
            name: "", keys: definition.keys, condition: definition.condition, unique: false, keyColumns: nil)
        // A table of the file is sampled; one the step changed is read whole.
        let sample = statement.catalog.relations == nil ? try probe.sample(of: shape, rows: try probe.rowCount(table)) : nil
        let measured = try probe.measure(
            "\(statement.catalog.with(nil).map { $0 + " " } ?? "")SELECT \(SpaceProbe.indexTerms(index, of: rows)) FROM \(shape.quotedName)\(sample.map { " WHERE " + $0.condition } ?? "")")
        let build = IndexBuild(sums: SpaceProbe.indexSums(measured, at: 0, sample: sample), usable: probe.geometry.usableSize)
        build.add(to: &load)
        if let name = statement.actions.first(where: { $0.code == SQLITE_CREATE_INDEX })?.first {
            probe.sizes.assume(name, BTreeSizes.Size(pages: build.pages, usedBytes: build.sums.cellBytes, cells: build.sums.entries))
        }
    }

    private func createTableAs(_ select: String, _ statement: Analysis, to load: inout TransactionLoad) throws(SQLiteError) {
        load.statement(journaled: true)
        load.touch(1)
        let with = statement.catalog.with(nil).map { $0 + " " } ?? ""
        let width = try probe.connection.preparePlanStatement("\(with)SELECT * FROM (\(select)) LIMIT 0").columnCount
        let names = (0..<width).map { "c\($0)" }
        let sums = try probe.measure(
            "\(statement.catalog.with(nil, adding: "_preflight_s(\(names.joined(separator: ", "))) AS (\(select))")) SELECT count(*), sum(\(RecordSizeFunctions.cellSize)(0, NULL, \(names.joined(separator: ", ")))) FROM _preflight_s")
        load.allocate(RecordSize.pages(
            cellBytes: sums[1], cells: sums[0], usable: probe.geometry.usableSize, fill: PageFill.appended, indexFormat: false) + 1)
    }

    private func update(_ statement: Analysis, table: String, to load: inout TransactionLoad) throws(SQLiteError) {
        load.statement(journaled: probe.usesStatementJournal(statement.sql, .update))
        guard let shape = try SpaceProbe.table(table, in: statement.catalog.shapes) else { return }
        let change: RowChange
        if let definition = statement.clauses.updateDefinition(),
            let measured = try? RowChange.measure(
                probe, table: shape, shapes: statement.catalog.shapes, assignments: definition.assignments,
                source: definition.source, condition: definition.condition, with: statement.catalog.with(definition.with),
                sample: statement.catalog.relations == nil
                    ? try probe.sample(of: shape, rows: try probe.rowCount(table)) : nil)
        {
            change = measured
        } else {
            change = try RowChange.everyRowDoubles(probe, table: shape, shapes: statement.catalog.shapes)
        }
        change.add(to: &load, batches: 1, batch: 0)
    }

    private func delete(_ statement: Analysis, table: String, to load: inout TransactionLoad) throws(SQLiteError) {
        let definition = statement.clauses.deleteDefinition()
        let size = try probe.sizes.size(of: table)
        let indexes = try SpaceProbe.indexes(of: table, in: statement.catalog.shapes).map(\.name)
        guard let definition, let condition = definition.condition else {
            // DELETE without WHERE empties the table page by page (no statement journal).
            load.statement(journaled: false)
            load.free(size.pages, of: table)
            for index in indexes { load.free(try probe.sizes.size(of: index).pages, of: index) }
            return
        }
        load.statement(journaled: probe.usesStatementJournal(statement.sql, .delete))
        let with = statement.catalog.with(definition.with).map { $0 + " " } ?? ""
        let rows = (try? probe.measure("\(with)SELECT count(*) FROM \(definition.source) WHERE \(condition)").first ?? nil)
            ?? size.cells
        // Each row deleted changes its leaf (and overflow pages); emptied pages are freed.
        load.rewrite(min(size.pages, rows * (1 + size.pages / max(1, size.cells))), of: table)
        for index in indexes {
            load.rewrite(min(try probe.sizes.size(of: index).pages, rows), of: index)
        }
    }

    /// Adds an INSERT; returns the SELECT of the rows it adds and their pages.
    private func insert(
        _ statement: Analysis, table: String, to load: inout TransactionLoad
    ) throws(SQLiteError) -> (rows: String, pages: Int64)? {
        load.statement(journaled: probe.usesStatementJournal(statement.sql, .insert))
        guard let shape = try SpaceProbe.table(table, in: statement.catalog.shapes) else { return nil }
        // The last leaf and its parents take the first rows.
        load.rewrite(3, of: table)
        if let definition = statement.clauses.insertDefinition(),
            let inserted = try? InsertedRows.measure(
                probe, into: shape, shapes: statement.catalog.shapes, columns: definition.columns, rows: definition.rows,
                with: statement.catalog.with(definition.with), userWith: definition.with)
        {
            return (inserted.rowsSQL, inserted.add(to: &load, probe: probe))
        }
        // Not taken apart: as many pages as every table the statement reads.
        for name in Set(statement.reads).subtracting([table]) where !name.lowercased().hasPrefix("sqlite_") {
            load.allocate(try probe.sizes.size(of: name).pages)
        }
        return nil
    }
}
