import Foundation
@testable import MigrationCore
import Simulation
import Testing
import TestSupport

/// The rows through the real `preflight run`: what a profile's SQLite and platform
/// make of a migration's SQL, each on a profile that has it and on one that does not.
@Suite("The device's SQL through preflight run", .serialized)
struct DeviceSQLRunTests {
    private static func plan(_ second: String) -> String {
        """
        {"name": "people", "steps": [
          {"version": 1, "name": "create", "sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, k TEXT)"},
          {"version": 2, "name": "second", "sql": \(JSONValue.quoted(second))}]}
        """
    }

    private func run(_ second: String, on device: String, in directory: TemporaryDirectory) throws -> (report: Report, out: String) {
        let database = try FixtureDatabase.create(at: directory.file("\(device).db"), sql: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, k TEXT);
            INSERT INTO t(name) VALUES ('ÄRGER'), ('bob'); PRAGMA user_version = 1;
            """)
        let plan = directory.file("\(device).json")
        try Data(Self.plan(second).utf8).write(to: URL(fileURLWithPath: plan))
        let out = directory.file("\(device)-out.db")
        let result = try PreflightProcess.run(
            ["run", "--db", database, "--plan", plan, "--device", device, "--out", out], environment: ["TMPDIR": directory.path])
        return (try result.decodedReport, out)
    }

    @Test func lowerFoldsTheUmlautOnAndroid35AndNotOnIOS18() throws {
        let directory = TemporaryDirectory("device-sql-lower")
        for (device, expected) in [("android-35", "ärger"), ("ios-18", "Ärger")] {
            let (report, out) = try run("UPDATE t SET k = lower(name)", on: device, in: directory)
            #expect(report.outcome == .completed, "\(device): \(String(describing: report.failure))")
            #expect(try Connection(path: out).scalar("SELECT k FROM t WHERE id = 1").textValue == expected, "\(device)")
        }
    }

    @Test func aLocalizedIndexIsMadeOnAndroid35AndRefusedOnIOS18() throws {
        let directory = TemporaryDirectory("device-sql-localized")
        let android = try run("CREATE INDEX t_name ON t(name COLLATE LOCALIZED)", on: "android-35", in: directory)
        #expect(android.report.outcome == .completed, "\(String(describing: android.report.failure))")
        #expect(android.report.final?.schemaMatchesFreshInstall == true)
        let iPhone = try run("CREATE INDEX t_name ON t(name COLLATE LOCALIZED)", on: "ios-18", in: directory)
        #expect(iPhone.report.outcome == .failed)
        #expect(iPhone.report.failure?.message.contains("no such collation sequence: LOCALIZED") == true, "\(String(describing: iPhone.report.failure))")
    }

    /// A file an Android phone made, with an index in LOCALIZED order, is read, migrated and
    /// checked (`integrity_check` walks that index) as the phone reads it.
    @Test func aFileWithALocalizedIndexIsReadAndCheckedOnAndroid35() throws {
        let directory = TemporaryDirectory("device-sql-localized-input")
        let made = try run("CREATE INDEX t_name ON t(name COLLATE LOCALIZED)", on: "android-35", in: directory)
        #expect(made.report.outcome == .completed, "\(String(describing: made.report.failure))")
        let plan = directory.file("more.json")
        try Data("""
            {"name": "people", "steps": [
              {"version": 1, "name": "create", "sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, k TEXT)"},
              {"version": 2, "name": "second", "sql": "CREATE INDEX t_name ON t(name COLLATE LOCALIZED)"},
              {"version": 3, "name": "more", "sql": "INSERT INTO t(name) VALUES ('ärger'), ('Zoë')"}]}
            """.utf8).write(to: URL(fileURLWithPath: plan))
        let result = try PreflightProcess.run(
            ["run", "--db", made.out, "--plan", plan, "--device", "android-35", "--verify", "full"],
            environment: ["TMPDIR": directory.path])
        let report = try result.decodedReport
        #expect(report.outcome == .completed, "\(String(describing: report.failure))")
        #expect(report.final?.integrity == "ok")
        #expect(report.final?.tables?["t"] == 4)
    }

    @Test func nullsLastFailsOnAndroid30WithSQLitesMessageAndRunsOnAndroid35() throws {
        let directory = TemporaryDirectory("device-sql-nulls")
        let view = "CREATE VIEW v AS SELECT * FROM t ORDER BY name NULLS LAST"
        let old = try run(view, on: "android-30", in: directory)
        #expect(old.report.outcome == .failed)
        let failure = try #require(old.report.failure)
        #expect(failure.kind.rawValue == "sqlite_too_old")
        #expect(failure.message.contains("near \"NULLS\": syntax error") && failure.message.contains("3.30.0"), "\(failure.message)")
        let current = try run(view, on: "android-35", in: directory)
        #expect(current.report.outcome == .completed, "\(String(describing: current.report.failure))")
    }

    /// concat() is SQLite 3.44's: the device has it, Preflight defines it where its own
    /// SQLite lacks it, and a device on 3.43 fails as it would.
    @Test func concatRunsOnAndroid35AndFailsOnIOS18() throws {
        let directory = TemporaryDirectory("device-sql-concat")
        let android = try run("UPDATE t SET k = concat(name, '!')", on: "android-35", in: directory)
        #expect(android.report.outcome == .completed, "\(String(describing: android.report.failure))")
        #expect(try Connection(path: android.out).scalar("SELECT k FROM t WHERE id = 2").textValue == "bob!")
        let iPhone = try run("UPDATE t SET k = concat(name, '!')", on: "ios-18", in: directory)
        #expect(iPhone.report.failure?.kind.rawValue == "sqlite_too_old")
    }
}
