import Foundation
import Testing
import TestSupport
import MigrationCore
import PreflightService
import Simulation

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
        let report = try result.decodedReport
        #expect(result.status == 0, "\(result.stderr)")
        #expect(report.outcome == .completed)
        #expect(report.steps.map(\.version) == Array((version + 1)...6))
        #expect(report.steps.allSatisfy { $0.elapsedMs != nil && $0.status == .applied })
        let final = try #require(report.final)
        #expect(final.schemaMatchesFreshInstall == true, "\(final.schemaDiff ?? [])")
        #expect(final.tables?["notes"] == (version == 0 ? 0 : 300))
        #expect(FixtureDatabase.sha256(of: path) == before)
        #expect(try FixtureDatabase.userVersion(at: directory.file("out.db")) == 6)
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.db-wal")))
    }

    /// A plain run, and one whose launches are killed in the swap until they run out (a
    /// failure, interrupted and skipped steps, a final state short of the target).
    @Test(arguments: [[:], ["PREFLIGHT_TEST_FAULT": "point=inside_swap"]])
    func theReportDecodesToTheSameBytes(environment: [String: String]) throws {
        let directory = TemporaryDirectory("run")
        let path = try NotesHistory.database(version: 1, rows: 300, at: directory.file("v1.db"))
        let result = try PreflightProcess.run(
            ["run", "--db", path, "--plan", plan, "--launches", "2"], environment: environment)
        let report = try result.decodedReport
        #expect(report.outcome == (environment.isEmpty ? .completed : .crashLoop), "\(result.stderr)")
        // Encoded by the CLI, decoded, encoded again: the same bytes.
        #expect(ReportRendering.json(report) == [UInt8](result.stdout))
        let again = try JSONDecoder().decode(Report.self, from: Data(ReportRendering.json(report)))
        #expect(ReportRendering.json(again) == ReportRendering.json(report))
    }

    /// `--format html` writes the report page the service answers a browser, from the same
    /// code: one self-contained file.
    @Test func theReportPageIsOneFlagAway() throws {
        let directory = TemporaryDirectory("run")
        let path = try NotesHistory.database(version: 1, rows: 300, at: directory.file("v1.db"))
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", plan, "--format", "html"])
        #expect(result.status == 0, "\(result.stderr)")
        let page = result.stdoutText
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        for part in [
            "<title>Preflight completed: notes</title>", "<strong>completed</strong>",
            "id=\"todo\">Nothing to do: it migrates in one launch.", "<svg id=\"timeline\"", "<svg id=\"space\"",
            "<table id=\"steps\"",
        ] {
            #expect(page.contains(part), "\(part)")
        }
        #expect(page.components(separatedBy: "<tr data-status=\"applied\"").count - 1 == 5)
        // Nothing to fetch, nothing to run.
        #expect(!page.contains("src=") && !page.contains("href=") && !page.contains("<script"))
        let pdf = try PreflightProcess.run(["run", "--db", path, "--plan", plan, "--format", "pdf"])
        #expect(pdf.status == 2)
        #expect(pdf.stderr.contains("--format must be json, text, junit or html, got \"pdf\""), "\(pdf.stderr)")
    }

    @Test func theNewestVersionHasNothingToDo() throws {
        let directory = TemporaryDirectory("run")
        let path = try NotesHistory.database(version: 6, at: directory.file("v6.db"))
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", plan])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.decodedReport
        #expect(report.outcome == .completed)
        #expect(report.steps.isEmpty)
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

        for (path, outcome, kind): (String, Outcome, String) in [
            (future, .refused, "future_version"), (foreign, .refused, "foreign_application_id"),
            (garbage, .invalidDatabase, "invalid_database"), (truncated, .invalidDatabase, "invalid_database"),
        ] {
            let before = FixtureDatabase.sha256(of: path)
            let result = try PreflightProcess.run(["run", "--db", path, "--plan", plan])
            #expect(result.status == 1)
            let report = try result.decodedReport
            #expect(report.outcome == outcome, "\(path)")
            #expect(report.failure?.kind.rawValue == kind)
            #expect(FixtureDatabase.sha256(of: path) == before)
            // A refused file is still a database: the report says what it holds.
            if outcome == .refused {
                #expect(report.final?.userVersion == (path == future ? 7 : 2))
                #expect(report.final?.tables == ["x": 0])
            } else {
                #expect(report.final == nil)
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
        let report = try result.decodedReport
        #expect(report.outcome == .failed)
        let failure = try #require(report.failure)
        #expect(failure.step == 3)
        #expect(failure.statement == "ALTER TABLE a ADD COLUMN z TEXT NOT NULL")
        #expect(failure.sqliteCode == 1)
        #expect(report.final?.userVersion == 2)
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
        let input = try result.decodedReport.input
        #expect(input.tables?["notes"] == 250)
        #expect(input.journalMode == "wal")
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

        let checkpointed = try PreflightProcess.run(["run", "--db", directory.file("checkpointed.db"), "--plan", plan]).decodedReport
        let codes = checkpointed.warnings.map(\.code)
        #expect(codes.contains("wal_missing"))
        #expect(!codes.contains("wal_schema_missing"))
        #expect(checkpointed.input.tables == ["notes": 0])

        let headerOnly = try PreflightProcess.run(["run", "--db", directory.file("header-only.db"), "--plan", plan]).decodedReport
        let headerOnlyCodes = headerOnly.warnings.map(\.code)
        #expect(headerOnlyCodes.contains("wal_missing") && headerOnlyCodes.contains("wal_schema_missing"))

        let withWAL = try PreflightProcess.run([
            "run", "--db", directory.file("checkpointed.db"), "--wal", device + "-wal", "--plan", plan,
        ]).decodedReport
        #expect(!withWAL.warnings.contains { $0.code == "wal_missing" })
    }

    /// A WAL whose last transaction is torn loses that transaction, on the device and here,
    /// and the report says so; a WAL from another app's database is named as such.
    @Test func damagedAndForeignWALsAreWarnedAbout() throws {
        let directory = TemporaryDirectory("run")
        let device = directory.file("device.db")
        let app = try Connection(path: device, create: true)
        try app.execute(NotesHistory.schema(version: 2) + "PRAGMA user_version = 2; PRAGMA application_id = \(NotesHistory.applicationID);")
        try app.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; PRAGMA wal_checkpoint(TRUNCATE);")
        try app.execute("\(series(100)) INSERT INTO notes(id, title, updated_at) SELECT value, 'n' || value, value FROM series")
        try app.execute("\(series(100)) INSERT INTO notes(id, title, updated_at) SELECT value + 100, 'm' || value, value FROM series")
        try FileManager.default.copyItem(atPath: device, toPath: directory.file("pulled.db"))
        try FileManager.default.copyItem(atPath: device + "-wal", toPath: directory.file("pulled.db-wal"))
        withExtendedLifetime(app) {}
        // Tear the last frame (the second transaction's commit): one byte of its page.
        let wal = try FileHandle(forUpdating: URL(fileURLWithPath: directory.file("pulled.db-wal")))
        let end = try wal.seekToEnd()
        try wal.seek(toOffset: end - 100)
        try wal.write(contentsOf: Data([0xA5]))
        try wal.close()

        let torn = try PreflightProcess.run([
            "run", "--db", directory.file("pulled.db"), "--wal", directory.file("pulled.db-wal"), "--plan", plan,
        ])
        #expect(torn.status == 0, "\(torn.stderr)")
        let report = try torn.decodedReport
        #expect(report.input.tables?["notes"] == 100)
        let warning = try #require(report.warnings.first { $0.code == "wal_frames_ignored" })
        #expect(warning.message.contains("SQLite ignores"), "\(warning.message)")

        let other = directory.file("other.db")
        let otherApp = try Connection(path: other, create: true)
        try otherApp.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE invoices(id INTEGER PRIMARY KEY)")
        try FileManager.default.copyItem(atPath: other + "-wal", toPath: directory.file("foreign-wal"))
        withExtendedLifetime(otherApp) {}
        let foreign = try PreflightProcess.run([
            "run", "--db", directory.file("pulled.db"), "--wal", directory.file("foreign-wal"), "--plan", plan,
        ]).decodedReport
        #expect(foreign.warnings.contains { $0.code == "wal_mismatch" }, "\(foreign.warnings)")
    }

    /// `--out` gets the migrated work copy in place of whatever file was there.
    @Test func theMigratedFileReplacesTheFileAtOut() throws {
        let directory = TemporaryDirectory("run")
        let path = try NotesHistory.database(version: 3, rows: 120, at: directory.file("v3.db"))
        let out = try FixtureDatabase.create(at: directory.file("out.db"), sql: "CREATE TABLE stale(x); PRAGMA user_version = 42;")
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", plan, "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FixtureDatabase.userVersion(at: out) == 6)
        #expect(try FixtureDatabase.count("notes", at: out) == 120)
        #expect(try Connection(path: out).scalar("SELECT count(*) FROM sqlite_schema WHERE name = 'stale'").integerValue == 0)
    }

    /// Checked before the run: `--out` naming the input (by its path, or by a link to it)
    /// would overwrite the user's file with the migrated one, and a folder there would
    /// fail only after the run, its report lost.
    @Test func outNeverNamesTheInputOrAFolder() throws {
        let directory = TemporaryDirectory("run")
        let path = try NotesHistory.database(version: 2, rows: 50, at: directory.file("v2.db"))
        let link = directory.file("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let folder = directory.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: folder + "/keep.txt", contents: Data("kept".utf8))
        let before = FixtureDatabase.sha256(of: path)
        for (out, says) in [(path, "is the input itself"), (link, "is the input itself"), (folder, "is a folder")] {
            let result = try PreflightProcess.run(["run", "--db", path, "--plan", plan, "--out", out])
            #expect(result.status == 2, "\(out)")
            #expect(result.stderr.contains(says), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(FixtureDatabase.sha256(of: path) == before)
        #expect(try FixtureDatabase.userVersion(at: path) == 2)
        #expect(FileManager.default.contents(atPath: folder + "/keep.txt") == Data("kept".utf8))
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
