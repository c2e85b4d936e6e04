import CSQLite

/// The transactions of a `rebuild` step (TableRebuild), in pages:
///
/// 1. create: the new table (and the progress table) in one small transaction;
/// 2. copy: `batch_rows` old keys per transaction, appended to the new table; the new
///    table's own UNIQUE/PRIMARY KEY indexes fill as the rows come;
/// 3. swap: one transaction drops the old table's indexes (secure_delete zeroes their
///    pages), renames both tables and builds the new indexes, which reuse the freed pages
///    first, each with its sort;
/// 4. purge: the old table is deleted in batches after the version bump; that is
///    clean-up, measured apart from the step, so it is not part of the estimate.
///
/// The new table's size is measured, not assumed: one query evaluates the step's
/// `select` (and `where`) over the old rows (a sample of them when there are more than
/// 20,000) and adds up the new rows' cells and every new index's entries, with the new
/// table's column affinities, found by creating its definition in a scratch in-memory
/// database. The old table itself is not read whole (no dbstat): its rows are counted
/// from the sample's density (its pages matter only to the purge, which is not estimated).
struct RebuildLoad {
    let probe: SpaceProbe
    let rebuild: Rebuild

    /// Adds the step's transactions to `simulation`; false when the old table is missing.
    func run(in simulation: inout SpaceSimulation) throws(SQLiteError) -> Bool {
        let connection = probe.connection
        guard let old = try SpaceProbe.table(rebuild.table, in: connection) else { return false }
        // The indexes the swap drops and, unless the step names its own, recreates.
        let oldIndexes = try TableSchema.read(old.name, connection)?.indexes(connection) ?? []
        let batchRows = Int64(max(1, rebuild.batchRows))
        // A large table is sampled, not read whole: not even by dbstat (see measure).
        var qualified = old
        qualified.rowidExpression = old.rowidExpression.map { "\(old.quotedName).\($0)" }
        let sample = try probe.sample(of: qualified)

        // The new table's shape, from its definition in a scratch database.
        let scratch = try Connection(path: ":memory:")
        try scratch.runPlanStatement(
            "CREATE TABLE \(old.quotedName)(\(rebuild.columns))\(rebuild.options.map { " " + $0 } ?? "")")
        guard let new = try SpaceProbe.table(old.name, in: scratch) else { return false }
        let automatic = try SpaceProbe.indexes(of: old.name, in: scratch)
        for sql in rebuild.indexes ?? oldIndexes.map(\.sql) { try? scratch.runPlanStatement(sql) }
        let built = try SpaceProbe.indexes(of: old.name, in: scratch).filter { index in
            !automatic.contains { $0.name == index.name }
        }
        let measured = try measure(old: qualified, sample: sample, new: new, indexes: automatic + built)
        let oldRows = measured.oldRows
        let usable = probe.geometry.usableSize
        let newPages = RecordSize.pages(
            cellBytes: measured.cellBytes, cells: measured.rows, usable: usable,
            fill: new.withoutRowid ? PageFill.random : PageFill.appended, indexFormat: new.withoutRowid) + 1
        let automaticPages = automatic.indices.map { offset in
            RecordSize.pages(
                cellBytes: measured.indexes[offset].cellBytes, cells: measured.indexes[offset].entries, usable: usable,
                fill: PageFill.random, indexFormat: true) + 1
        }
        let builds = built.indices.map { IndexBuild(sums: measured.indexes[automatic.count + $0], usable: usable) }
        // A resumed copy has part of the new table already.
        let existingNew = try probe.sizes.size(of: TableRebuild.newPrefix + old.name).pages

        let droppedIndexes = try oldIndexes.map { (index) throws(SQLiteError) in
            (index.name, try probe.sizes.size(of: index.name).pages)
        }
        let schemaPages = try probe.sizes.schemaPages()
        // 1. create
        simulation.transaction { load in
            load.statement(journaled: true)
            load.touch(3)
            load.allocate(2 + Int64(automatic.count))
        }
        // 2. copy
        let copyBatches = max(1, (oldRows + batchRows - 1) / batchRows)
        let toCopy = max(0, newPages - existingNew)
        simulation.transactions(copyBatches) { load, batch, batches in
            load.statement(journaled: true)
            load.rewrite(2, of: "new")
            load.touch(2)
            load.allocate(SpaceSimulation.share(toCopy, batch, batches))
            for (offset, pages) in automaticPages.enumerated() {
                let entries = SpaceSimulation.share(measured.indexes[offset].entries, batch, batches)
                load.rewrite(min(entries, pages * batch / batches), of: automatic[offset].name)
                load.allocate(SpaceSimulation.share(pages, batch, batches))
            }
        }
        // 3. swap
        simulation.transaction { load in
            for (name, pages) in droppedIndexes {
                load.statement(journaled: true)
                load.touch(1)
                load.free(pages, of: name)
            }
            load.statement(journaled: true)
            load.touch(schemaPages)
            for build in builds {
                load.statement(journaled: true)
                load.touch(1)
                build.add(to: &load)
            }
            load.statement(journaled: false)
            load.touch(3 + Int64((rebuild.triggers?.count ?? 0)))
        }
        // 4. The purge of the old table after the bump is clean-up, not the step's need:
        // it is measured apart (StepContext.beginCleanup) and waits for a launch with room
        // when the disk is full.
        return true
    }

    /// Measured over the old rows (all of them, or a sample): the old table's rows, the
    /// rows copied, their cells, and the entries of each new index.
    private struct Measured {
        var oldRows: Int64
        var rows: Int64
        var cellBytes: Int64
        var indexes: [SpaceProbe.IndexSums]
    }

    private func measure(
        old: SpaceProbe.Table, sample: SpaceProbe.Sample?, new: SpaceProbe.Table, indexes: [SpaceProbe.Index]
    ) throws(SQLiteError) -> Measured {
        let insertable = new.insertable
        let width = try probe.connection.preparePlanStatement("SELECT \(rebuild.select) FROM \(old.quotedName) LIMIT 0").columnCount
        guard width == insertable.count else {
            throw SQLiteError(
                code: SQLITE_ERROR,
                message: "the rebuild's select gives \(width) values for \(insertable.count) columns")
        }
        let key = "_preflight_key"
        let filtered = "_preflight_kept"
        let inner = (0..<width).map { "c\($0)" } + [key, filtered]
        let values = insertable.enumerated().map { offset, column in
            SpaceProbe.stored("c\(offset)", in: column) + " AS " + SQLText.quote(column.name)
        } + [key, filtered]
        var shape = new
        // A new rowid table without INTEGER PRIMARY KEY numbers its rows afresh: about
        // the old rowids' size.
        shape.rowidExpression = key
        // Every old row read counts; the new rows are those kept.
        let kept = { (term: String) in "CASE WHEN \(filtered) THEN \(term) END" }
        var terms = [
            "count(*)", "count(\(kept("1")))",
            "sum(\(kept("\(RecordSizeFunctions.cellSize)(\(shape.cellArguments { SQLText.quote($0.name) }))")))",
        ]
        // An index entry counts for a kept row its condition (if any) holds for.
        terms += indexes.map { index in
            var entries = index
            entries.condition = "\(filtered)\(index.condition.map { " AND (\($0))" } ?? "")"
            return SpaceProbe.indexTerms(entries, of: shape)
        }
        let sql = """
            WITH _preflight_s0(\(inner.joined(separator: ", "))) AS (\
            SELECT \(rebuild.select), \(old.rowidExpression ?? "NULL"), \(rebuild.filter.map { "CASE WHEN (\($0)) THEN 1 ELSE 0 END" } ?? "1") \
            FROM \(old.quotedName)\(sample.map { " WHERE " + $0.condition } ?? "")), \
            _preflight_s AS (SELECT \(values.joined(separator: ", ")) FROM _preflight_s0) \
            SELECT \(terms.joined(separator: ", ")) FROM _preflight_s
            """
        let sums = try probe.measure(sql)
        guard sums.count == 3 + indexes.count * 3 else {
            throw SQLiteError(code: SQLITE_ERROR, message: "unexpected measurement")
        }
        let indexSums = indexes.indices.map { SpaceProbe.indexSums(sums, at: 3 + $0 * 3, sample: sample) }
        guard let sample else {
            return Measured(oldRows: sums[0], rows: sums[1], cellBytes: sums[2], indexes: indexSums)
        }
        let oldRows = sample.totalRows
        return Measured(
            oldRows: oldRows, rows: sample.rows(sums[1]),
            cellBytes: sample.bytes(sums[2], over: sums[1]), indexes: indexSums)
    }
}
