import Testing

@testable import MigrationCore

/// The purge after a rebuild's swap on a table of 10,000 rows of about 1 KB (10 MB): every
/// transaction deletes at most the step's `batch_rows` keys, with its cursor, and the table
/// is dropped only once it is empty; killed in the middle, the next launch ends where an
/// uninterrupted run ends.
@Suite struct OldTablePurgeTests {
    static let rows = 10_000
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

    @Test func everyTransactionDeletesAtMostBatchRowsAndOnlyAnEmptiedTableIsDropped() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: Self.v1)
        let (ending, events) = RebuildFixture.migrate(path, try Self.plan())
        #expect(ending == .reached(version: 2))

        let purge = events.filter { $0.event == .batchCommitted && $0.phase == "purge" }
        #expect(events.filter { $0.event == .batchCommitted && $0.phase == "copy" }.count == Self.copyBatches)
        #expect(events.contains { $0.event == .phaseStarted && $0.phase == "purge" })
        // Ten transactions that delete 1,000 keys each, then one that deletes nothing and
        // drops the emptied table.
        let deleted = (1...Self.copyBatches).map { Int64($0 * Self.batchRows) } + [Int64(Self.rows)]
        #expect(purge.compactMap { $0.cursor?.first?.integerValue } == deleted)
        #expect(purge.compactMap(\.rows) == deleted)

        let finished = try #require(events.first { $0.event == .stepFinished })
        #expect(finished.rows == Int64(Self.rows))
        #expect(finished.batches == Self.copyBatches + purge.count)
        let db = try Connection(path: path)
        #expect(try RebuildFixture.internalObjects(db).isEmpty)
        #expect(try db.integer("SELECT count(*) FROM docs WHERE size = 1000") == Int64(Self.rows))
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    @Test func killedAfterSomePurgeTransactionsTheNextLaunchFinishesFromTheCursor() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: Self.v1)
        let referencePath = try scratch.copy("app.db", to: "reference.db")
        let plan = try Self.plan()
        #expect(RebuildFixture.migrate(referencePath, plan).0 == .reached(version: 2))

        // Killed once three purge transactions have committed.
        let (stopped, _) = RebuildFixture.migrate(path, plan, hooks: RebuildFixture.kill(afterBatches: Self.copyBatches + 3))
        #expect(stopped != .reached(version: 2))
        do {
            let killed = try Connection(path: path)
            #expect(try killed.userVersion == 2)
            #expect(try killed.integer("SELECT count(*) FROM \(OldTablePurge.prefix)docs") == Int64(Self.rows - 3 * Self.batchRows))
            let pending = try ProgressStore(connection: killed).pending()
            #expect(pending?.phase == "purge" && pending?.cursor == [.integer(Int64(3 * Self.batchRows))])
        }

        // The migrator finishes the purge as it opens the file, before any step.
        let (ending, events) = RebuildFixture.migrate(path, plan)
        #expect(ending == .reached(version: 2))
        #expect(events.first { $0.event == .opened }?.phase == "purge")
        #expect(events.first { $0.event == .batchCommitted }?.cursor == [.integer(Int64(4 * Self.batchRows))])
        #expect(try RebuildSnapshot(path) == RebuildSnapshot(referencePath))
        #expect(try RebuildFixture.internalObjects(Connection(path: path)).isEmpty)
    }
}
