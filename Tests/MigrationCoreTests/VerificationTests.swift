import Foundation
import Testing
import TestSupport

@testable import MigrationCore

/// Verification after the last step: integrity, foreign keys, row counts and rows lost,
/// and the schema compared with a fresh install. Every fixture is written with the SQL of
/// the version it stands for (version 1's own CREATE TABLEs), then migrated by the real
/// `Migrator`, then verified the way the worker does it.
@Suite struct VerificationTests {
    // MARK: - Fixtures

    /// Version 1 of a small notes app, as version 1 wrote it: 20 notes (5 without a
    /// title) and a `legacy` table that version 3 drops.
    private static let version1 = """
        CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, updated_at INTEGER NOT NULL);
        CREATE TABLE legacy(x);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
        INSERT INTO notes SELECT i, CASE WHEN i % 4 = 0 THEN NULL ELSE 'note ' || i END, 1000 + i FROM n;
        INSERT INTO legacy VALUES (1), (2), (3);
        PRAGMA user_version = 1;
        """

    private static let step1 = #"{"version": 1, "name": "notes", "sql": "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, updated_at INTEGER NOT NULL); CREATE TABLE legacy(x)"}"#
    private static let step2 = #"{"version": 2, "name": "sync status", "sql": ["ALTER TABLE notes ADD COLUMN sync_status TEXT NOT NULL DEFAULT 'synced'", "CREATE INDEX idx_notes_sync_status ON notes(sync_status)"]}"#
    private static let step3 = #"{"version": 3, "name": "outbox", "sql": "DROP TABLE legacy; CREATE TABLE outbox(id INTEGER PRIMARY KEY, note_id INTEGER REFERENCES notes(id), op TEXT NOT NULL)"}"#
    /// What version 3's `onCreate` runs, written the way an app writes it (other spacing,
    /// quoting, column order and case than the steps).
    private static let freshInstall3 = """
        create table if not exists "notes" (
          id integer primary key, title text, sync_status text not null default 'synced', updated_at integer not null);
        create index idx_notes_sync_status on notes (sync_status);
        create table outbox (id integer primary key, note_id integer references "notes"(id), op text not null);
        """

    private func plan(_ steps: [String], freshInstall: String? = nil, foreignKeys: Bool = false) throws -> Plan {
        let fresh = freshInstall.map { #", "fresh_install": {"version": \#(steps.count), "sql": \#(JSONValue.quoted($0))}"# } ?? ""
        let json = #"{"name": "verify", "foreign_keys": "\#(foreignKeys ? "on" : "off")", "steps": [\#(steps.joined(separator: ", "))]\#(fresh)}"#
        return try PlanDecoder.decode(Array(json.utf8))
    }

    /// Builds the fixture with `fixtureSQL`, migrates it to `target` and verifies it.
    private func migrateAndVerify(
        _ plan: Plan, fixtureSQL: String = version1, target: Int? = nil, mode: Verifier.Mode = .full,
        in directory: TemporaryDirectory = TemporaryDirectory("verify")
    ) throws -> Verification {
        let path = try FixtureDatabase.create(at: directory.file("work.db"), sql: fixtureSQL)
        let before = try TableCounts.count(Connection(path: path)).rows
        let startVersion = try FixtureDatabase.userVersion(at: path)
        let target = target ?? plan.newestVersion
        let ending = Migrator(plan: plan, settings: MigrationSettings(target: target)).migrate(databaseAt: path) { _ in }
        #expect(ending == .reached(version: target))
        let scratch = directory.file("scratch")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        return try Verifier(plan: plan, target: target, mode: mode, freshInstallPath: scratch + "/fresh-install.db")
            .verify(connection: Connection(path: path), tablesBefore: before, startVersion: startVersion)
    }

    // MARK: - A good upgrade

    @Test func aGoodUpgradePassesEveryCheck() throws {
        let directory = TemporaryDirectory("verify")
        let verification = try migrateAndVerify(
            plan([Self.step1, Self.step2, Self.step3], freshInstall: Self.freshInstall3), in: directory)
        let final = verification.final
        #expect(final.userVersion == 3)
        #expect(final.integrity == "ok")
        #expect(final.foreignKeyViolations == 0)
        #expect(final.tables == ["notes": 20, "outbox": 0])
        // `legacy` lost its 3 rows by being dropped: not lost rows.
        #expect(final.rowsLost == [:])
        #expect(final.schemaMatchesFreshInstall == true)
        #expect(final.schemaDiff == [])
        #expect(verification.problems == [])
        #expect(verification.passed)
        // The fresh install was built in the scratch directory and removed.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("scratch")) == [])
    }

    @Test func verifyModes() throws {
        let steps = [Self.step1, Self.step2]
        let quick = try migrateAndVerify(plan(steps), mode: .quick)
        #expect(quick.final.integrity == "ok")
        #expect(quick.passed)
        let off = try migrateAndVerify(plan(steps), mode: .off)
        #expect(off.final.integrity == "not checked")
        // Everything else still runs.
        #expect(off.final.foreignKeyViolations == 0)
        #expect(off.final.tables == ["notes": 20, "legacy": 3])
        #expect(off.final.schemaMatchesFreshInstall == true)
        #expect(off.passed)
    }

    // MARK: - Fresh install

    @Test func withoutAScriptTheFreshInstallIsTheReplayedSteps() throws {
        let verification = try migrateAndVerify(plan([Self.step1, Self.step2, Self.step3]))
        #expect(verification.final.schemaMatchesFreshInstall == true)
        #expect(verification.passed)
    }

    @Test func belowTheNewestVersionTheStepsAreReplayedNotTheScript() throws {
        // The script is version 3's; a run to version 2 compares with steps 1-2 replayed.
        let verification = try migrateAndVerify(
            plan([Self.step1, Self.step2, Self.step3], freshInstall: Self.freshInstall3), target: 2)
        #expect(verification.final.userVersion == 2)
        #expect(verification.final.schemaDiff == [])
        #expect(verification.passed)
    }

    @Test func anIndexTheUpgradePathForgetsFailsVerification() throws {
        let script = Self.freshInstall3 + "\nCREATE INDEX idx_notes_updated ON notes(updated_at);"
        let verification = try migrateAndVerify(plan([Self.step1, Self.step2, Self.step3], freshInstall: script))
        let line = "index idx_notes_updated on notes(updated_at): in fresh install, missing after upgrade"
        #expect(verification.final.schemaDiff == [line])
        #expect(verification.final.schemaMatchesFreshInstall == false)
        #expect(verification.problems == ["the schema differs from a fresh install: \(line)"])
    }

    @Test func theScriptAndTheReplayCanDisagree() throws {
        // The same upgrade, compared once with a script that declares `op` as INTEGER and
        // once with the replay: only the script's comparison finds the difference.
        let script = Self.freshInstall3.replacingOccurrences(of: "op text not null", with: "op integer not null")
        let steps = [Self.step1, Self.step2, Self.step3]
        let withScript = try migrateAndVerify(plan(steps, freshInstall: script))
        #expect(withScript.final.schemaDiff == ["column outbox.op: type TEXT after upgrade, INTEGER in fresh install"])
        let withReplay = try migrateAndVerify(plan(steps))
        #expect(withReplay.final.schemaDiff == [])
    }

    @Test func aFreshInstallScriptThatFailsIsAProblem() throws {
        let verification = try migrateAndVerify(
            plan([Self.step1, Self.step2], freshInstall: "CREATE TABLE notes(id INTEGER PRIMARY KEY); CREATE INDEX i ON missing(x);"))
        #expect(verification.final.schemaMatchesFreshInstall == nil)
        #expect(verification.final.schemaDiff == nil)
        #expect(verification.problems.count == 1)
        #expect(verification.problems.first?.contains("fresh_install script fails") == true)
        #expect(verification.problems.first?.contains("no such table: main.missing") == true)
    }

    // MARK: - Rows lost

    private static let deleteUntitled = #"{"version": 2, "name": "drop untitled", "sql": "DELETE FROM notes WHERE title IS NULL"}"#
    private static let deleteUntitledAllowed = #"{"version": 2, "name": "drop untitled", "row_loss": "allowed", "sql": "DELETE FROM \"Notes\" WHERE title IS NULL"}"#

    @Test func rowsLostAreDetectedAndNamed() throws {
        let verification = try migrateAndVerify(plan([Self.step1, Self.deleteUntitled]))
        #expect(verification.final.tables == ["notes": 15, "legacy": 3])
        #expect(verification.final.rowsLost == ["notes": 5])
        #expect(verification.problems == [
            "5 of 20 rows of table notes were lost, and no applied step with \"row_loss\": \"allowed\" concerns that table"
        ])
    }

    @Test func rowsLostAreAllowedWhenTheStepSaysSo() throws {
        let verification = try migrateAndVerify(plan([Self.step1, Self.deleteUntitledAllowed]))
        #expect(verification.final.rowsLost == ["notes": 5])
        #expect(verification.problems == [])
    }

    @Test func anAllowanceCoversOnlyTheTablesItsStepNames() throws {
        // Deleting a folder cascades to its notes: the step allowed losing folders, not notes.
        let fixture = """
            CREATE TABLE folders(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE notes(id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id) ON DELETE CASCADE);
            INSERT INTO folders VALUES (1, 'inbox'), (2, 'trash');
            INSERT INTO notes VALUES (1, 1), (2, 2), (3, 2);
            PRAGMA user_version = 1;
            """
        let step1 = #"{"version": 1, "name": "folders", "sql": "CREATE TABLE folders(id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE notes(id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id) ON DELETE CASCADE)"}"#
        let step2 = #"{"version": 2, "name": "no trash", "row_loss": "allowed", "sql": "DELETE FROM folders WHERE name = 'trash'"}"#
        let verification = try migrateAndVerify(plan([step1, step2], foreignKeys: true), fixtureSQL: fixture)
        #expect(verification.final.rowsLost == ["folders": 1, "notes": 2])
        #expect(verification.problems == [
            "2 of 3 rows of table notes were lost, and no applied step with \"row_loss\": \"allowed\" concerns that table"
        ])
    }

    @Test func onlyStepsAppliedInThisRunAllowLoss() throws {
        let verifier = Verifier(
            plan: try plan([Self.step1, Self.deleteUntitledAllowed, Self.step3]), target: 3, mode: .off, freshInstallPath: "/unused/fresh-install.db")
        let before: [String: Int64] = ["notes": 20]
        let after: [String: Int64] = ["notes": 15]
        // From version 1: step 2 ran in this run and allows it.
        #expect(verifier.rowsLost(before: before, after: after, appliedSteps: 1..<3).1 == [])
        // From version 2: step 2 had already run before; the loss happened in step 3.
        let (lost, problems) = verifier.rowsLost(before: before, after: after, appliedSteps: 2..<3)
        #expect(lost == ["notes": 5])
        #expect(problems.count == 1)
        // Preflight's own tables never count.
        #expect(verifier.rowsLost(before: ["_preflight_progress": 1], after: ["_preflight_progress": 0], appliedSteps: 0..<3).0 == [:])
    }

    @Test func whatAStepConcerns() throws {
        func sqlStep(_ sql: String) -> Step {
            Step(version: 1, name: "s", rowLossAllowed: true, action: .sql([sql]), definitionHash: "")
        }
        #expect(Verifier.step(sqlStep("DELETE FROM \"Notes\" WHERE 1"), concerns: "notes"))
        #expect(Verifier.step(sqlStep("DELETE FROM main.[notes]"), concerns: "NOTES"))
        #expect(!Verifier.step(sqlStep("INSERT INTO log VALUES ('notes')"), concerns: "notes"))
        #expect(!Verifier.step(sqlStep("DELETE FROM notes_archive -- notes"), concerns: "notes"))
        let rebuild = Rebuild(table: "Notes", columns: "id", select: "id", filter: "id > 3", batchRows: 10)
        #expect(Verifier.step(Step(version: 1, name: "r", rowLossAllowed: true, action: .rebuild(rebuild), definitionHash: ""), concerns: "notes"))
        let backfill = Backfill(table: "outbox", set: "x = 1", filter: nil, batchRows: 10)
        #expect(!Verifier.step(Step(version: 1, name: "b", rowLossAllowed: true, action: .backfill(backfill), definitionHash: ""), concerns: "notes"))
    }

    // MARK: - Integrity and foreign keys

    @Test func foreignKeyViolationsAreCounted() throws {
        // Version 1 never enforced its foreign key: two notes point at a missing folder.
        let fixture = """
            CREATE TABLE folders(id INTEGER PRIMARY KEY);
            CREATE TABLE notes(id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id));
            INSERT INTO folders VALUES (1);
            INSERT INTO notes VALUES (1, 1), (2, 7), (3, 8), (4, NULL);
            PRAGMA user_version = 1;
            """
        let step1 = #"{"version": 1, "name": "folders", "sql": "CREATE TABLE folders(id INTEGER PRIMARY KEY); CREATE TABLE notes(id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id))"}"#
        let step2 = #"{"version": 2, "name": "index", "sql": "CREATE INDEX idx_notes_folder ON notes(folder_id)"}"#
        let verification = try migrateAndVerify(plan([step1, step2]), fixtureSQL: fixture)
        #expect(verification.final.foreignKeyViolations == 2)
        #expect(verification.final.integrity == "ok")
        #expect(verification.problems == ["2 rows violate a foreign key (PRAGMA foreign_key_check)"])
    }

    @Test func integrityDamageIsReportedByFullButNotQuickCheck() throws {
        let directory = TemporaryDirectory("verify")
        let path = try FixtureDatabase.create(at: directory.file("damaged.db"), sql: """
            CREATE TABLE t(x INTEGER, y INTEGER);
            CREATE INDEX t_x ON t(x);
            INSERT INTO t VALUES (1, 10), (2, 20), (3, 30);
            PRAGMA user_version = 1;
            """)
        // Damage: the index's definition now says `y`, while its entries hold `x`; only
        // integrity_check compares index entries with the table (quick_check does not).
        try damageIndex(at: path)
        let step1 = #"{"version": 1, "name": "t", "sql": "CREATE TABLE t(x INTEGER, y INTEGER); CREATE INDEX t_x ON t(y)"}"#
        let plan = try plan([step1])
        func verify(_ mode: Verifier.Mode) throws -> Verification {
            try Verifier(plan: plan, target: 1, mode: mode, freshInstallPath: directory.file("fresh-install.db"))
                .verify(connection: Connection(path: path), tablesBefore: ["t": 3])
        }
        let full = try verify(.full)
        #expect(full.final.integrity != "ok")
        #expect(full.final.integrity?.contains("t_x") == true)
        #expect(full.problems.count == 1)
        #expect(full.problems.first?.hasPrefix("PRAGMA integrity_check reports damage: ") == true)
        let quick = try verify(.quick)
        #expect(quick.final.integrity == "ok")
        #expect(quick.passed)
    }

    /// integrity_check runs with cell_size_check off (it examines every cell itself) and
    /// still finds a cell that runs off its page; the caller's connection has the check
    /// back on afterwards.
    @Test func aCellOffItsPageIsFoundAndCellSizeCheckIsBackOn() throws {
        let directory = TemporaryDirectory("verify")
        let path = try FixtureDatabase.create(at: directory.file("damaged.db"), sql: """
            CREATE TABLE t(x INTEGER, y TEXT);
            INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c');
            PRAGMA user_version = 1;
            """)
        // The first cell pointer of the table's page (page 2, after its 8-byte header)
        // now points past the end of the page.
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        try file.seek(toOffset: 4096 + 8)
        try file.write(contentsOf: [0x0F, 0xF0])
        try file.close()
        let plan = try plan([#"{"version": 1, "name": "t", "sql": "CREATE TABLE t(x INTEGER, y TEXT)"}"#])
        let connection = try Connection(path: path)
        let verification = try Verifier(plan: plan, target: 1, mode: .full, freshInstallPath: directory.file("fresh-install.db"))
            .verify(connection: connection, tablesBefore: [:])
        #expect(verification.final.integrity?.contains("On tree page 2 cell 0: Extends off end of page") == true)
        #expect(try connection.integer("PRAGMA cell_size_check") == 1)
    }

    /// The schema compared with a fresh install built ahead, with one built then, or with
    /// nothing (a state read): the last builds no fresh install at all, so where it would
    /// be built can be nowhere, and leaves the schema's fields unknown.
    @Test func theSchemaIsComparedWithTheFreshInstallAskedFor() throws {
        let directory = TemporaryDirectory("verify")
        let path = try FixtureDatabase.create(at: directory.file("t.db"), sql: """
            CREATE TABLE t(x INTEGER);
            PRAGMA user_version = 1;
            """)
        let plan = try plan([#"{"version": 1, "name": "t", "sql": "CREATE TABLE t(x INTEGER, y INTEGER)"}"#])
        let verifier = Verifier(plan: plan, target: 1, mode: .off, freshInstallPath: directory.file("fresh-install.db"))
        func verify(_ schema: Verifier.SchemaComparison, by verifier: Verifier = verifier) throws -> Verification {
            try verifier.verify(connection: Connection(path: path), tablesBefore: ["t": 0], schema: schema)
        }
        let builtThen = try verify(.freshInstall)
        #expect(builtThen.final.schemaMatchesFreshInstall == false)
        #expect(builtThen.problems.count == 1)
        let builtAhead = try verify(.builtFreshInstall(Result { () throws(Verifier.FreshInstallFailure) in
            try verifier.freshInstallSnapshot()
        }))
        #expect(builtAhead.final.schemaDiff == builtThen.final.schemaDiff)
        #expect(builtAhead.problems == builtThen.problems)
        let nowhere = Verifier(plan: plan, target: 1, mode: .off, freshInstallPath: directory.file("missing/fresh-install.db"))
        #expect(try verify(.freshInstall, by: nowhere).problems.first?.contains("cannot be created") == true)
        let stateOnly = try verify(.none, by: nowhere)
        #expect(stateOnly.problems == [])
        #expect(stateOnly.final.schemaMatchesFreshInstall == nil)
        #expect(stateOnly.final.schemaDiff == nil)
        #expect(stateOnly.final.userVersion == 1)
        #expect(stateOnly.final.tables == ["t": 0])
    }

    /// Rewrites index `t_x`'s definition behind SQLite's back.
    private func damageIndex(at path: String) throws {
        try FixtureDatabase.rewriteSchema("UPDATE sqlite_schema SET sql = 'CREATE INDEX t_x ON t(y)' WHERE name = 't_x';", at: path)
    }

    @Test func aRunShortOfItsTargetIsAProblem() throws {
        let directory = TemporaryDirectory("verify")
        let path = try FixtureDatabase.create(at: directory.file("v1.db"), sql: Self.version1)
        let verification = try Verifier(
            plan: plan([Self.step1, Self.step2]), target: 2, mode: .quick, freshInstallPath: directory.file("fresh-install.db")
        ).verify(connection: Connection(path: path), tablesBefore: ["notes": 20, "legacy": 3])
        #expect(verification.final.userVersion == 1)
        #expect(verification.problems.first == "the database is at version 1 after the run, not at the target 2")
    }

    // MARK: - Table counts

    @Test func tableCountsCountTheUsersTablesVirtualOnesIncludedAndNoShadowTable() throws {
        let connection = try Connection(path: ":memory:")
        try connection.execute("""
            CREATE TABLE notes(id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT, body TEXT);
            INSERT INTO notes(title, body) VALUES ('a', 'one'), ('b', 'two');
            CREATE VIEW titles AS SELECT title FROM notes;
            CREATE TABLE _preflight_progress(step INTEGER PRIMARY KEY);
            INSERT INTO _preflight_progress VALUES (1);
            CREATE TABLE [odd "name"](x);
            ANALYZE;
            -- Joplin's external-content FTS4 table, K-9 Mail's FTS4 table, and the other modules.
            CREATE VIRTUAL TABLE notes_fts USING fts4(content="notes", notindexed="id", id, title, body);
            INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');
            CREATE VIRTUAL TABLE messages_fulltext USING fts4 (fulltext);
            INSERT INTO messages_fulltext(docid, fulltext) VALUES (1, 'hello'), (2, 'world'), (3, 'again');
            CREATE VIRTUAL TABLE legacy_search USING fts3(body);
            INSERT INTO legacy_search VALUES ('x');
            CREATE VIRTUAL TABLE search USING fts5(body);
            INSERT INTO search VALUES ('x'), ('y'), ('z'), ('w');
            CREATE VIRTUAL TABLE places USING rtree(id, min_x, max_x);
            INSERT INTO places VALUES (1, 0, 1), (2, 1, 2);
            """)
        let counts = try TableCounts.count(connection)
        #expect(counts.rows == [
            "notes": 2, "odd \"name\"": 0, "notes_fts": 2, "messages_fulltext": 3, "legacy_search": 1, "search": 4,
            "places": 2,
        ])
        #expect(counts.uncounted == [:])
        #expect(try UserTable.list(connection).filter(\.isVirtual).map(\.name)
            == ["notes_fts", "messages_fulltext", "legacy_search", "search", "places"])
    }

    /// A virtual table whose module or tokenizer this SQLite lacks (an app may register its
    /// own) is not a database SQLite cannot read: it is reported apart, with SQLite's reason,
    /// and the rest is counted and verified.
    @Test func aVirtualTableThisSQLiteCannotReadIsUncountedNotAFailure() throws {
        let directory = TemporaryDirectory("verify")
        let path = try FixtureDatabase.create(at: directory.file("v1.db"), sql: """
            CREATE TABLE t(x); INSERT INTO t VALUES (1);
            CREATE VIRTUAL TABLE own USING fts5(body); INSERT INTO own VALUES ('a');
            CREATE VIRTUAL TABLE tokenized USING fts5(body, tokenize = 'porter'); INSERT INTO tokenized VALUES ('b');
            PRAGMA user_version = 1;
            """)
        try FixtureDatabase.rewriteSchema("""
            UPDATE sqlite_schema SET sql = 'CREATE VIRTUAL TABLE own USING app_module(body)' WHERE name = 'own';
            UPDATE sqlite_schema SET sql = replace(sql, 'porter', 'app_tokenizer') WHERE name = 'tokenized';
            """, at: path)
        let counts = try TableCounts.count(Connection(path: path))
        #expect(counts.uncounted == ["own": "no such module: app_module", "tokenized": "no such tokenizer: app_tokenizer"])
        // Without its module SQLite cannot tell own's shadow tables from ordinary tables.
        #expect(counts.rows["t"] == 1 && counts.rows["own_data"] != nil && counts.rows["tokenized_data"] == nil, "\(counts.rows)")

        let verification = try Verifier(
            plan: plan([#"{"version": 1, "name": "t", "sql": "CREATE TABLE t(x)"}"#]), target: 1, mode: .full,
            freshInstallPath: directory.file("fresh-install.db")
        ).verify(connection: Connection(path: path), tablesBefore: counts.rows, startVersion: 1, schema: .none)
        #expect(verification.final.tables == counts.rows)
        #expect(verification.uncountedTables == counts.uncounted)
        #expect(verification.problems == [])
    }

    /// A step allowed to lose rows of an FTS table loses them under the table's own name.
    @Test func rowsLostOfAVirtualTableAreItsOwn() throws {
        let step1 = #"{"version": 1, "name": "search", "sql": "CREATE VIRTUAL TABLE search USING fts4(body)"}"#
        let step2 = #"{"version": 2, "name": "forget", "row_loss": "allowed", "sql": "DELETE FROM search WHERE docid > 1"}"#
        let fixture = "CREATE VIRTUAL TABLE search USING fts4(body); INSERT INTO search VALUES ('a'), ('b'), ('c'); PRAGMA user_version = 1;"
        let verification = try migrateAndVerify(plan([step1, step2]), fixtureSQL: fixture)
        #expect(verification.final.tables == ["search": 1])
        #expect(verification.final.rowsLost == ["search": 2])
        #expect(verification.problems == [])
    }

    /// The fresh install is scratch, read once and removed: it is built with the platform's
    /// settings (`legacy_alter_table` changes what a RENAME leaves in the schema), but
    /// without the device's syncs, which were most of a long plan's replay.
    @Test func theFreshInstallKeepsThePlatformsSettingsButNotItsSyncs() throws {
        let device = ConnectionSettings(journalMode: "WAL", synchronous: "FULL", legacyAlterTable: true)
        let verifier = Verifier(
            plan: try plan([Self.step1]), target: 1, mode: .off, freshInstallPath: "/unused/fresh-install.db", connection: device)
        let pragmas = verifier.scratchConnection.pragmas(freshFile: true)
        #expect(pragmas.contains("PRAGMA synchronous = OFF"))
        #expect(!pragmas.contains("PRAGMA synchronous = FULL"))
        #expect(pragmas.contains("PRAGMA journal_mode = WAL") && pragmas.contains("PRAGMA legacy_alter_table = ON"))
    }
}
