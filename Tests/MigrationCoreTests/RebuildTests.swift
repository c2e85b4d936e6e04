import CSQLite
import Foundation
import Testing

@testable import MigrationCore

/// The `rebuild` step kind run through the real `Migrator` on fixture databases built
/// with the old schema's own SQL: rows, AUTOINCREMENT counters, indexes, triggers, views,
/// foreign keys and WITHOUT ROWID tables after the chunked copy and the swap.
@Suite struct RebuildTests {
    // MARK: - The notes fixture

    @Test func copiesRowsAndKeepsIndexesTriggersViewsAndCounter() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.notesV1)
        let (ending, events) = RebuildFixture.migrate(path, try RebuildFixture.notesPlan())
        #expect(ending == .reached(version: 2))

        let db = try Connection(path: path)
        #expect(try db.userVersion == 2)
        // Rows: the newest 5 were deleted before; NULL titles became ''; the new column filled.
        #expect(try db.integer("SELECT count(*) FROM notes") == 995)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE title = ''") == 199)  // ids divisible by 5
        #expect(try db.integer("SELECT count(*) FROM notes WHERE category <> 'uncategorized'") == 0)
        #expect(try db.rows("SELECT id, title, body, updated_at FROM notes WHERE id IN (1, 5, 994) ORDER BY id") == [
            [.integer(1), .text("title 1"), .text("body 1"), .integer(1001)],
            [.integer(5), .text(""), .text("body 5"), .integer(1005)],
            [.integer(994), .text("title 994"), .text("body 994"), .integer(1994)],
        ])
        #expect(try db.integer("SELECT sum(id) FROM notes") == (1...995).reduce(0, +))
        // The AUTOINCREMENT counter survived the drop of the old table: 996..1000 are never reused.
        #expect(try db.rows("SELECT name, seq FROM sqlite_sequence ORDER BY name") == [[.text("notes"), .integer(1000)]])
        try db.execute("INSERT INTO notes(title, updated_at) VALUES ('new', 1)")
        #expect(db.lastInsertRowID == 1001)
        // The old index, recreated as it was, and used.
        #expect(try db.rows("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'notes'") == [
            [.text("idx_notes_updated"), .text("CREATE INDEX idx_notes_updated ON notes(updated_at)")]
        ])
        let plan = try db.rows("EXPLAIN QUERY PLAN SELECT id FROM notes WHERE updated_at = 1500").map { $0[3] }
        #expect(plan.contains { $0.textValue?.contains("idx_notes_updated") == true })
        // The trigger fires on the new table.
        try db.execute("UPDATE notes SET title = 'renamed' WHERE id = 7")
        #expect(try db.rows("SELECT note_id, action FROM audit") == [[.integer(7), .text("retitled")]])
        // The view reads the new table.
        #expect(try db.integer("SELECT count(*) FROM recent_notes") == 495)
        #expect(try db.scalar("SELECT sql FROM sqlite_schema WHERE name = 'recent_notes'")
            == .text("CREATE VIEW recent_notes AS SELECT id, title FROM notes WHERE updated_at > 1500"))
        // The incoming foreign key names the new table and is enforced.
        try db.execute("PRAGMA foreign_keys = ON")
        #expect(try db.rows("PRAGMA foreign_key_check").isEmpty)
        #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO attachments(note_id, name) VALUES (5000, 'x')") }
        try db.execute("DELETE FROM notes WHERE id = 10")
        #expect(try db.integer("SELECT count(*) FROM attachments WHERE note_id = 10") == 0)
        #expect(try db.integer("SELECT count(*) FROM attachments") == 99)
        // Nothing of Preflight's own is left, and the file is sound.
        #expect(try RebuildFixture.internalObjects(db).isEmpty)
        #expect(try db.scalar("PRAGMA integrity_check") == .text("ok"))

        let finished = try #require(events.first { $0.event == .stepFinished && $0.version == 2 })
        #expect(finished.costClass == .rewrite)
        #expect(finished.rows == 995)
        #expect((finished.batches ?? 0) >= 16)  // 995 rows in batches of 64, then the purge's
        #expect(finished.swapMs != nil)
        let batches = events.filter { $0.event == .batchCommitted }
        #expect(batches.count == finished.batches)
        #expect(batches.first?.rows == 64 && batches.first?.cursor == [.integer(64)])
    }

    @Test func planIndexesAndTriggersReplaceTheOldOnes() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.notesV1)
        let plan = try RebuildFixture.notesPlan(extra: """
            , "indexes": ["CREATE INDEX idx_notes_category ON notes(category, updated_at)"],
              "triggers": ["CREATE TRIGGER notes_touch AFTER UPDATE OF title ON notes BEGIN INSERT INTO audit VALUES (new.id, 'touched'); END"]
            """)
        #expect(RebuildFixture.migrate(path, plan).0 == .reached(version: 2))

        let db = try Connection(path: path)
        #expect(try db.rows("SELECT type, name FROM sqlite_schema WHERE tbl_name = 'notes' AND type IN ('index', 'trigger') ORDER BY name") == [
            [.text("index"), .text("idx_notes_category")], [.text("trigger"), .text("notes_touch")],
        ])
        #expect(try db.rows("SELECT name FROM pragma_index_info('idx_notes_category') ORDER BY seqno") == [
            [.text("category")], [.text("updated_at")],
        ])
        try db.execute("UPDATE notes SET title = 'x' WHERE id = 3")
        #expect(try db.rows("SELECT note_id, action FROM audit") == [[.integer(3), .text("touched")]])
    }

    @Test func foreignKeysOnAreEnforcedDuringAndRestoredAfter() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.notesV1)
        // Step 3 runs with the migrator's connection as the rebuild left it: a cascade shows
        // that foreign keys are on again, and a view following a rename shows that
        // legacy_alter_table is off again.
        let plan = try RebuildFixture.notesPlan(foreignKeys: true, later: """
            , {"version": 3, "name": "after", "sql": ["DELETE FROM notes WHERE id = 20", "ALTER TABLE notes RENAME TO notes3"]}
            """)
        let (ending, _) = RebuildFixture.migrate(path, plan)
        #expect(ending == .reached(version: 3))
        let db = try Connection(path: path)
        #expect(try db.integer("SELECT count(*) FROM attachments WHERE note_id = 20") == 0)
        #expect(try db.integer("SELECT count(*) FROM attachments") == 99)
        #expect(try db.scalar("SELECT sql FROM sqlite_schema WHERE name = 'recent_notes'")
            == .text("CREATE VIEW recent_notes AS SELECT id, title FROM \"notes3\" WHERE updated_at > 1500"))
        #expect(try db.scalar("SELECT sql FROM sqlite_schema WHERE name = 'attachments'").textValue?.contains("REFERENCES \"notes3\"") == true)
    }

    @Test func brokenForeignKeyFailsTheSwapAndLeavesTheOldTableWhole() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.notesV1)
        let before = try RebuildSnapshot(path)
        // Dropping notes 1..10 orphans the attachments of notes 10 (and 1, 2, ...).
        let plan = try RebuildFixture.notesPlan(foreignKeys: true, extra: #", "where": "id > 10""#, rowLoss: true)
        let (ending, _) = RebuildFixture.migrate(path, plan)
        guard case .stopped(.failed, let failure) = ending else {
            Issue.record("expected a failure, got \(ending)")
            return
        }
        #expect(failure.sqliteCode == ForeignKeyCheck.violationCode)
        #expect(failure.message.contains("refers to a missing row of \"notes\""))
        // Still version 1: the app's own objects exactly as before; only the half-done copy
        // (Preflight's own, resumable) is there besides.
        let after = try RebuildSnapshot(path)
        #expect(after.userVersion == 1)
        #expect(after.withoutInternal == before.withoutInternal)
        let db = try Connection(path: path)
        // (the new table's index, built with the copy, and its AUTOINCREMENT counter included).
        #expect(try RebuildFixture.internalObjects(db)
            == ["_preflight_new_notes", "_preflight_newidx_idx_notes_updated", "_preflight_progress", "_preflight_new_notes"])
    }

    @Test func foreignKeysOffLeavesViolationsToVerification() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.notesV1)
        let plan = try RebuildFixture.notesPlan(extra: #", "where": "id > 10""#)
        #expect(RebuildFixture.migrate(path, plan).0 == .reached(version: 2))
        let db = try Connection(path: path)
        #expect(try db.integer("SELECT count(*) FROM notes") == 985)
        #expect(try db.integer("SELECT min(id) FROM notes") == 11)
        #expect(try db.rows("PRAGMA foreign_key_check").count == 2)  // attachments of notes 1 and 10
    }

    @Test func whereKeepsOnlyMatchingRows() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.notesV1)
        let plan = try RebuildFixture.notesPlan(extra: #", "where": "updated_at % 2 = 0""#, rowLoss: true)
        let (ending, events) = RebuildFixture.migrate(path, plan)
        #expect(ending == .reached(version: 2))
        #expect(plan.steps[1].rowLossAllowed)
        let db = try Connection(path: path)
        #expect(try db.integer("SELECT count(*) FROM notes") == 497)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE updated_at % 2 = 1") == 0)
        #expect(events.first { $0.event == .stepFinished }?.rows == 497)
        // The counter covers the rows filtered out too.
        #expect(try db.integer("SELECT seq FROM sqlite_sequence WHERE name = 'notes'") == 1000)
    }

    @Test func brokenViewFailsTheStep() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.notesV1)
        let plan = try RebuildFixture.plan(version1: RebuildFixture.notesSchema, rebuild: """
            {"table": "notes", "columns": "id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT, updated_at INTEGER NOT NULL",
             "select": "id, body, updated_at", "batch_rows": 300}
            """)
        guard case .stopped(.failed, let failure) = RebuildFixture.migrate(path, plan).0 else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.message.contains("view \"recent_notes\" no longer works"))
        #expect(failure.message.contains("no such column: title"))
        let db = try Connection(path: path)
        #expect(try db.userVersion == 1)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE title IS NULL") == 199)
    }

    // MARK: - Other shapes

    @Test func emptyTableKeepsItsCounter() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: """
            CREATE TABLE events(id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50) INSERT INTO events(kind) SELECT 'k' FROM n;
            DELETE FROM events;
            PRAGMA user_version = 1;
            """)
        let plan = try RebuildFixture.plan(version1: "CREATE TABLE events(id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT)", rebuild: """
            {"table": "events", "columns": "id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL", "select": "id, kind"}
            """)
        let (ending, events) = RebuildFixture.migrate(path, plan)
        #expect(ending == .reached(version: 2))
        #expect(events.first { $0.event == .stepFinished }?.rows == 0)
        let db = try Connection(path: path)
        #expect(try db.rows("SELECT name, seq FROM sqlite_sequence") == [[.text("events"), .integer(50)]])
        try db.execute("INSERT INTO events(kind) VALUES ('next')")
        #expect(db.lastInsertRowID == 51)
        #expect(try RebuildFixture.internalObjects(db).isEmpty)
    }

    @Test func withoutRowidTableWithCompositeKey() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.membershipsV1)
        let (ending, events) = RebuildFixture.migrate(path, try RebuildFixture.membershipsPlan(batchRows: 7))
        #expect(ending == .reached(version: 2))
        let db = try Connection(path: path)
        #expect(try db.rows("SELECT wr FROM pragma_table_list('memberships')") == [[.integer(1)]])
        #expect(try db.integer("SELECT count(*) FROM memberships") == 300)
        #expect(try db.integer("SELECT count(*) FROM memberships WHERE joined = user * 10") == 300)
        #expect(try db.rows("SELECT team, user, role FROM memberships ORDER BY team, user LIMIT 2") == [
            [.text("team 0"), .integer(0), .text("owner")], [.text("team 0"), .integer(1), .text("member")],
        ])
        #expect(try db.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL") == [[.text("memberships_by_user")]])
        let firstBatch = try #require(events.first { $0.event == .batchCommitted })
        #expect(firstBatch.cursor == [.text("team 0"), .integer(6)])
        #expect(try RebuildFixture.internalObjects(db).isEmpty)
    }

    @Test func primaryKeyCollationOtherThanTheColumns() throws {
        // The key compares with BINARY although the column's own collation is NOCASE: a
        // cursor compared with NOCASE would skip 'B' after 'b' or copy it twice.
        let scratch = try RebuildScratch()
        let schema = "CREATE TABLE tags(name TEXT COLLATE NOCASE, n INTEGER, PRIMARY KEY(name COLLATE BINARY, n)) WITHOUT ROWID;"
        var sql = schema
        for name in ["a", "A", "b", "B", "c", "C", "ab", "aB", "Ab"] {
            for n in 0..<3 { sql += "INSERT INTO tags VALUES ('\(name)', \(n));" }
        }
        let path = try scratch.database(sql: sql + "PRAGMA user_version = 1;")
        let plan = try RebuildFixture.plan(version1: schema, rebuild: """
            {"table": "tags", "columns": "name TEXT COLLATE NOCASE, n INTEGER, uses INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(name COLLATE BINARY, n)",
             "options": "WITHOUT ROWID", "select": "name, n, 0", "batch_rows": 2}
            """)
        #expect(RebuildFixture.migrate(path, plan).0 == .reached(version: 2))
        let db = try Connection(path: path)
        #expect(try db.integer("SELECT count(*) FROM tags") == 27)
        #expect(try db.integer("SELECT count(DISTINCT name COLLATE BINARY) FROM tags") == 9)
    }

    @Test func aTableKeyedByInfinityIsRebuiltWhole() throws {
        // JSON has no number for infinity, so the high-water key 9e999 once could not be
        // kept with the progress; read back as "no key" it meant an empty table, and the
        // swap dropped every row. The key now round-trips (SQLiteValue's {"real": ...}).
        let scratch = try RebuildScratch()
        let schema = "CREATE TABLE readings(at REAL PRIMARY KEY, value TEXT) WITHOUT ROWID;"
        let path = try scratch.database(
            sql: schema + "INSERT INTO readings VALUES (-9e999, 'near'), (1.5, 'a'), (2.5, NULL), (9e999, 'far'); PRAGMA user_version = 1;")
        let plan = try RebuildFixture.plan(version1: schema, rebuild: """
            {"table": "readings", "columns": "at REAL PRIMARY KEY, value TEXT NOT NULL", "options": "WITHOUT ROWID",
             "select": "at, coalesce(value, '')", "batch_rows": 1}
            """)
        #expect(RebuildFixture.migrate(path, plan).0 == .reached(version: 2))
        let db = try Connection(path: path)
        #expect(try db.integer("SELECT count(*) FROM readings") == 4)
        #expect(try db.integer("SELECT count(*) FROM readings WHERE at IN (9e999, -9e999)") == 2)
        #expect(try RebuildFixture.internalObjects(db).isEmpty)
        let key = [SQLiteValue.real(.infinity), .real(-.infinity)]
        #expect(try ProgressStore.decodeKey(ProgressStore.encodeKey(key)) == key)
    }

    /// An INTEGER key is written without JSONEncoder, as it would write it: a cursor saved
    /// by an earlier build reads back the same, and so does one this build saves.
    @Test func integerCursorsAreTheJSONThatJSONEncoderWrites() throws {
        let keys: [[SQLiteValue]] = [[.integer(0)], [.integer(-7)], [.integer(.max), .integer(.min)], [.integer(42), .text("a")], []]
        for key in keys {
            let written = try ProgressStore.encodeKey(key)
            #expect(written == .text(String(decoding: try JSONEncoder().encode(key), as: UTF8.self)))
            #expect(try ProgressStore.decodeKey(written) == key)
        }
    }

    @Test func rebuildWithFollowingBackfillAndSQLSteps() throws {
        // The contract's example plan, end to end.
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: """
            CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, updated_at INTEGER NOT NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 700)
            INSERT INTO notes SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE 'Title ' || i END, i FROM n;
            PRAGMA user_version = 1;
            """)
        let plan = try RebuildFixture.decode("""
            {"name": "notes", "steps": [
              {"version": 1, "name": "create notes",
               "sql": "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, updated_at INTEGER NOT NULL);"},
              {"version": 2, "name": "sync status",
               "sql": ["ALTER TABLE notes ADD COLUMN sync_status TEXT NOT NULL DEFAULT 'synced'",
                       "CREATE INDEX idx_notes_sync_status ON notes(sync_status)"]},
              {"version": 3, "name": "title required, category required",
               "rebuild": {"table": "notes",
                           "columns": "id INTEGER PRIMARY KEY, title TEXT NOT NULL, category TEXT NOT NULL, sync_status TEXT NOT NULL DEFAULT 'synced', updated_at INTEGER NOT NULL",
                           "select": "id, coalesce(title, ''), 'uncategorized', sync_status, updated_at",
                           "batch_rows": 500}},
              {"version": 4, "name": "search key", "sql": "ALTER TABLE notes ADD COLUMN search_key TEXT"},
              {"version": 5, "name": "backfill search key",
               "backfill": {"table": "notes", "set": "search_key = lower(title)", "where": "search_key IS NULL", "batch_rows": 100}}
            ]}
            """)
        #expect(RebuildFixture.migrate(path, plan).0 == .reached(version: 5))
        let db = try Connection(path: path)
        #expect(try db.integer("SELECT count(*) FROM notes") == 700)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE search_key = lower(title)") == 700)
        #expect(try db.integer("SELECT count(*) FROM notes WHERE title = ''") == 100)
        #expect(try db.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'notes'") == [[.text("idx_notes_sync_status")]])
        #expect(try RebuildFixture.internalObjects(db).isEmpty)
    }
}

// MARK: - Fixtures shared by the rebuild, backfill and interruption tests

enum RebuildFixture {
    /// Version 1 of a notes app: an index, a trigger, a view and an incoming foreign key.
    static let notesSchema = """
        CREATE TABLE notes(id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT, body TEXT, updated_at INTEGER NOT NULL);
        CREATE INDEX idx_notes_updated ON notes(updated_at);
        CREATE TABLE audit(note_id INTEGER, action TEXT);
        CREATE TRIGGER notes_audit AFTER UPDATE OF title ON notes BEGIN INSERT INTO audit VALUES (new.id, 'retitled'); END;
        CREATE VIEW recent_notes AS SELECT id, title FROM notes WHERE updated_at > 1500;
        CREATE TABLE attachments(id INTEGER PRIMARY KEY, note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE, name TEXT);
        """

    /// A user's version-1 file: ids 1...1000 handed out, the newest five deleted since
    /// (the counter stays at 1000), every fifth title NULL, 100 attachments (of note 1 and
    /// of notes 10, 20, ..., 990).
    static let notesV1 = notesSchema + """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
        INSERT INTO notes(title, body, updated_at)
        SELECT CASE WHEN i % 5 = 0 THEN NULL ELSE 'title ' || i END, 'body ' || i, 1000 + i FROM n;
        INSERT INTO attachments(note_id, name) SELECT id, 'file ' || id FROM notes WHERE id % 10 = 0 AND id <= 990;
        INSERT INTO attachments(note_id, name) VALUES (1, 'first');
        DELETE FROM notes WHERE id > 995;
        PRAGMA user_version = 1;
        """

    /// Version 2 rebuilds notes: title NOT NULL, a new category column.
    static func notesPlan(
        batchRows: Int = 64, foreignKeys: Bool = false, extra: String = "", rowLoss: Bool = false, later: String = ""
    ) throws -> Plan {
        try plan(
            version1: notesSchema, foreignKeys: foreignKeys,
            rebuild: """
                {"table": "notes",
                 "columns": "id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, body TEXT, category TEXT NOT NULL DEFAULT 'none', updated_at INTEGER NOT NULL",
                 "select": "id, coalesce(title, ''), body, 'uncategorized', updated_at",
                 "batch_rows": \(batchRows)\(extra)}
                """, rowLoss: rowLoss, later: later)
    }

    /// A WITHOUT ROWID table with a composite key: 10 teams of 30 users.
    static let membershipsSchema = """
        CREATE TABLE memberships(team TEXT NOT NULL, user INTEGER NOT NULL, role TEXT, PRIMARY KEY(team, user)) WITHOUT ROWID;
        CREATE INDEX memberships_by_user ON memberships(user);
        """

    static let membershipsV1 = membershipsSchema + """
        WITH RECURSIVE t(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM t WHERE i < 9),
                       u(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM u WHERE j < 29)
        INSERT INTO memberships SELECT 'team ' || i, j, CASE WHEN j = 0 THEN 'owner' ELSE NULL END FROM t, u;
        PRAGMA user_version = 1;
        """

    static func membershipsPlan(batchRows: Int, select: String = "team, user, coalesce(role, 'member'), user * 10") throws -> Plan {
        try plan(version1: membershipsSchema, rebuild: """
            {"table": "memberships",
             "columns": "team TEXT NOT NULL, user INTEGER NOT NULL, role TEXT NOT NULL, joined INTEGER NOT NULL, PRIMARY KEY(team, user)",
             "options": "WITHOUT ROWID", "select": "\(select)", "batch_rows": \(batchRows)}
            """)
    }

    /// A two-step plan: version 1 is `version1` (already applied to the fixtures), version 2 the rebuild.
    static func plan(
        version1: String, foreignKeys: Bool = false, rebuild: String, rowLoss: Bool = false, later: String = ""
    ) throws -> Plan {
        try decode("""
            {"name": "fixture", "foreign_keys": "\(foreignKeys ? "on" : "off")", "steps": [
              {"version": 1, "name": "create", "sql": \(try jsonString(version1))},
              {"version": 2, "name": "rebuild", \(rowLoss ? #""row_loss": "allowed", "# : "")"rebuild": \(rebuild)}\(later)
            ]}
            """)
    }

    static func decode(_ json: String) throws -> Plan {
        try PlanDecoder.decode(Array(json.utf8))
    }

    static func jsonString(_ text: String) throws -> String {
        String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
    }

    /// Runs the migrator once, as one launch, and collects its events.
    static func migrate(
        _ path: String, _ plan: Plan, hooks: MigrationHooks? = nil
    ) -> (Migrator.Ending, [MigrationEvent]) {
        let collected = EventLog()
        let migrator = Migrator(plan: plan, settings: MigrationSettings(spaceCheck: .off), hooks: hooks)
        let ending = migrator.migrate(databaseAt: path) { collected.events.append($0) }
        return (ending, collected.events)
    }

    /// A later launch: what the migrator is to do right after opening (finish an applied
    /// rebuild's purge that the previous launch was killed in), then the run itself.
    static func relaunch(_ path: String, _ plan: Plan, hooks: MigrationHooks? = nil) throws -> (Migrator.Ending, [MigrationEvent]) {
        do {
            let connection = try Connection(path: path)
            try TableRebuild.finishPendingPurge(connection: connection, plan: plan)
        }
        return migrate(path, plan, hooks: hooks)
    }

    /// Hooks that stop the step in-process, leaving its transaction open (a simulated kill).
    static func kill(afterBatches: Int? = nil, at checkpoint: MigrationCheckpoint? = nil) -> AbandonAt {
        AbandonAt(afterBatches: afterBatches, checkpoint: checkpoint)
    }

    /// Names of Preflight's own tables and indexes left in the database.
    static func internalObjects(_ db: Connection) throws -> [String] {
        let pattern = #"LIKE '\_preflight\_%' ESCAPE '\'"#
        var names = try db.rows("SELECT name FROM sqlite_schema WHERE name \(pattern) ORDER BY name").compactMap { $0[0].textValue }
        if try db.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_sequence'") > 0 {
            names += try db.rows("SELECT name FROM sqlite_sequence WHERE name \(pattern)").compactMap { $0[0].textValue }
        }
        return names
    }
}

/// Answers `.abandon` at `checkpoint`, or once `afterBatches` batches have committed.
struct AbandonAt: MigrationHooks {
    var afterBatches: Int?
    var checkpoint: MigrationCheckpoint?

    func reached(_ reached: MigrationCheckpoint) -> MigrationHookAnswer {
        if case .batchesCommitted(let count) = reached, let afterBatches, count >= afterBatches { return .abandon }
        return reached == checkpoint ? .abandon : .proceed
    }
}

final class EventLog {
    var events: [MigrationEvent] = []
}

/// Everything a database holds that a migration could change: the schema (without root
/// pages), every row of every table (with its rowid), `sqlite_sequence` and `user_version`.
struct RebuildSnapshot: Equatable {
    var userVersion: Int
    var schema: [[SQLiteValue]]
    var rows: [String: [[SQLiteValue]]]

    init(_ path: String) throws {
        let db = try Connection(path: path)
        userVersion = try db.userVersion
        schema = try db.rows("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name")
        rows = [:]
        for table in try db.rows("SELECT name, wr, ncol FROM pragma_table_list WHERE schema = 'main' AND type = 'table'") {
            guard let name = table[0].textValue, !name.hasPrefix("sqlite_schema") else { continue }
            let quoted = SQLText.quote(name)
            let order = (1...Int(table[2].integerValue ?? 1)).map(String.init).joined(separator: ", ")
            rows[name] = try table[1] == .integer(1)
                ? db.rows("SELECT * FROM \(quoted) ORDER BY \(order)")
                : db.rows("SELECT _rowid_, * FROM \(quoted) ORDER BY 1")
        }
    }

    /// The app's own part: Preflight's `_preflight_*` tables and their counters left out.
    var withoutInternal: RebuildSnapshot {
        var copy = self
        copy.schema = schema.filter { $0[1].textValue?.hasPrefix("_preflight_") != true }
        copy.rows = rows.filter { !$0.key.hasPrefix("_preflight_") }
        copy.rows["sqlite_sequence"] = copy.rows["sqlite_sequence"]?.filter { $0[1].textValue?.hasPrefix("_preflight_") != true }
        return copy
    }
}

/// A temporary directory for one test, removed with the value.
final class RebuildScratch {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("preflight-rebuild-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A database made with `sql` (the old schema's own statements and rows), closed again.
    func database(_ name: String = "app.db", sql: String) throws -> String {
        let path = path(name)
        let db = try Connection(path: path, create: true)
        try db.execute(sql)
        return path
    }

    /// A byte-for-byte copy of the database `name`, for a second run from the same start.
    func copy(_ name: String, to copyName: String) throws -> String {
        try FileManager.default.copyItem(atPath: path(name), toPath: path(copyName))
        return path(copyName)
    }
}
