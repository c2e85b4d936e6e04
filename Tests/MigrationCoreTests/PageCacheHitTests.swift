import Foundation
import Testing
import TestSupport
@testable import MigrationCore

/// The page-cache hits a work-counted connection counts: the device clock charges each one
/// the search of a B-tree page (`cache_hit_ns`), work that an index insert does for every
/// row and that no instruction count shows.
@Suite("Page-cache hits")
struct PageCacheHitTests {
    /// The hits of inserting `rows` rows, in an order spread over the key space, into a table
    /// with `indexes` indexes on text.
    private func hits(rows: Int, indexes: Int) throws -> Int64 {
        let directory = TemporaryDirectory("page-cache-hits")
        let connection = try Connection(path: directory.file("hits.db"), create: true)
        try connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT)")
        for index in 0..<indexes { try connection.execute("CREATE INDEX t_\(index) ON t(\(index == 0 ? "a" : "b"))") }
        let keeper = CounterKeeper()
        try connection.reportWork(to: keeper)
        let counter = try #require(keeper.counter)
        try connection.execute("""
            WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < \(rows))
            INSERT INTO t(id, a, b) SELECT i, printf('%08x-a', (i * 2654435761) % 4294967296),
                printf('%08x-b', (i * 40503) % 65537) FROM s
            """)
        return counter.total.cacheHits
    }

    /// Each row inserted into an index searches it from the root, fetching a page for each
    /// level below it (the cursor keeps the root): two indexes of 20,000 rows, each two levels
    /// deep, add at least a hit a row each to what the table alone takes, whose rows append in
    /// key order.
    @Test func anIndexInsertCountsAPageForEachLevelOfItsSearch() throws {
        let rows = 20_000
        let plain = try hits(rows: rows, indexes: 0)
        let indexed = try hits(rows: rows, indexes: 2)
        #expect(indexed - plain >= Int64(2 * rows), "\(indexed) hits with two indexes, \(plain) without")
        #expect(plain < Int64(rows * 2), "\(plain) hits for \(rows) rows appended in key order")
    }
}
