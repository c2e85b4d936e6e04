/// Rows rewritten in place by an UPDATE or a backfill: how many, how much they grow, and
/// the indexes whose entries move with them.
struct RowUpdate {
    struct Index {
        var name: String
        var tree: TableMeasure.TreeSize
        /// Bytes its entries grow by in all.
        var growth: Int64
    }

    var table: String
    var tree: TableMeasure.TreeSize
    var matched: Int64
    /// Bytes the matched rows grow by in all (what shrinks is not given back).
    var growth: Int64
    var indexes: [Index]
    let usable: Int64

    /// The bound when the change cannot be measured: every row matches and doubles, and
    /// so does every index.
    init(table: String, tree: TableMeasure.TreeSize, indexes: [(String, TableMeasure.TreeSize)], usable: Int64) {
        self.table = table
        self.tree = tree
        matched = tree.cells
        growth = tree.usedBytes
        self.indexes = indexes.map { Index(name: $0, tree: $1, growth: $1.usedBytes) }
        self.usable = usable
    }

    /// Measures `UPDATE source SET assignments WHERE condition` with one scan of the
    /// file's rows of the table (`file`), scaled to the table's rows: the rows it matches
    /// and, for each, the new values' bytes less the old ones', and the same for the keys
    /// of the indexes it changes. Columns and indexes are read from `shape` (the step's
    /// schema so far). Left as it is when the scan fails.
    mutating func measure(
        _ measure: TableMeasure, file: TableSchema, shape: Connection, source: String,
        assignments: [(column: String, value: String)], condition: String?, with: String? = nil
    ) {
        let columns = TableMeasure.columns(of: table, shape: shape, file: file)
        var values: [String] = []
        var deltas: [String: String] = [:]
        for (offset, (name, value)) in assignments.enumerated() {
            guard let column = columns[name.lowercased()] else { return }
            values += ["(\(value)) AS _n\(offset)", "\(column.value) AS _o\(offset)"]
            deltas[name.lowercased()] =
                "\(TableMeasure.bytes("_n\(offset)", column.affinity)) - \(TableMeasure.bytes("_o\(offset)", column.affinity))"
        }
        let rowGrowth = "_k * max(0, \(deltas.values.sorted().joined(separator: " + ")))"
        var terms = ["_k", rowGrowth]
        var changed: [Index] = []
        for index in indexes {
            let keys = (try? shape.rows("SELECT name FROM pragma_index_xinfo(?) WHERE key = 1", [.text(index.name)])) ?? []
            let names = keys.map { $0[0].textValue?.lowercased() }
            // An expression key may use any column: it changes with the row.
            let moved = names.contains(nil) ? [rowGrowth] : names.compactMap { $0.flatMap { deltas[$0] } }
            guard !moved.isEmpty else { continue }
            terms.append("_k * max(0, \(moved.joined(separator: " + ")))")
            changed.append(index)
        }
        let filter = condition.map { "CASE WHEN (\($0)) THEN 1 ELSE 0 END" } ?? "1"
        guard let sums = measure.sums(terms, table: file, total: tree.cells, rows: { sample in
            "\(with.map { $0 + " " } ?? "")SELECT \(filter) AS _k, \(values.joined(separator: ", ")) FROM \(source) WHERE \(sample)"
        })?.sums else { return }
        matched = min(tree.cells, sums[0])
        growth = sums[1]
        indexes = zip(changed, sums.dropFirst(2)).map { Index(name: $0.name, tree: $0.tree, growth: $1) }
    }

    /// Leaf pages the matched rows sit on.
    var touchedPages: Int64 {
        guard tree.pages > 0, matched > 0 else { return 0 }
        return min(tree.pages, matched * (1 + tree.pages / max(1, tree.cells)) + 2)
    }

    /// Pages the table grows by. A page splits only when its rows outgrow its free space:
    /// at most one split per page's worth of growth over the touched pages' free space
    /// (plus one), and never more than the touched pages refilled with the grown rows at
    /// the fill that growth in place leaves.
    var newTablePages: Int64 {
        guard growth > 0, tree.pages > 0, !Self.fits(tree, growth: growth, usable: usable) else { return 0 }
        let touched = touchedPages
        let used = Double(tree.usedBytes) * Double(touched) / Double(tree.pages)
        let refilled = Int64(((used + Double(growth)) / (Double(usable) * TableMeasure.Fill.grown)).rounded(.up)) - touched
        let freePerPage = max(1, Double(usable - 8) - used / Double(max(1, touched)))
        let splits = Int64((Double(growth) / freePerPage).rounded(.up)) + 1
        return max(0, min(refilled, splits))
    }

    /// A b-tree of one page does not split while its content fits in it.
    private static func fits(_ tree: TableMeasure.TreeSize, growth: Int64, usable: Int64) -> Bool {
        tree.pages == 1 && tree.usedBytes + growth <= usable - 8
    }

    /// Adds batch `batch` of `batches` (1 for one UPDATE) of `batchKeys` keys each (nil:
    /// all): its share of the rows and their pages (rounded up, and the pages at the
    /// batch's ends) and its exact share of the growth, which adds up over the batches. A
    /// moved index entry is deleted from one page and inserted into another, at the fill
    /// of entries inserted out of order.
    func add(to load: inout TransactionPages, batches: Int64, batch: Int64, batchKeys: Int64? = nil) {
        let count = max(1, batches)
        func perBatch(_ total: Int64) -> Int64 { (total + count - 1) / count }
        // The table has at least `cells` less a divider per page rows.
        let keys = max(1, tree.cells - tree.pages)
        let pages = min(touchedPages, (touchedPages * min(keys, batchKeys ?? keys) + keys - 1) / keys)
        let grown = PagerModel.share(newTablePages, batch, count)
        // A split also changes the parent: the interior pages, one per ~255 leaves.
        let interior = grown > 0 ? 1 + tree.pages / 255 : 0
        load.write(pages + (count > 1 ? 2 : 0) + interior, of: table, treePages: tree.pages)
        load.allocate(grown)
        let rows = perBatch(matched)
        guard rows > 0 else { return }
        let fraction = min(1, Double(matched) / Double(max(1, tree.cells)))
        for index in indexes {
            load.write(min(index.tree.pages, 2 * rows + 1), of: index.name, treePages: index.tree.pages)
            guard !Self.fits(index.tree, growth: index.growth, usable: usable) else { continue }
            let needed = (Double(index.tree.usedBytes) * fraction + Double(index.growth))
                / (Double(usable) * TableMeasure.Fill.random)
            let grown = max(0, Int64(needed.rounded(.up)) - Int64((Double(index.tree.pages) * fraction).rounded(.down)))
            load.allocate(PagerModel.share(grown, batch, count))
        }
    }
}
