import Foundation
import Testing
import TestSupport
import MigrationCore

/// `preflight run` as a user runs it: the real binary, real files, real worker processes.
@Suite("preflight run")
struct RunCommandTests {
    let plan = Repository.path("Config/plans/notes.json")

    @Test(arguments: [0, 1, 2, 3, 4, 5])
    func everyOlderVersionReachesTheNewest(version: Int) throws {
        let directory = TemporaryDirectory("run")
        let path = directory.file("v\(version).db")
        if version == 0 {
            _ = FileManager.default.createFile(atPath: path, contents: Data())
        } else {
            try NotesHistory.database(version: version, rows: 300, at: path)
        }
        let before = FixtureDatabase.sha256(of: path)
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", plan, "--out", directory.file("out.db")])
        let report = result.report
        #expect(result.status == 0, "\(result.stderr)")
        #expect(report["outcome"] as? String == "completed")
        let steps = report["steps"] as? [[String: Any]] ?? []
        #expect(steps.map { $0["version"] as? Int } == Array((version + 1)...6).map { $0 })
        #expect(steps.allSatisfy { $0["elapsed_ms"] is Int && $0["status"] as? String == "applied" })
        let final = report["final"] as? [String: Any] ?? [:]
        #expect(final["schema_matches_fresh_install"] as? Bool == true, "\(final["schema_diff"] ?? "")")
        #expect((final["tables"] as? [String: Int])?["notes"] == (version == 0 ? 0 : 300))
        #expect(FixtureDatabase.sha256(of: path) == before)
        #expect(try FixtureDatabase.userVersion(at: directory.file("out.db")) == 6)
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.db-wal")))
    }

    @Test func theNewestVersionHasNothingToDo() throws {
        let directory = TemporaryDirectory("run")
        let path = try NotesHistory.database(version: 6, at: directory.file("v6.db"))
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", plan])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.report["outcome"] as? String == "completed")
        #expect((result.report["steps"] as? [Any])?.isEmpty == true)
    }

    @Test func refusalsAndInvalidFilesLeaveTheInputUntouched() throws {
        let directory = TemporaryDirectory("run")
        let future = try FixtureDatabase.create(at: directory.file("future.db"), sql: "CREATE TABLE x(y); PRAGMA user_version = 7;")
        let foreign = try FixtureDatabase.create(
            at: directory.file("foreign.db"), sql: "CREATE TABLE x(y); PRAGMA user_version = 2; PRAGMA application_id = 99;")
        let garbage = directory.file("garbage.db")
        _ = FileManager.default.createFile(atPath: garbage, contents: Data(repeating: 0x5a, count: 20_000))
        let good = try NotesHistory.database(version: 1, rows: 100, at: directory.file("good.db"))
        let truncated = directory.file("truncated.db")
        let goodBytes = try Data(contentsOf: URL(fileURLWithPath: good))
        _ = FileManager.default.createFile(atPath: truncated, contents: goodBytes.prefix(goodBytes.count - 4096))

        for (path, outcome, kind) in [
            (future, "refused", "future_version"), (foreign, "refused", "foreign_application_id"),
            (garbage, "invalid_database", "invalid_database"), (truncated, "invalid_database", "invalid_database"),
        ] {
            let before = FixtureDatabase.sha256(of: path)
            let result = try PreflightProcess.run(["run", "--db", path, "--plan", plan])
            #expect(result.status == 1)
            #expect(result.report["outcome"] as? String == outcome, "\(path)")
            #expect((result.report["failure"] as? [String: Any])?["kind"] as? String == kind)
            #expect(FixtureDatabase.sha256(of: path) == before)
            // A refused file is still a database: the report says what it holds.
            let final = result.report["final"] as? [String: Any]
            if outcome == "refused" {
                #expect(final?["user_version"] as? Int == (path == future ? 7 : 2))
                #expect(final?["tables"] as? [String: Int] == ["x": 0])
            } else {
                #expect(final == nil)
            }
        }
    }

    @Test func aFailingStepReportsStatementCodeAndKeepsEarlierSteps() throws {
        let directory = TemporaryDirectory("run")
        let planPath = directory.file("plan.json")
        try Data("""
            {"name": "t", "steps": [
              {"version": 1, "name": "create", "sql": "CREATE TABLE a(x)"},
              {"version": 2, "name": "b", "sql": "CREATE TABLE b(y)"},
              {"version": 3, "name": "required column", "sql": "ALTER TABLE a ADD COLUMN z TEXT NOT NULL"}]}
            """.utf8).write(to: URL(fileURLWithPath: planPath))
        let path = try FixtureDatabase.create(at: directory.file("a.db"), sql: "CREATE TABLE a(x); INSERT INTO a VALUES (1); PRAGMA user_version = 1;")
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", planPath, "--out", directory.file("out.db")])
        #expect(result.status == 1)
        let report = result.report
        #expect(report["outcome"] as? String == "failed")
        let failure = report["failure"] as? [String: Any] ?? [:]
        #expect(failure["step"] as? Int == 3)
        #expect(failure["statement"] as? String == "ALTER TABLE a ADD COLUMN z TEXT NOT NULL")
        #expect(failure["sqlite_code"] as? Int == 1)
        #expect((report["final"] as? [String: Any])?["user_version"] as? Int == 2)
        #expect(try FixtureDatabase.count("a", at: directory.file("out.db")) == 1)
    }

    @Test func rowsOnlyInTheWALAreCountedAndMigrated() throws {
        let directory = TemporaryDirectory("run")
        let device = directory.file("device.db")
        let app = try Connection(path: device, create: true)
        try app.execute(NotesHistory.schema(version: 2) + "PRAGMA user_version = 2; PRAGMA application_id = \(NotesHistory.applicationID);")
        try app.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; PRAGMA wal_checkpoint(TRUNCATE);")
        try app.execute("\(series(250)) INSERT INTO notes(id, title, updated_at) SELECT value, 'n' || value, value FROM series")
        try FileManager.default.copyItem(atPath: device, toPath: directory.file("pulled.db"))
        try FileManager.default.copyItem(atPath: device + "-wal", toPath: directory.file("pulled.db-wal"))
        withExtendedLifetime(app) {}

        let result = try PreflightProcess.run([
            "run", "--db", directory.file("pulled.db"), "--wal", directory.file("pulled.db-wal"), "--plan", plan,
            "--out", directory.file("out.db"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let input = result.report["input"] as? [String: Any] ?? [:]
        #expect((input["tables"] as? [String: Int])?["notes"] == 250)
        #expect(input["journal_mode"] as? String == "wal")
        #expect(try FixtureDatabase.count("notes", at: directory.file("out.db")) == 250)
        #expect(try Connection(path: directory.file("out.db")).scalar("PRAGMA journal_mode").textValue == "wal")
    }

    /// Seed apps that move a database without its sidecars lose what only the WAL held.
    @Test func aWALFileWithoutItsWALIsFlagged() throws {
        let directory = TemporaryDirectory("run")
        let device = directory.file("device.db")
        let app = try Connection(path: device, create: true)
        try app.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
        try FileManager.default.copyItem(atPath: device, toPath: directory.file("header-only.db"))
        try app.execute(NotesHistory.schema(version: 2) + "PRAGMA user_version = 2; PRAGMA application_id = \(NotesHistory.applicationID);")
        try app.execute("PRAGMA wal_checkpoint(TRUNCATE); INSERT INTO notes(id, title, updated_at) VALUES (1, 'a', 1)")
        try FileManager.default.copyItem(atPath: device, toPath: directory.file("checkpointed.db"))
        withExtendedLifetime(app) {}

        let checkpointed = try PreflightProcess.run(["run", "--db", directory.file("checkpointed.db"), "--plan", plan])
        let codes = (checkpointed.report["warnings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(codes.contains("wal_missing"))
        #expect(!codes.contains("wal_schema_missing"))
        #expect((checkpointed.report["input"] as? [String: Any])?["tables"] as? [String: Int] == ["notes": 0])

        let headerOnly = try PreflightProcess.run(["run", "--db", directory.file("header-only.db"), "--plan", plan])
        let headerOnlyCodes = (headerOnly.report["warnings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(headerOnlyCodes.contains("wal_missing") && headerOnlyCodes.contains("wal_schema_missing"))

        let withWAL = try PreflightProcess.run([
            "run", "--db", directory.file("checkpointed.db"), "--wal", device + "-wal", "--plan", plan,
        ])
        #expect(!(withWAL.report["warnings"] as? [[String: Any]] ?? []).contains { $0["code"] as? String == "wal_missing" })
    }

    @Test func anInvalidPlanIsBadUsage() throws {
        let directory = TemporaryDirectory("run")
        let planPath = directory.file("plan.json")
        try Data(#"{"name": "t", "steps": [{"version": 1, "sql": "VACUUM"}]}"#.utf8).write(to: URL(fileURLWithPath: planPath))
        let path = try NotesHistory.database(version: 1, at: directory.file("a.db"))
        let before = FixtureDatabase.sha256(of: path)
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", planPath])
        #expect(result.status == 2)
        #expect(result.stderr.contains("step 1"))
        #expect(result.stderr.contains("VACUUM"))
        #expect(FixtureDatabase.sha256(of: path) == before)
    }
}
