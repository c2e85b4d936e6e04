import MigrationCore

/// A synthesized file grown by appending rows (issue 32), where that makes the very file a
/// synthesis from scratch makes: a capacity search's sizes then reuse the rows of the size
/// made before. Row n of a table is a function of the seed and n alone (`ValueExpression`),
/// and a table's rows are inserted in the order of n; so the rows after the last one there,
/// made from the stream's state at that row, are the rows a synthesis of the larger size
/// inserts after the same ones, in the same order, into the same B-trees.
///
/// That holds only when nothing else differs between the two sizes:
/// - one table grows, and no table filled after it (a child) holds rows: its rows would
///   come after the grown table's in a file made from scratch;
/// - every filled table's values are the same SQL at both sizes: a share of distinct values
///   taken from a sample, or a foreign key spread over its parent's rows, depends on the
///   counts;
/// - the growing table takes its rows in one attempt: the rows a CHECK refused are made
///   again after the whole counter, which a file grown in two parts would do twice;
/// - the file has a rollback journal (a WAL sample's file keeps its WAL mode).
///
/// Otherwise `grow` answers nil and leaves the file as it was; the caller synthesizes from
/// scratch.
extension Synthesizer {
    /// Grows the file at `path`, which a synthesis of `request` with the rows `previous` made,
    /// to the rows `request` asks.
    public static func grow(
        _ request: SynthesisRequest, from previous: [String: Int], at path: String
    ) throws(SynthesisError) -> SynthesisSummary? {
        guard request.like?.isWAL != true else { return nil }
        let (connection, schema) = try openForFilling(path)
        let counts = try rowCounts(request, schema)
        var earlier = request
        earlier.rows = previous
        let before = try rowCounts(earlier, schema)
        let fills = try tableFills(request, schema, counts: counts, made: before, connection)
        let made = try tableFills(earlier, schema, counts: before, made: before, connection)
        let filled = parentsFirst(schema).map { $0.name.lowercased() }.filter { (counts[$0] ?? 0) > 0 }
        let growing = filled.filter { counts[$0] != before[$0] }
        guard growing.count == 1, let name = growing.first, name == filled.last, let fill = fills[name],
            let after = before[name], after < fill.rows,
            counts.allSatisfy({ $0.value >= (before[$0.key] ?? 0) }), before.allSatisfy({ counts[$0.key] != nil }),
            case let pool = textPool(fills), pool == textPool(made)
        else { return nil }
        for table in filled {
            guard let now = fills[table], let then = made[table] else { return nil }
            let values = try now.columnValues(fills: fills, counts: counts)
            guard values.elementsEqual(try then.columnValues(fills: made, counts: before), by: { $0 == $1 }) else { return nil }
            if table == name, !now.table.checks.isEmpty, now.presence(values) != nil { return nil }
        }
        try run(fill, fills: fills, counts: counts, seed: request.seed, pool: pool, after: after, connection)
        let (tables, journalMode) = try finish(request, schema, connection).get()
        return SynthesisSummary(tables: tables, bytes: fileSize(path) ?? 0, journalMode: journalMode)
    }
}
