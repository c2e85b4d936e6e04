import Foundation
import Testing
import TestSupport
@testable import MigrationCore

@Suite("Migrator: gate, sql steps, application id")
struct MigratorTests {
    private func migrate(_ path: String, plan: Plan, target: Int? = nil) -> (Migrator.Ending, [MigrationEvent]) {
        var events: [MigrationEvent] = []
        let ending = Migrator(plan: plan, settings: MigrationSettings(target: target)).migrate(databaseAt: path) {
            events.append($0)
        }
        return (ending, events)
    }

    private func sqlPlan(_ steps: [String], applicationID: Int32? = nil) throws -> Plan {
        let stepsJSON = steps.enumerated().map { index, sql in
            #"{"version": \#(index + 1), "name": "step \#(index + 1)", "sql": \#(JSONValue.quoted(sql))}"#
        }.joined(separator: ", ")
        let id = applicationID.map { #""application_id": \#($0), "# } ?? ""
        return try PlanDecoder.decode(Array(#"{"name": "test", \#(id)"steps": [\#(stepsJSON)]}"#.utf8))
    }

    @Test func eachStepCommitsWithItsVersion() throws {
        let directory = TemporaryDirectory("migrator")
        let path = try FixtureDatabase.create(at: directory.file("a.db"), sql: "CREATE TABLE a(x); INSERT INTO a VALUES (1), (2); PRAGMA user_version = 1;")
        let plan = try sqlPlan([
            "CREATE TABLE a(x)", "ALTER TABLE a ADD COLUMN y TEXT", "CREATE INDEX a_y ON a(y)", "UPDATE a SET y = 'v' || x",
            "CREATE TABLE empty(z); CREATE INDEX empty_z ON empty(z)", "REINDEX a_y",
        ])
        let (ending, events) = migrate(path, plan: plan)
        #expect(ending == .reached(version: 6))
        #expect(try FixtureDatabase.userVersion(at: path) == 6)
        let finished = events.filter { $0.event == .stepFinished }
        #expect(finished.map(\.version) == [2, 3, 4, 5, 6])
        // An index over no rows costs nothing that grows; REINDEX rebuilds one over all rows.
        #expect(finished.map(\.costClass) == [.metadata, .index, .data, .metadata, .index])
        #expect(finished.allSatisfy { $0.elapsedMs != nil })
        #expect(events.first?.event == .opened && events.first?.userVersion == 1)
    }

    @Test func quotedNamesDoNotHideWhatAStatementDoes() throws {
        #expect(StatementRules.leadingWords(of: #"ALTER TABLE "my ""notes""" RENAME TO n"#, count: 4)
            == ["ALTER", "TABLE", #"MY "NOTES""#, "RENAME"])
        #expect(StatementRules.leadingWords(of: "ALTER TABLE main.[notes] DROP COLUMN `y`", count: 8)
            == ["ALTER", "TABLE", "MAIN", ".", "NOTES", "DROP", "COLUMN", "Y"])
        let directory = TemporaryDirectory("migrator")
        let path = try FixtureDatabase.create(
            at: directory.file("a.db"), sql: #"CREATE TABLE "my notes"(x, y); INSERT INTO "my notes" VALUES (1, 2); PRAGMA user_version = 1;"#)
        let plan = try sqlPlan([#"CREATE TABLE "my notes"(x, y)"#, #"ALTER TABLE "my notes" DROP COLUMN "y""#])
        let (ending, events) = migrate(path, plan: plan)
        #expect(ending == .reached(version: 2))
        // Dropping a column rewrites every row, however the table is spelled.
        #expect(events.first { $0.event == .stepFinished }?.costClass == .rewrite)
    }

    /// The commonest real tables: their automatic index is reported before the table exists.
    @Test(arguments: [
        "CREATE TABLE t(k TEXT PRIMARY KEY, v)", #"CREATE TABLE t("order", v, UNIQUE("order") ON CONFLICT REPLACE)"#,
        "CREATE TABLE t(k TEXT NOT NULL, v, PRIMARY KEY(k, v)) WITHOUT ROWID", "CREATE TABLE t(k TEXT UNIQUE, v INT) STRICT",
        #"CREATE TABLE "t"("k é" TEXT PRIMARY KEY, v INT UNIQUE)"#,
    ])
    func aTableWithAnAutomaticIndexIsCreatedAndFilledInOneStep(create: String) throws {
        let directory = TemporaryDirectory("migrator")
        let path = try FixtureDatabase.create(at: directory.file("a.db"), sql: "CREATE TABLE a(x); INSERT INTO a VALUES (1), (2); PRAGMA user_version = 1;")
        let plan = try sqlPlan(["CREATE TABLE a(x)", "\(create); INSERT INTO t SELECT 'k' || x, x FROM a; CREATE INDEX t_v ON t(v)"])
        let (ending, events) = migrate(path, plan: plan)
        #expect(ending == .reached(version: 2), "\(events.compactMap(\.failure?.message))")
        #expect(try FixtureDatabase.count("t", at: path) == 2)
        // The index is built over the rows the step's INSERT put there.
        #expect(events.first { $0.event == .stepFinished }?.costClass == .index)
    }

    /// Files that phones open (SQLite's default trusted_schema and expression depth).
    @Test func schemasThatPhonesOpenAreMigrated() throws {
        let directory = TemporaryDirectory("migrator")
        // A left-deep sum: an expression tree 700 deep, past the 500 that was once set here.
        let nested = Array(repeating: "1", count: 700).joined(separator: " + ")
        let path = try FixtureDatabase.create(at: directory.file("a.db"), sql: """
            CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); CREATE INDEX notes_json ON notes(json_valid(body));
            CREATE VIEW deep AS SELECT \(nested) AS n; INSERT INTO notes(body) VALUES ('{}'); PRAGMA user_version = 1;
            """)
        let plan = try sqlPlan(["CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)", "INSERT INTO notes(body) SELECT n FROM deep"])
        let (ending, events) = migrate(path, plan: plan)
        #expect(ending == .reached(version: 2), "\(events.compactMap(\.failure?.message))")
        #expect(try FixtureDatabase.count("notes", at: path) == 2)
    }

    /// SQLite prepares only the first statement of a text: a second one must not vanish.
    @Test func aStatementGluedToAnotherIsAnErrorNotLeftOut() throws {
        let connection = try Connection(path: ":memory:")
        #expect(throws: SQLiteError.self) { try connection.prepare("CREATE TABLE a(x); CREATE TABLE b(y)") }
        #expect(throws: SQLiteError.self) { try connection.prepare("CREATE TABLE a(x); INSERT INTO a VALUES (1)") }
        _ = try connection.prepare("SELECT 1; -- a comment after the statement\n /* and another */ ")
        #expect(try connection.integer("SELECT count(*) FROM sqlite_schema") == 0)
    }

    @Test func aFailingStatementRollsBackOnlyItsStep() throws {
        let directory = TemporaryDirectory("migrator")
        let path = try FixtureDatabase.create(at: directory.file("a.db"), sql: "CREATE TABLE a(x); INSERT INTO a VALUES (1), (2);")
        // Step 3 adds a NOT NULL column without a default to a table with rows: SQLite refuses.
        let plan = try sqlPlan([
            "CREATE TABLE IF NOT EXISTS a(x)", "CREATE TABLE b(y)",
            "CREATE TABLE c(z); ALTER TABLE a ADD COLUMN w TEXT NOT NULL",
        ])
        let (ending, events) = migrate(path, plan: plan)
        guard case .stopped(.failed, let failure) = ending else {
            Issue.record("expected failed, got \(ending)")
            return
        }
        #expect(failure.step == 3)
        #expect(failure.statement == "ALTER TABLE a ADD COLUMN w TEXT NOT NULL")
        #expect(failure.sqliteCode == 1)
        #expect(failure.message.contains("NOT NULL"))
        #expect(try FixtureDatabase.userVersion(at: path) == 2)
        let connection = try Connection(path: path)
        #expect(try connection.integer("SELECT count(*) FROM sqlite_schema WHERE name IN ('b', 'c')") == 1)
        #expect(try connection.integer("SELECT count(*) FROM a") == 2)
        #expect(events.contains { $0.event == .stepFailed && $0.version == 3 })
    }

    @Test func aConstraintViolationReportsTheExtendedCode() throws {
        let directory = TemporaryDirectory("migrator")
        let path = try FixtureDatabase.create(at: directory.file("a.db"), sql: "CREATE TABLE a(x); INSERT INTO a VALUES (1), (1);")
        let plan = try sqlPlan(["CREATE TABLE IF NOT EXISTS a(x)", "CREATE UNIQUE INDEX a_x ON a(x)"])
        let (ending, _) = migrate(path, plan: plan)
        guard case .stopped(.failed, let failure) = ending else {
            Issue.record("expected failed, got \(ending)")
            return
        }
        #expect(failure.sqliteCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(try FixtureDatabase.userVersion(at: path) == 1)
    }

    @Test func futureVersionsAreRefusedUntouched() throws {
        let directory = TemporaryDirectory("migrator")
        let path = try FixtureDatabase.create(at: directory.file("a.db"), sql: "CREATE TABLE a(x); PRAGMA user_version = 9;")
        let before = FixtureDatabase.sha256(of: path)
        let (ending, _) = migrate(path, plan: try sqlPlan(["CREATE TABLE a(x)"]))
        guard case .stopped(.refused, let failure) = ending else {
            Issue.record("expected refused, got \(ending)")
            return
        }
        #expect(failure.kind.rawValue == "future_version")
        #expect(FixtureDatabase.sha256(of: path) == before)
        // Above --target is refused too.
        let path2 = try FixtureDatabase.create(at: directory.file("b.db"), sql: "CREATE TABLE a(x); PRAGMA user_version = 2;")
        let (ending2, _) = migrate(path2, plan: try sqlPlan(["CREATE TABLE a(x)", "SELECT 1", "SELECT 2"]), target: 1)
        #expect({ if case .stopped(.refused, _) = ending2 { return true } else { return false } }())
    }

    @Test func anotherAppsFileIsRefusedAndAnUnownedFileIsAdopted() throws {
        let directory = TemporaryDirectory("migrator")
        let plan = try sqlPlan(["CREATE TABLE a(x)", "CREATE TABLE b(y)"], applicationID: 42)
        let foreign = try FixtureDatabase.create(at: directory.file("f.db"), sql: "CREATE TABLE a(x); PRAGMA user_version = 1; PRAGMA application_id = 7;")
        let before = FixtureDatabase.sha256(of: foreign)
        let (ending, _) = migrate(foreign, plan: plan)
        guard case .stopped(.refused, let failure) = ending else {
            Issue.record("expected refused, got \(ending)")
            return
        }
        #expect(failure.kind.rawValue == "foreign_application_id")
        #expect(FixtureDatabase.sha256(of: foreign) == before)

        let unowned = try FixtureDatabase.create(at: directory.file("u.db"), sql: "CREATE TABLE a(x); PRAGMA user_version = 1;")
        #expect(migrate(unowned, plan: plan).0 == .reached(version: 2))
        #expect(try Connection(path: unowned).integer("PRAGMA application_id") == 42)
    }

    @Test func aZeroByteFileIsAFreshInstall() throws {
        let directory = TemporaryDirectory("migrator")
        let path = directory.file("fresh.db")
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        let (ending, _) = migrate(path, plan: try sqlPlan(["CREATE TABLE a(x)", "CREATE TABLE b(y)"], applicationID: 5))
        #expect(ending == .reached(version: 2))
        #expect(try Connection(path: path).integer("PRAGMA application_id") == 5)
    }

    @Test func garbageIsAnInvalidDatabaseAndIsNotTouched() throws {
        let directory = TemporaryDirectory("migrator")
        let path = directory.file("garbage.db")
        let garbage = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 131) })
        _ = FileManager.default.createFile(atPath: path, contents: garbage)
        let (ending, _) = migrate(path, plan: try sqlPlan(["CREATE TABLE a(x)"]))
        guard case .stopped(.invalidDatabase, _) = ending else {
            Issue.record("expected invalid_database, got \(ending)")
            return
        }
        #expect(FileManager.default.contents(atPath: path) == garbage)
    }

    @Test func rowsThatLiveOnlyInTheWALAreMigrated() throws {
        let directory = TemporaryDirectory("migrator")
        let source = directory.file("device.db")
        let writer = try Connection(path: source, create: true)
        try writer.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE a(x); PRAGMA user_version = 1;")
        try writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try writer.execute("\(series(300)) INSERT INTO a SELECT value FROM series")
        // Pull the files off the "device" while the app still has them open: the rows are in the WAL only.
        try FileManager.default.copyItem(atPath: source, toPath: directory.file("copy.db"))
        try FileManager.default.copyItem(atPath: source + "-wal", toPath: directory.file("copy.db-wal"))
        withExtendedLifetime(writer) {}
        let copy = directory.file("copy.db")
        let (ending, _) = migrate(copy, plan: try sqlPlan(["CREATE TABLE a(x)", "ALTER TABLE a ADD COLUMN y"]))
        #expect(ending == .reached(version: 2))
        let check = try Connection(path: copy)
        #expect(try check.integer("SELECT count(*) FROM a") == 300)
        #expect(try check.scalar("PRAGMA journal_mode").textValue == "wal")
    }
}
