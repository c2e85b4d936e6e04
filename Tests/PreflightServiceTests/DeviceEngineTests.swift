import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

/// A profile's workers run on its engine (scripts/build-engines): SQLite at the version nearest
/// the device's, built with its platform's options, so that a migration that uses what the
/// device's build lacks fails with SQLite's own message, and a new file gets the platform's
/// defaults. Through the real `preflight run`.
@Suite("Device engines through preflight run", .serialized)
struct DeviceEngineTests {
    private static let androidProfiles = ["android-28", "android-30", "android-33", "android-34", "android-35"]

    /// A v1 table of numbers and a plan whose step 2 is `sql`.
    private func run(
        step sql: String, on device: String, in directory: TemporaryDirectory, out: String? = nil, fresh: Bool = false
    ) throws -> (status: Int32, report: Report) {
        let database = directory.file("t-\(device).db")
        if fresh {
            _ = FileManager.default.createFile(atPath: database, contents: Data())
        } else {
            _ = try FixtureDatabase.create(at: database, sql: """
                CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER NOT NULL, r REAL);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
                INSERT INTO t(x) SELECT i - 20 FROM n;
                PRAGMA user_version = 1;
                """)
        }
        let plan = directory.file("plan-\(device).json")
        let document: [String: Any] = [
            "name": "numbers",
            "steps": [
                ["version": 1, "name": "create t", "sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER NOT NULL, r REAL)"],
                ["version": 2, "name": "step", "sql": sql, "row_loss": "allowed"],
            ],
        ]
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: plan))
        let result = try PreflightProcess.run(
            ["run", "--db", database, "--plan", plan, "--device", device] + (out.map { ["--out", $0] } ?? []),
            environment: ["TMPDIR": directory.path])
        return (result.status, try result.decodedReport)
    }

    @Test func sqrtFailsOnAndroid35WithSQLitesOwnMessageAndRunsWhereTheBuildHasMathFunctions() throws {
        let directory = TemporaryDirectory("engine-math")
        let android = try run(step: "UPDATE t SET r = sqrt(x) WHERE x >= 0", on: "android-35", in: directory)
        #expect(android.status == 1)
        #expect(android.report.outcome == .failed)
        let failure = try #require(android.report.failure)
        #expect(failure.kind == .sqlError)
        #expect(failure.message.contains("no such function: sqrt"), "\(failure.message)")
        #expect(android.report.sqlite == SQLiteReport(device: "3.44", engine: "3.44.0", options: .android))

        for device in ["ios-18", "default"] {
            let other = try run(step: "UPDATE t SET r = sqrt(x) WHERE x >= 0", on: device, in: directory)
            #expect(other.report.outcome == .completed, "\(device): \(String(describing: other.report.failure))")
        }
    }

    @Test func deleteWithLimitFailsOnEveryAndroidProfileAndRunsOnIOS() throws {
        let directory = TemporaryDirectory("engine-limit")
        let sql = "DELETE FROM t WHERE x > 0 LIMIT 10"
        for device in Self.androidProfiles {
            let android = try run(step: sql, on: device, in: directory)
            #expect(android.status == 1, "\(device)")
            let message = android.report.failure?.message ?? ""
            #expect(message.contains("LIMIT") && message.contains("syntax error"), "\(device): \(message)")
            #expect(android.report.sqlite?.options == .android, "\(device)")
        }
        for device in ["ios-17", "ios-18"] {
            let iPhone = try run(step: sql, on: device, in: directory)
            #expect(iPhone.report.outcome == .completed, "\(device): \(String(describing: iPhone.report.failure))")
            #expect(iPhone.report.final?.tables?["t"] == 30, "\(device)")
            #expect(iPhone.report.sqlite?.options == .ios, "\(device)")
        }
    }

    @Test func aNewFileOnAndroidIsFullAutoVacuumAsAndroidsBuildMakesIt() throws {
        let directory = TemporaryDirectory("engine-autovacuum")
        for (device, expected) in [("android-35", 1), ("android-33", 1), ("default", 0)] {
            let out = directory.file("out-\(device).db")
            let result = try run(step: "CREATE INDEX t_x ON t(x)", on: device, in: directory, out: out, fresh: true)
            #expect(result.report.outcome == .completed, "\(device): \(String(describing: result.report.failure))")
            let connection = try Connection(path: out, readOnly: true)
            #expect(try connection.integer("PRAGMA auto_vacuum") == expected, "\(device)")
        }
    }

    /// Without engines (an installation that has none) the device runs on this machine's
    /// SQLite, and the report says so rather than naming the device's build.
    @Test func withoutItsEngineADeviceRunsOnTheHostAndTheReportSaysSo() throws {
        let directory = TemporaryDirectory("engine-missing")
        let empty = directory.file("no-engines")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let result = try PreflightProcess.run(
            ["run", "--db", try FixtureDatabase.create(at: directory.file("t.db"), sql: "CREATE TABLE t(x); PRAGMA user_version = 1;"),
             "--plan", try write(#"{"name": "t", "steps": [{"version": 1, "name": "t", "sql": "CREATE TABLE t(x)"}, {"version": 2, "name": "root", "sql": "UPDATE t SET x = sqrt(4)"}]}"#, in: directory),
             "--device", "android-35"],
            environment: ["TMPDIR": directory.path, "PREFLIGHT_ENGINES_DIR": empty])
        let report = try result.decodedReport
        #expect(report.outcome == .completed, "\(String(describing: report.failure))")
        #expect(report.sqlite == SQLiteReport(device: "3.44", engine: SQLiteEngine.host.version.description, options: .host))
    }

    private func write(_ plan: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("plan.json")
        try Data(plan.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Each profile names the engine it ran on beside its own version: the nearest engine at
    /// or above the device's version, built with its platform's options.
    @Test func theReportNamesEachProfilesEngine() throws {
        let directory = TemporaryDirectory("engine-report")
        let expected: [String: SQLiteReport] = [
            "android-28": SQLiteReport(device: "3.22", engine: "3.34.1", options: .android),
            "android-33": SQLiteReport(device: "3.32", engine: "3.34.1", options: .android),
            "android-34": SQLiteReport(device: "3.39", engine: "3.40.1", options: .android),
            "ios-15": SQLiteReport(device: "3.36", engine: "3.40.1", options: .ios),
            "ios-18": SQLiteReport(device: "3.43.2", engine: "3.46.1", options: .ios),
            "default": SQLiteReport(device: nil, engine: SQLiteEngine.host.version.description, options: .host),
        ]
        for (device, sqlite) in expected.sorted(by: { $0.key < $1.key }) {
            let result = try run(step: "UPDATE t SET r = x * 2", on: device, in: directory)
            #expect(result.report.outcome == .completed, "\(device): \(String(describing: result.report.failure))")
            #expect(result.report.sqlite == sqlite, "\(device)")
        }
    }
}
