import Testing

@testable import MigrationCore

/// The purge after a rebuild's swap on a table of 40,000 rows of about 1 KB (41 MB): its
/// transactions are sized by the pages they free, measured on the first one, and the last
/// part is dropped; killed in the middle, the next launch ends where an uninterrupted
/// run ends.
@Suite struct OldTablePurgeTests {
    static let rows = 40_000
    static let batchRows = 1_000
    static let copyBatches = rows / batchRows

    static let schema = "CREATE TABLE docs(id INTEGER PRIMARY KEY, body BLOB NOT NULL);"
    static let v1 = schema + """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
        INSERT INTO docs(body) SELECT randomblob(1000) FROM n;
        PRAGMA user_version = 1;
        """

    static func plan() throws -> Plan {
        try RebuildFixture.plan(version1: schema, rebuild: """
            {"table": "docs", "columns": "id INTEGER PRIMARY KEY, body BLOB NOT NULL, size INTEGER NOT NULL",
             "select": "id, body, length(body)", "batch_rows": \(batchRows)}
            """)
    }

    @Test func transactionsFreeAboutBatchBytesAndTheRestIsDropped() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: Self.v1)
        let tableBytes = try Connection(path: path).integer("SELECT sum(pgsize) FROM dbstat WHERE name = 'docs'")
        let bytesPerRow = Double(tableBytes) / Double(Self.rows)

        let (ending, events) = RebuildFixture.migrate(path, try Self.plan())
        #expect(ending == .reached(version: 2))
        let purge = events.filter { $0.event == .batchCommitted }.dropFirst(Self.copyBatches)
        let ends = purge.compactMap { $0.cursor?.first?.integerValue }
        // The first deletes 5 x batch_rows; the next ones as many rows as free 16 MiB; the
        // last drops the rest, less than that, at once (its cursor is the table's last key).
        #expect(ends.first == Int64(5 * Self.batchRows))
        #expect(ends.last == Int64(Self.rows))
        #expect(ends.count == 4, "purge batches ending at \(ends)")
        for (start, end) in zip(ends, ends.dropFirst()).dropLast() {
            let freed = Double(end - start) * bytesPerRow / Double(OldTablePurge.batchBytes)
            #expect(freed > 0.9 && freed < 1.1, "rows \(start)-\(end) freed \(freed) x batchBytes")
        }
        let dropped = Double(Int64(Self.rows) - ends[ends.count - 2]) * bytesPerRow
        #expect(dropped < Double(OldTablePurge.batchBytes))

        let db = try Connection(path: path)
        #expect(try RebuildFixture.internalObjects(db).isEmpty)
        #expect(try db.integer("SELECT count(*) FROM docs WHERE size = 1000") == Int64(Self.rows))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    @Test func killedAfterItsFirstSizedTransactionTheNextLaunchFinishes() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: Self.v1)
        let referencePath = try scratch.copy("app.db", to: "reference.db")
        let plan = try Self.plan()
        #expect(RebuildFixture.migrate(referencePath, plan).0 == .reached(version: 2))

        // Killed once the measuring batch and one sized batch have committed.
        let (stopped, _) = RebuildFixture.migrate(path, plan, hooks: RebuildFixture.kill(afterBatches: Self.copyBatches + 2))
        #expect(stopped != .reached(version: 2))
        let killed = try Connection(path: path)
        #expect(try killed.userVersion == 2)
        let left = try killed.integer("SELECT count(*) FROM \(OldTablePurge.prefix)docs")
        #expect(left > 0 && left < Int64(Self.rows - 5 * Self.batchRows))

        let (ending, _) = try RebuildFixture.relaunch(path, plan)
        #expect(ending == .reached(version: 2))
        #expect(try RebuildSnapshot(path) == RebuildSnapshot(referencePath))
        #expect(try RebuildFixture.internalObjects(Connection(path: path)).isEmpty)
    }
}
