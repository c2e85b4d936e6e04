/// A CREATE INDEX: its pages, written in key order, and its sort.
struct IndexBuild {
    var sums: SpaceProbe.IndexSums
    var usable: Int64

    var pages: Int64 {
        RecordSize.pages(cellBytes: sums.cellBytes, cells: sums.entries, usable: usable, fill: PageFill.bulkIndex, indexFormat: true)
            + 1
    }

    func add(to load: inout TransactionLoad) {
        load.allocate(pages)
        // The sorter writes each record with its length (a varint) and holds it in memory
        // with a 16-byte header, rounded up to 8 bytes.
        load.sort(fileBytes: sums.recordBytes + 3 * sums.entries, memoryBytes: sums.recordBytes + 23 * sums.entries)
    }
}
