import CSQLite
import Foundation
import Testing
import TestSupport
@testable import MigrationCore

/// The counted `NOCASE` and `RTRIM` (`counted_collations.h`), which a work-counted
/// connection uses in place of SQLite's own, order every text exactly as SQLite's own do:
/// otherwise an index the migration builds or fills would be out of order for the app's
/// SQLite, which reads the file afterwards.
@Suite("Counted collations")
struct CountedCollationTests {
    /// Texts on the edges of both collations: case, the bytes beside the letters in ASCII
    /// (`@ [ \` {`, between and around `A-Z` and `a-z`), UTF-8 letters that no ASCII
    /// folding touches, invalid UTF-8, prefixes, trailing and leading spaces, the empty text,
    /// and NULs inside a text (where SQLite's NOCASE stops comparing).
    private static let tricky: [[UInt8]] = [
        "", " ", "  ", "a", "A", "b", "B", "z", "Z", "ab", "aB", "Ab", "AB", "abc", "ABC", "abc ", "ABC  ", " abc",
        "abd", "abC", "@", "[", "`", "{", "_", "a_", "A[", "é", "É", "e\u{301}", "ß", "SS", "ǅ", "Ä", "ä", "zz", "ZZ",
    ].map { Array($0.utf8) } + [
        [0x61, 0x00], [0x61, 0x00, 0x62], [0x61, 0x00, 0x63], [0x41, 0x00, 0x63], [0x00], [0x00, 0x61], [0xff], [0xff, 0x41],
        [0xc3], [0x80, 0x61], [0x61, 0x20, 0x00], [0x61, 0x00, 0x20],
    ]

    /// Many short texts over a small alphabet of the same bytes, from a fixed seed: ties under
    /// the collation, shared prefixes and every pairing of the edge bytes.
    private static func generated(count: Int) -> [[UInt8]] {
        let alphabet: [UInt8] = [0x61, 0x41, 0x62, 0x42, 0x7a, 0x5a, 0x5f, 0x20, 0x00, 0x40, 0x5b, 0x60, 0x7b, 0xc3, 0xa9, 0x89, 0xff]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<count).map { _ in (0..<next(7)).map { _ in alphabet[next(alphabet.count)] } }
    }

    private static var texts: [[UInt8]] { tricky + generated(count: 3_000) }

    /// A file with the texts in a column declared with `collation`, on a connection with
    /// SQLite's own collations (`meter` nil) or the counted ones.
    private func filled(_ path: String, _ collation: String, meter: CounterKeeper?) throws -> Connection {
        let connection = try Connection(path: path, create: true)
        if let meter { try connection.reportWork(to: meter) }
        try connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT COLLATE \(collation))")
        let insert = try connection.prepare("INSERT INTO t(id, v) VALUES (?, CAST(? AS TEXT))")
        try connection.execute("BEGIN")
        for (index, text) in Self.texts.enumerated() { try insert.run([.integer(Int64(index)), .blob(text)]) }
        try connection.execute("COMMIT")
        return connection
    }

    /// What the collation decides, as SQLite reports it: the rows sorted (ties by id), the
    /// same rows read along an index on the column, and `<` and `=` for every pair of the
    /// edge texts.
    private func decisions(_ connection: Connection) throws -> [[SQLiteValue]] {
        try connection.execute("CREATE INDEX IF NOT EXISTS t_v ON t(v)")
        let sorted = try connection.rows("SELECT id FROM t NOT INDEXED ORDER BY v, id")
        let indexed = try connection.rows("SELECT id FROM t INDEXED BY t_v WHERE v IS NOT NULL ORDER BY v, id")
        let pairs = try connection.rows(
            "SELECT a.id, b.id, a.v < b.v, a.v = b.v FROM t AS a NOT INDEXED, t AS b NOT INDEXED WHERE a.id < ? AND b.id < ?",
            [.integer(Int64(Self.tricky.count)), .integer(Int64(Self.tricky.count))])
        return sorted + [[.text("indexed")]] + indexed + [[.text("pairs")]] + pairs
    }

    private func integrity(_ connection: Connection) throws -> [[SQLiteValue]] {
        try connection.rows("PRAGMA integrity_check")
    }

    @Test(arguments: ["NOCASE", "RTRIM"])
    func decidesEveryComparisonAsSQLitesOwn(collation: String) throws {
        let directory = TemporaryDirectory("counted-collation")
        let own = try filled(directory.file("own.db"), collation, meter: nil)
        let meter = CounterKeeper()
        let counted = try filled(directory.file("counted.db"), collation, meter: meter)
        let before = try #require(meter.counter).total.collations

        #expect(try decisions(counted) == decisions(own))
        #expect(try #require(meter.counter).total.collations > before, "the sort, the index and the pairs compared through it")
    }

    @Test(arguments: ["NOCASE", "RTRIM"])
    func anIndexOneFillsIsInOrderForTheOther(collation: String) throws {
        let directory = TemporaryDirectory("counted-collation")
        // Built and then grown (a B-tree search per insert) by one, read and checked by both.
        for writer in [CounterKeeper() as CounterKeeper?, nil] {
            let path = directory.file("\(writer == nil ? "own" : "counted").db")
            do {
                let connection = try filled(path, collation, meter: writer)
                try connection.execute("CREATE INDEX t_v ON t(v)")
                try connection.execute("INSERT INTO t(v) SELECT v || v FROM t WHERE id % 3 = 0")
            }
            let own = try Connection(path: path)
            let counted = try Connection(path: path)
            try counted.reportWork(to: CounterKeeper())
            #expect(try integrity(own) == [[.text("ok")]])
            #expect(try integrity(counted) == [[.text("ok")]])
            #expect(try decisions(counted) == decisions(own))
        }
    }

    /// The check above can fail: a `NOCASE` that orders texts as `BINARY` does leaves an
    /// index SQLite's own `NOCASE` finds out of order.
    @Test func aCollationThatOrdersOtherwiseLeavesAnIndexIntegrityCheckRefuses() throws {
        let directory = TemporaryDirectory("counted-collation")
        let path = directory.file("binary.db")
        do {
            let connection = try Connection(path: path, create: true)
            let binary: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = {
                _, length1, key1, length2, key2 in
                guard let key1, let key2 else { return length1 - length2 }
                let order = memcmp(key1, key2, Int(min(length1, length2)))
                return order != 0 ? order : length1 - length2
            }
            #expect(sqlite3_create_collation_v2(connection.handle, "NOCASE", SQLITE_UTF8, nil, binary, nil) == SQLITE_OK)
            try connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT COLLATE NOCASE); CREATE INDEX t_v ON t(v)")
            let insert = try connection.prepare("INSERT INTO t(v) VALUES (CAST(? AS TEXT))")
            for text in Self.tricky { try insert.run([.blob(text)]) }
        }
        #expect(try integrity(Connection(path: path)) != [[.text("ok")]])
    }
}
