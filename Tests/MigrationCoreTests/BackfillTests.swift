import Testing

@testable import MigrationCore

/// The `backfill` step kind: a chunked `UPDATE` in key order whose last batch advances the
/// version.
@Suite struct BackfillTests {
    static let schema = """
        CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, search_key TEXT);
        CREATE TABLE log(note_id INTEGER);
        CREATE TRIGGER notes_keyed AFTER UPDATE OF search_key ON notes BEGIN INSERT INTO log VALUES (new.id); END;
        """

    /// `count` notes; every tenth already has a search key, which the backfill must keep.
    static func fixture(_ scratch: RebuildScratch, count: Int) throws -> String {
        try scratch.database(sql: schema + """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO notes SELECT i, 'Title ' || i, CASE WHEN i % 10 = 0 THEN 'keep' END FROM n WHERE \(count) > 0;
            PRAGMA user_version = 1;
            """)
    }

    static func plan(set: String = "search_key = lower(title)", batchRows: Int = 100) throws -> Plan {
        try RebuildFixture.decode("""
            {"name": "backfill", "steps": [
              {"version": 1, "name": "create", "sql": \(try RebuildFixture.jsonString(schema))},
              {"version": 2, "name": "backfill search key",
               "backfill": {"table": "notes", "set": "\(set)", "where": "search_key IS NULL", "batch_rows": \(batchRows)}}
            ]}
            """)
    }

    @Test func updatesInKeyOrderedBatchesAndAdvancesWithTheLast() throws {
        let scratch = try RebuildScratch()
        let path = try Self.fixture(scratch, count: 1234)
        let (ending, events) = RebuildFixture.migrate(path, try Self.plan())
        #expect(ending == .reached(version: 2))

        let db = try Connection(path: path)
        #expect(try db.userVersion == 2)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE search_key = lower(title)") == 1111)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE search_key = 'keep'") == 123)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE search_key IS NULL") == 0)
        // Triggers fire as they would on the device, once per updated row.
        #expect(try db.integer("SELECT count(*) FROM log") == 1111)
        #expect(try db.integer("SELECT count(DISTINCT note_id) FROM log") == 1111)
        #expect(try RebuildFixture.internalObjects(db).isEmpty)

        let finished = try #require(events.first { $0.event == .stepFinished })
        #expect(finished.costClass == .data)
        #expect(finished.rows == 1111)
        // Batches of 100 rows that `where` keeps (every id but the tenths): 11 of 100, one of 11.
        #expect(finished.batches == 12)
        let batches = events.filter { $0.event == .batchCommitted }
        let kept = (1...1234).filter { $0 % 10 != 0 }
        let cursors: [[SQLiteValue]?] = (stride(from: 99, to: kept.count, by: 100).map { kept[$0] } + [1234]).map {
            [SQLiteValue.integer(Int64($0))]
        }
        #expect(batches.map(\.cursor) == cursors)
        #expect(batches.first?.rows == 100)
    }

    @Test func exactMultipleOfTheBatchSize() throws {
        let scratch = try RebuildScratch()
        // 1,000 notes without a key: ten full batches, and nothing left for an eleventh.
        let path = try Self.fixture(scratch, count: 1111)
        let (ending, events) = RebuildFixture.migrate(path, try Self.plan())
        #expect(ending == .reached(version: 2))
        #expect(events.first { $0.event == .stepFinished }?.batches == 10)
        let db = try Connection(path: path)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE search_key IS NULL") == 0)
        #expect(try RebuildFixture.internalObjects(db).isEmpty)
    }

    /// Rows inserted after the backfill began, past its high-water key, are not its work,
    /// even when they match its `where`.
    @Test func rowsPastTheHighWaterKeyAreLeftAlone() throws {
        let scratch = try RebuildScratch()
        let path = try Self.fixture(scratch, count: 1234)
        _ = RebuildFixture.migrate(path, try Self.plan(), hooks: RebuildFixture.kill(afterBatches: 2))
        try Connection(path: path).execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10)
            INSERT INTO notes(id, title) SELECT 2000 + i, 'Late ' || i FROM n
            """)
        let (ending, events) = try RebuildFixture.relaunch(path, try Self.plan())
        #expect(ending == .reached(version: 2))
        #expect(events.filter { $0.event == .batchCommitted }.last?.cursor == [.integer(1234)])
        let db = try Connection(path: path)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE search_key = lower(title)") == 1111)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE id > 2000 AND search_key IS NULL") == 10)
    }

    @Test func emptyTableAdvancesTheVersion() throws {
        let scratch = try RebuildScratch()
        let path = try Self.fixture(scratch, count: 0)
        let (ending, events) = RebuildFixture.migrate(path, try Self.plan())
        #expect(ending == .reached(version: 2))
        #expect(events.first { $0.event == .stepFinished }?.rows == 0)
        let db = try Connection(path: path)
        #expect(try db.userVersion == 2)
        #expect(try RebuildFixture.internalObjects(db).isEmpty)
    }

    @Test func withoutRowidTableWithCompositeKey() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.membershipsV1)
        let plan = try RebuildFixture.decode("""
            {"name": "members", "steps": [
              {"version": 1, "name": "create", "sql": \(try RebuildFixture.jsonString(RebuildFixture.membershipsSchema))},
              {"version": 2, "name": "roles", "backfill": {"table": "memberships", "set": "role = 'member:' || team",
               "where": "role IS NULL", "batch_rows": 7}}
            ]}
            """)
        let (ending, events) = RebuildFixture.migrate(path, plan)
        #expect(ending == .reached(version: 2))
        let db = try Connection(path: path)
        #expect(try db.integer("SELECT count(*) FROM memberships WHERE role = 'member:' || team") == 290)
        #expect(try db.integer("SELECT count(*) FROM memberships WHERE role = 'owner'") == 10)
        let batches = events.filter { $0.event == .batchCommitted }
        #expect(batches.count == 42)  // 290 keys without a role in batches of 7
        #expect(batches.first?.cursor == [.text("team 0"), .integer(7)])  // past team 0's owner
        #expect(batches.last?.cursor == [.text("team 9"), .integer(29)])
    }
}
