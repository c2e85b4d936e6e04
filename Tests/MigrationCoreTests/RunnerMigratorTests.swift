import Foundation
import Testing
import TestSupport
@testable import MigrationCore

/// The plan's `runner` in process: how it is decoded, and what each runner leaves in the
/// file when the hooks abandon it at a checkpoint (as a kill would: nothing is cleaned up,
/// and the closing connection rolls back what is open).
@Suite("Runners in the migrator")
struct RunnerMigratorTests {
    private let steps = [
        "CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL)",
        "ALTER TABLE items ADD COLUMN doubled INTEGER",
        "UPDATE items SET doubled = n * 2",
        "ALTER TABLE items ADD COLUMN label TEXT",
        "UPDATE items SET label = 'item ' || n",
    ]
    private let ids = ["createItems", "addDoubled", "fillDoubled", "addLabel", "fillLabel"]

    private func plan(_ runner: String, ids: [String]? = nil, extra: String = "") throws -> Plan {
        let stepsJSON = steps.enumerated().map { index, sql in
            let id = ids.map { #""id": "\#($0[index])", "# } ?? ""
            return #"{"version": \#(index + 1), \#(id)"name": "step \#(index + 1)", "sql": \#(JSONValue.quoted(sql))}"#
        }.joined(separator: ", ")
        return try PlanDecoder.decode(Array(#"{"name": "items", "runner": "\#(runner)"\#(extra), "steps": [\#(stepsJSON)]}"#.utf8))
    }

    private func rejection(_ json: String) -> String? {
        do {
            _ = try PlanDecoder.decode(Array(json.utf8))
            return nil
        } catch {
            return error.message
        }
    }

    private func itemsDatabase(_ directory: TemporaryDirectory, version: String = "PRAGMA user_version = 1;") throws -> String {
        try FixtureDatabase.create(at: directory.file("items.db"), sql: """
            CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO items VALUES (1, 1), (2, 2);
            \(version)
            """)
    }

    /// Stops the migration (without cleanup) at the `sql` step of `version`, before its COMMIT.
    private final class AbandonInside: MigrationHooks {
        let version: Int
        private var current = 0
        init(step version: Int) { self.version = version }
        func reached(_ checkpoint: MigrationCheckpoint) -> MigrationHookAnswer {
            if case .stepStarting(let step) = checkpoint { current = step }
            return checkpoint == .insideStep && current == version ? .abandon : .proceed
        }
    }

    private func migrate(
        _ path: String, _ plan: Plan, target: Int? = nil, hooks: MigrationHooks? = nil
    ) -> (Migrator.Ending, [MigrationEvent]) {
        var events: [MigrationEvent] = []
        let ending = Migrator(plan: plan, settings: MigrationSettings(target: target), hooks: hooks)
            .migrate(databaseAt: path) { events.append($0) }
        return (ending, events)
    }

    private func columns(_ path: String) throws -> [String] {
        try Connection(path: path).rows("SELECT name FROM pragma_table_info('items')").compactMap { $0[0].textValue }
    }

    // MARK: - Decoding

    @Test func theRunnerAndItsRules() throws {
        #expect(try plan("per_step").runner == .perStep)
        #expect(try PlanDecoder.decode(Array(#"{"name": "a", "steps": [{"version": 1, "sql": "CREATE TABLE a(x)"}]}"#.utf8)).runner == .perStep)
        #expect(rejection(#"{"name": "a", "runner": "flyway", "steps": []}"#)
            == #"plan: "runner" must be one of "per_step", "grdb", "sqliteopenhelper", "room", "drift", got "flyway""#)
        #expect(rejection(#"{"name": "a", "runner": "grdb", "steps": [{"version": 1, "name": "one", "sql": "CREATE TABLE a(x)"}]}"#)?
            .hasPrefix(#"step 1 ("one"): "id" is missing; runner grdb records each applied migration by its identifier"#) == true)
        #expect(rejection(#"{"name": "a", "runner": "grdb", "steps": [{"version": 1, "id": "v1", "sql": "CREATE TABLE a(x)"}, {"version": 2, "id": "v1", "name": "two", "sql": "CREATE TABLE b(x)"}]}"#)
            == #"step 2 ("two"): "id" "v1" is already the id of step 1; each migration needs an identifier of its own"#)
        #expect(rejection(#"{"name": "a", "room_identity_hash": "abc", "steps": []}"#)?
            .contains(#"it needs "runner": "room", not "per_step""#) == true)
        for runner in ["sqliteopenhelper", "room"] {
            let message = rejection(#"{"name": "a", "runner": "\#(runner)", "steps": [{"version": 1, "sql": "CREATE TABLE a(x)"}, {"version": 2, "name": "copy", "rebuild": {"table": "a", "columns": "x", "select": "x"}}]}"#)
            #expect(message?.hasPrefix(#"step 2 ("copy"): a rebuild commits a batch at a time, which runner \#(runner) cannot do: it runs every pending step inside one transaction"#) == true, "\(message ?? "accepted")")
        }
        // GRDB's connections enforce foreign keys unless the app says otherwise.
        #expect(try plan("grdb", ids: ids).foreignKeys)
        #expect(try !plan("grdb", ids: ids, extra: #", "foreign_keys": "off""#).foreignKeys)
        #expect(try !plan("drift").foreignKeys)
        #expect(try plan("room", extra: #", "room_identity_hash": "abc""#).roomIdentityHash == "abc")
    }

    // MARK: - What a stop inside step 4 leaves

    @Test func stoppedInsideAStepPerStepKeepsTheStepsBeforeAndOneTransactionKeepsNothing() throws {
        let directory = TemporaryDirectory("runners")
        let perStep = try itemsDatabase(directory)
        _ = migrate(perStep, try plan("per_step"), hooks: AbandonInside(step: 4))
        #expect(try FixtureDatabase.userVersion(at: perStep) == 3)
        #expect(try columns(perStep) == ["id", "n", "doubled"])

        let helper = try itemsDatabase(directory)
        let (ending, events) = migrate(helper, try plan("sqliteopenhelper"), hooks: AbandonInside(step: 4))
        #expect(ending != .reached(version: 5))
        #expect(try FixtureDatabase.userVersion(at: helper) == 1)
        #expect(try columns(helper) == ["id", "n"])
        #expect(!events.contains { $0.event == .versionCommitted })
    }

    @Test func oneTransactionRecordsTheVersionOnceAfterTheLastStep() throws {
        let directory = TemporaryDirectory("runners")
        let path = try itemsDatabase(directory)
        let (ending, events) = migrate(path, try plan("sqliteopenhelper"))
        #expect(ending == .reached(version: 5))
        let kinds = events.map(\.event).filter { $0 != .stepStarted }
        #expect(kinds == [.opened, .stepFinished, .stepFinished, .stepFinished, .stepFinished, .versionCommitted, .finished])
        #expect(events.first { $0.event == .versionCommitted }?.userVersion == 5)
    }

    @Test func driftLeavesWhatItsStatementsCommittedAtTheOldVersion() throws {
        let directory = TemporaryDirectory("runners")
        let path = try itemsDatabase(directory)
        let (_, events) = migrate(path, try plan("drift"), hooks: AbandonInside(step: 3))
        #expect(try FixtureDatabase.userVersion(at: path) == 1)
        #expect(try columns(path) == ["id", "n", "doubled"])
        #expect(try Connection(path: path).integer("SELECT sum(doubled) FROM items") == 6)
        #expect(events.filter { $0.event == .statementStarted }.map(\.version) == [2, 3])

        // The next run starts again from version 1, on the column step 2 already added.
        let (ending, _) = migrate(path, try plan("drift"))
        guard case .stopped(.failed, let failure) = ending else {
            Issue.record("the second run did not fail: \(ending)")
            return
        }
        #expect(failure.statement == "ALTER TABLE items ADD COLUMN doubled INTEGER")
        #expect(failure.message.contains("duplicate column name: doubled"))
    }

    // MARK: - GRDB

    @Test func grdbRunsTheMigrationsWithoutARowInOrderAndLeavesUserVersionAlone() throws {
        let directory = TemporaryDirectory("runners")
        // Migrations 1 and 3 are recorded (a branch merged late): GRDB runs 2, 4 and 5.
        let path = try itemsDatabase(directory, version: """
            PRAGMA user_version = 77;
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('createItems'), ('fillDoubled');
            """)
        let (ending, events) = migrate(path, try plan("grdb", ids: ids))
        #expect(ending == .reached(version: 5))
        let opened = events.first { $0.event == .opened }
        #expect(opened?.userVersion == 1 && opened?.id == "createItems")
        #expect(events.filter { $0.event == .stepStarted }.map(\.id) == ["addDoubled", "addLabel", "fillLabel"])
        #expect(try FixtureDatabase.userVersion(at: path) == 77)
        #expect(try FixtureDatabase.count("grdb_migrations", at: path) == 5)
        // The verifier judges the version by the rows, and leaves GRDB's table out of the schema.
        let verification = try Verifier(
            plan: try plan("grdb", ids: ids), target: 5, mode: .full, freshInstallPath: directory.file("fresh.db")
        ).verify(connection: Connection(path: path), tablesBefore: [:], startVersion: 1)
        #expect(verification.problems.isEmpty, "\(verification.problems)")
    }

    @Test func grdbRefusesAFileMigratedBeyondTheTarget() throws {
        let directory = TemporaryDirectory("runners")
        let path = try itemsDatabase(directory, version: """
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('createItems'), ('addLabel');
            """)
        let (ending, _) = migrate(path, try plan("grdb", ids: ids), target: 2)
        guard case .stopped(.refused, let failure) = ending else {
            Issue.record("not refused: \(ending)")
            return
        }
        #expect(failure.kind == Failure.Kind.futureVersion)
        #expect(failure.message.contains("migration 4 (grdb_migrations), above the target version 2"))
    }

    // MARK: - Room

    @Test func roomHasNoMigrationFromANegativeVersion() throws {
        let directory = TemporaryDirectory("runners")
        let path = try itemsDatabase(directory, version: "PRAGMA user_version = -1;")
        let (ending, _) = migrate(path, try plan("room"))
        #expect(ending == .stopped(.failed, Failure(
            kind: Failure.Kind.missingMigration,
            message: #"the file is at user_version -1, below the plan's base version 1, the oldest its steps start from: Room fails at every launch with "A migration from -1 to 5 was required but not found" (the plan's room_destructive_fallback is off)"#)))
        let (perStep, _) = migrate(path, try plan("per_step"))
        guard case .stopped(.refused, let refusal) = perStep else {
            Issue.record("per_step did not refuse: \(perStep)")
            return
        }
        #expect(refusal.kind == Failure.Kind.futureVersion)
    }

    /// Room checks the tables and views it knows; a table it does not know, a trigger, and
    /// Android's own `android_metadata` are not its business.
    @Test func roomValidatesOnlyWhatItsSchemaHas() throws {
        let directory = TemporaryDirectory("runners")
        let path = try itemsDatabase(directory, version: """
            CREATE TABLE android_metadata (locale TEXT); INSERT INTO android_metadata VALUES ('en_US');
            CREATE TABLE scratch(x); CREATE TRIGGER items_touch AFTER UPDATE ON items BEGIN SELECT 1; END;
            PRAGMA user_version = 1;
            """)
        let fresh = #", "fresh_install": {"version": 5, "sql": ["CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, doubled INTEGER, label TEXT)"]}"#
        let (ending, events) = migrate(path, try plan("room", extra: fresh))
        #expect(ending == .reached(version: 5), "\(events.compactMap(\.failure?.message))")

        // A column of the wrong type is.
        let wrong = try itemsDatabase(directory)
        let typed = fresh.replacingOccurrences(of: "label TEXT", with: "label INTEGER")
        let (failed, _) = migrate(wrong, try plan("room", extra: typed))
        guard case .stopped(.failed, let failure) = failed else {
            Issue.record("not failed: \(failed)")
            return
        }
        #expect(failure.kind == Failure.Kind.schemaValidation)
        #expect(failure.step == 5)
        #expect(failure.message.contains(#"column items.label: affinity TEXT (type "TEXT"), expected INTEGER (type "INTEGER")"#), "\(failure.message)")
        #expect(try FixtureDatabase.userVersion(at: wrong) == 1)
        #expect(!FileManager.default.fileExists(atPath: wrong + "-room-expected"))
    }
}
