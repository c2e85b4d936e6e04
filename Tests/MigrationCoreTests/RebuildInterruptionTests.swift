import Testing

@testable import MigrationCore

/// A rebuild or backfill stopped at every point that matters, then run again, must end
/// exactly as an uninterrupted run does: same rows (rowids included), same schema, same
/// `sqlite_sequence`, same indexes, nothing of Preflight's own left behind.
///
/// The stop is simulated in-process (hooks that answer `.abandon`): the step throws at once
/// without cleanup, and the migrator's connection closes with the transaction still
/// open, which SQLite rolls back as it rolls back a hot journal after a kill. (Real
/// `_exit` kills of a worker process are tested with the worker.)
@Suite struct RebuildInterruptionTests {
    /// Where the first launch stops. The notes rebuild copies 995 rows in 16 batches of 64
    /// (the last one of 35), swaps, then purges the old table in 16 more, as many rows each
    /// (the last one deletes the last 35 and drops the emptied table).
    enum Stop: Sendable, CustomTestStringConvertible {
        case at(MigrationCheckpoint)
        case afterBatches(Int)

        var hooks: AbandonAt {
            switch self {
            case .at(let point): return RebuildFixture.kill(at: point)
            case .afterBatches(let count): return RebuildFixture.kill(afterBatches: count)
            }
        }

        /// True when the stop comes after the swap committed (version 2 reached).
        var afterSwap: Bool {
            if case .afterBatches(let count) = self { return count > 16 }
            if case .at(.insidePurge) = self { return true }
            return false
        }

        var testDescription: String {
            switch self {
            case .at(let checkpoint): return "\(checkpoint)"
            case .afterBatches(let count): return "after \(count) batches"
            }
        }
    }

    static let copyBatches = 16
    static let purgeBatches = 16

    @Test(arguments: [
        Stop.at(.afterCreate), .afterBatches(1), .afterBatches(7), .afterBatches(copyBatches), .at(.afterLastBatch),
        .at(.insideSwap), .afterBatches(copyBatches + 1), .afterBatches(copyBatches + 7),
        .at(.insidePurge), .afterBatches(copyBatches + purgeBatches),
    ])
    func notesRebuildResumesToTheSameEnd(stop: Stop) throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.notesV1)
        let referencePath = try scratch.copy("app.db", to: "reference.db")
        let original = try RebuildSnapshot(path)
        let plan = try RebuildFixture.notesPlan(batchRows: 64)
        #expect(RebuildFixture.migrate(referencePath, plan).0 == .reached(version: 2))
        let reference = try RebuildSnapshot(referencePath)

        // Launch 1 stops.
        let (stopped, _) = RebuildFixture.migrate(path, plan, hooks: stop.hooks)
        guard case .stopped(.failed, let failure) = stopped else {
            Issue.record("launch 1 was meant to stop, but ended \(stopped)")
            return
        }
        #expect(failure.sqliteCode == SQLiteError.abandoned.code)
        // In between, the file is a valid database at either version: before the swap the
        // app's own objects are exactly version 1's (an app rolled back finds every row),
        // after it exactly version 2's (the old table awaiting its purge is Preflight's).
        let between = try RebuildSnapshot(path)
        #expect(between.userVersion == (stop.afterSwap ? 2 : 1))
        #expect(between.withoutInternal == (stop.afterSwap ? reference : original).withoutInternal)
        let db = try Connection(path: path)
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))
        let progress = try ProgressStore(connection: db).pending()

        // Launch 2 resumes and finishes.
        let (ending, events) = try RebuildFixture.relaunch(path, plan)
        #expect(ending == .reached(version: 2))
        #expect(try RebuildSnapshot(path) == reference)
        if case .afterBatches(let done) = stop, done < Self.copyBatches {
            // It went on from the durable cursor: the next batch is the one after the last committed.
            #expect(progress?.cursor == [.integer(Int64(done * 64))])
            #expect(events.first { $0.event == .opened }?.cursor == progress?.cursor)
            let next = try #require(events.first { $0.event == .batchCommitted })
            #expect(next.rows == Int64((done + 1) * 64))
            #expect(next.cursor == [.integer(Int64((done + 1) * 64))])
        }
    }

    @Test func killedEveryThreeBatchesUntilDone() throws {
        // A new table without a primary key: a row copied twice would be a second row, and
        // the rowids it gets must still match an uninterrupted run's.
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.membershipsV1)
        let referencePath = try scratch.copy("app.db", to: "reference.db")
        let plan = try RebuildFixture.plan(version1: RebuildFixture.membershipsSchema, rebuild: """
            {"table": "memberships", "columns": "team TEXT, user INTEGER, role TEXT, joined INTEGER",
             "select": "team, user, role, user * 10", "where": "user % 3 <> 1", "batch_rows": 7,
             "indexes": ["CREATE INDEX memberships_by_team_user ON memberships(team, user)"]}
            """, rowLoss: true)
        #expect(RebuildFixture.migrate(referencePath, plan).0 == .reached(version: 2))
        let reference = try RebuildSnapshot(referencePath)

        var launches = 0
        var ending: Migrator.Ending = .stopped(.failed, Failure(kind: .sqlError, message: "not run"))
        while ending != .reached(version: 2) && launches < 40 {
            launches += 1
            ending = try RebuildFixture.relaunch(path, plan, hooks: RebuildFixture.kill(afterBatches: 3)).0
        }
        #expect(ending == .reached(version: 2), "not reached after \(launches) killed launches")
        _ = try RebuildFixture.relaunch(path, plan)  // the purge of the last launch, if it was cut
        #expect(launches > 10)  // 29 copy batches of 7 kept rows, 3 per launch, then the purge
        #expect(try RebuildSnapshot(path) == reference)
        let db = try Connection(path: path)
        #expect(try db.integer("SELECT count(*) FROM memberships") == 200)
        #expect(try db.integer("SELECT count(*) FROM (SELECT DISTINCT team, user FROM memberships)") == 200)
    }

    @Test func withoutRowidRebuildResumes() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.membershipsV1)
        let referencePath = try scratch.copy("app.db", to: "reference.db")
        let plan = try RebuildFixture.membershipsPlan(batchRows: 7)
        #expect(RebuildFixture.migrate(referencePath, plan).0 == .reached(version: 2))

        _ = RebuildFixture.migrate(path, plan, hooks: RebuildFixture.kill(afterBatches: 10))
        let db = try Connection(path: path)
        #expect(try ProgressStore(connection: db).pending()?.cursor == [.text("team 2"), .integer(9)])  // 70th key
        #expect(try db.integer("SELECT count(*) FROM _preflight_new_memberships") == 70)
        #expect(try RebuildFixture.relaunch(path, plan).0 == .reached(version: 2))
        #expect(try RebuildSnapshot(path) == RebuildSnapshot(referencePath))
    }

    @Test func changedDefinitionDiscardsTheHalfDoneCopy() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.notesV1)
        let referencePath = try scratch.copy("app.db", to: "reference.db")
        let first = try RebuildFixture.notesPlan(batchRows: 64)
        // The same step, another definition: another select and another batch size.
        let second = try RebuildFixture.plan(version1: RebuildFixture.notesSchema, rebuild: """
            {"table": "notes",
             "columns": "id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, body TEXT, category TEXT NOT NULL DEFAULT 'none', updated_at INTEGER NOT NULL",
             "select": "id, coalesce(title, 'untitled'), body, 'general', updated_at", "batch_rows": 100}
            """)
        #expect(first.steps[1].definitionHash != second.steps[1].definitionHash)
        #expect(RebuildFixture.migrate(referencePath, second).0 == .reached(version: 2))

        _ = RebuildFixture.migrate(path, first, hooks: RebuildFixture.kill(afterBatches: 5))
        let (ending, events) = try RebuildFixture.relaunch(path, second)
        #expect(ending == .reached(version: 2))
        #expect(try RebuildSnapshot(path) == RebuildSnapshot(referencePath))
        // It started over: the first batch of the second definition is its own first 100 keys.
        let firstBatch = try #require(events.first { $0.event == .batchCommitted })
        #expect(firstBatch.rows == 100 && firstBatch.cursor == [.integer(100)])
        let db = try Connection(path: path)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE category = 'uncategorized' OR title = ''") == 0)
    }

    @Test func backfillResumesFromItsCursor() throws {
        let scratch = try RebuildScratch()
        let path = try BackfillTests.fixture(scratch, count: 1234)
        let referencePath = try scratch.copy("app.db", to: "reference.db")
        let plan = try BackfillTests.plan()
        #expect(RebuildFixture.migrate(referencePath, plan).0 == .reached(version: 2))

        _ = RebuildFixture.migrate(path, plan, hooks: RebuildFixture.kill(afterBatches: 4))
        do {
            // Batches 1-4 are durable and nothing after them: the first 400 notes without a
            // key, ids 1...444 (every tenth kept its own), in key order.
            let db = try Connection(path: path)
            #expect(try db.userVersion == 1)
            #expect(try db.integer("SELECT max(id) FROM notes WHERE search_key = lower(title)") == 444)
            #expect(try db.integer("SELECT count(*) FROM notes WHERE search_key IS NULL") == 1111 - 400)
            #expect(try ProgressStore(connection: db).pending()?.cursor == [.integer(444)])
        }
        let (ending, events) = try RebuildFixture.relaunch(path, plan)
        #expect(ending == .reached(version: 2))
        #expect(events.first { $0.event == .batchCommitted }?.cursor == [.integer(555)])
        #expect(events.first { $0.event == .stepFinished }?.rows == 1111)
        #expect(try RebuildSnapshot(path) == RebuildSnapshot(referencePath))
    }

    @Test func backfillKilledAfterItsLastBatchIsApplied() throws {
        let scratch = try RebuildScratch()
        let path = try BackfillTests.fixture(scratch, count: 1234)
        let referencePath = try scratch.copy("app.db", to: "reference.db")
        let plan = try BackfillTests.plan()
        #expect(RebuildFixture.migrate(referencePath, plan).0 == .reached(version: 2))

        _ = RebuildFixture.migrate(path, plan, hooks: RebuildFixture.kill(at: .afterLastBatch))
        #expect(try RebuildSnapshot(path) == RebuildSnapshot(referencePath))
        #expect(try RebuildFixture.relaunch(path, plan).0 == .reached(version: 2))
        #expect(try RebuildSnapshot(path) == RebuildSnapshot(referencePath))
    }

    @Test func changedBackfillStartsOver() throws {
        // Committed batches of the old definition cannot be taken back; the new definition
        // starts from the first key and its own `where` decides what is left to do.
        let scratch = try RebuildScratch()
        let path = try BackfillTests.fixture(scratch, count: 1234)
        _ = RebuildFixture.migrate(path, try BackfillTests.plan(), hooks: RebuildFixture.kill(afterBatches: 4))
        let (ending, events) = try RebuildFixture.relaunch(path, try BackfillTests.plan(set: "search_key = upper(title)", batchRows: 200))
        #expect(ending == .reached(version: 2))
        // Its first batch: the first 200 notes still without a key, ids 445...666.
        #expect(events.first { $0.event == .batchCommitted }?.cursor == [.integer(666)])
        let db = try Connection(path: path)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE search_key = lower(title)") == 400)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE search_key = upper(title)") == 1111 - 400)
        #expect(try RebuildFixture.internalObjects(db).isEmpty)
    }
}
