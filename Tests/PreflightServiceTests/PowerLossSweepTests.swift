import Foundation
import Testing
import TestSupport
import MigrationCore
@testable import PreflightService
import Simulation

/// `power_loss_sweep` through `preflight run` and the service: the run replayed with the
/// shim VFS recording, each crash state built as real files, opened by real workers (the
/// device's SQLite recovering the hot journal or the WAL) and compared with the
/// uninterrupted run. The known answers of issue 33, each on a fresh install (an empty file:
/// the profile's journal mode applies to it) of a three-step plan, at a bounded number of
/// states.
@Suite("power-loss sweep")
struct PowerLossSweepTests {
    /// Steps that each commit: rows made, a column added and filled, an index.
    private static let plan = """
        {"name": "items", "runner": "RUNNER", "steps": [
          {"version": 1, "name": "items", "sql": [
            "CREATE TABLE items(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)",
            "INSERT INTO items(name) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300) SELECT 'item ' || x || ' ' || substr('abcdefghijklmnopqrstuvwxyz', 1 + x % 26) FROM c"]},
          {"version": 2, "name": "tags", "sql": [
            "ALTER TABLE items ADD COLUMN tag TEXT",
            "UPDATE items SET tag = 'tag ' || (id % 7)"]},
          {"version": 3, "name": "tag index", "sql": "CREATE INDEX items_tag ON items(tag)"}
        ]}
        """

    /// Runs the plan on an empty file on a device with this connection and storage.
    private func sweep(
        connection: String, durability: String = #"{"fsync": "durable", "powersafe_overwrite": true}"#,
        runner: String = "per_step", states: String = "40"
    ) throws -> (report: Report, result: PreflightProcess.Result) {
        let directory = TemporaryDirectory("power-loss")
        let devices = directory.file("devices")
        try FileManager.default.createDirectory(atPath: devices, withIntermediateDirectories: true)
        try Data(#"{"name": "phone", "launches": 5, "connection": \#(connection), "durability": \#(durability)}"#.utf8)
            .write(to: URL(fileURLWithPath: devices + "/phone.json"))
        let plan = directory.file("items.json")
        try Data(Self.plan.replacingOccurrences(of: "RUNNER", with: runner).utf8).write(to: URL(fileURLWithPath: plan))
        let database = directory.file("empty.db")
        FileManager.default.createFile(atPath: database, contents: Data())
        let result = try PreflightProcess.run(
            ["run", "--db", database, "--plan", plan, "--devices-dir", devices, "--device", "phone", "--power-loss-sweep", states])
        return (try result.decodedReport, result)
    }

    @Test func synchronousOffLosesACommittedStep() throws {
        let (report, result) = try sweep(connection: #"{"journal_mode": "DELETE", "synchronous": "OFF"}"#)
        #expect(report.outcome == .completed, "\(result.stderr)")
        #expect(result.status == 1)
        let sweep = try #require(report.powerLossSweep)
        // Nothing is ever synced: the crash points are the commits, and everything since
        // the start is at risk at each.
        #expect(sweep.points == 3)
        #expect(sweep.failures.contains { $0.kind == .versionRolledBack && $0.phase == "commit" }, "\(sweep.failures)")
        #expect(sweep.survived < sweep.states)
    }

    @Test func walWithSynchronousNormalTakesACommittedStepBackButNeverCorrupts() throws {
        let (report, _) = try sweep(connection: #"{"journal_mode": "WAL", "synchronous": "NORMAL"}"#)
        let sweep = try #require(report.powerLossSweep)
        #expect(sweep.states >= 20)
        #expect(!sweep.failures.isEmpty)
        #expect(sweep.failures.allSatisfy { $0.kind == .versionRolledBack }, "\(sweep.failures)")
        #expect(sweep.failures.contains { $0.phase == "commit" })
    }

    @Test func aRollbackJournalWithSynchronousFullSurvivesEveryState() throws {
        // TRUNCATE, as Android's framework sets it: the commit is the journal's truncation, synced.
        let (report, result) = try sweep(connection: #"{"journal_mode": "TRUNCATE", "synchronous": "FULL"}"#, states: "all")
        #expect(result.status == 0, "\(result.stderr)")
        let sweep = try #require(report.powerLossSweep)
        #expect(sweep.points >= 6)
        #expect(sweep.states > sweep.points)
        #expect(sweep.survived == sweep.states, "\(sweep.failures)")
        #expect(ReportRendering.text(report).contains("survives \(sweep.states)/\(sweep.states) power-loss states (at \(sweep.points) points)\n"))
        // The JSON shape of docs/CONTRACT.md §3.
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let field = try #require(json["power_loss_sweep"] as? [String: Any])
        #expect(Set(field.keys) == ["points", "states", "survived", "failures"])
        #expect((json["options"] as? [String: Any])?["power_loss_sweep"] as? String == "all")
    }

    /// In DELETE mode the commit is the journal's unlink, and only `synchronous=EXTRA` syncs
    /// the directory after it: under FULL a power cut can bring the journal back, and the next
    /// open rolls the committed step back (SQLite's documentation of EXTRA says as much).
    @Test func aDeletedJournalThatComesBackTakesTheStepBackUnlessExtra() throws {
        let report = try sweep(connection: #"{"journal_mode": "DELETE", "synchronous": "FULL"}"#).report
        let full = try #require(report.powerLossSweep)
        #expect(!full.failures.isEmpty)
        #expect(full.failures.allSatisfy { $0.kind == .versionRolledBack }, "\(full.failures)")
        #expect(ReportPage.html(report).contains("<h2>Power-loss sweep</h2><p id=\"power-loss-sweep\">survives \(full.survived)/\(full.states) power-loss states"))
        let junit = ReportRendering.junit(report)
        #expect(junit.contains("name=\"power-loss sweep\" time=\"0.000\"><failure type=\"sweep\""))
        #expect(junit.contains("\(full.failures[0].point):\(full.failures[0].state) version_rolled_back: "))
        let extra = try #require(try sweep(connection: #"{"journal_mode": "DELETE", "synchronous": "EXTRA"}"#).report.powerLossSweep)
        #expect(extra.survived == extra.states, "\(extra.failures)")
    }

    /// Drift commits each statement on its own and writes `user_version` once, at the end:
    /// a cut that takes that last commit back leaves the steps applied at version 0, and the
    /// relaunch fails running them again.
    @Test func aDriftAutocommitPathLosesHalfAStep() throws {
        let (report, _) = try sweep(connection: #"{"journal_mode": "WAL", "synchronous": "NORMAL"}"#, runner: "drift")
        let sweep = try #require(report.powerLossSweep)
        #expect(sweep.failures.contains { $0.kind == .relaunchFailed && $0.message.contains("table items already exists") }, "\(sweep.failures)")
        let perStep = try #require(try self.sweep(connection: #"{"journal_mode": "WAL", "synchronous": "NORMAL"}"#).report.powerLossSweep)
        #expect(!perStep.failures.contains { $0.kind == .relaunchFailed }, "\(perStep.failures)")
    }

    /// Storage without powersafe overwrite tears writes; SQLite's journal and WAL checksums
    /// are made for that, and a failure replays alone from its point and state.
    @Test func aFailureReplaysAloneFromItsPointAndState() throws {
        let torn = try sweep(
            connection: #"{"journal_mode": "DELETE", "synchronous": "FULL"}"#,
            durability: #"{"fsync": "durable", "powersafe_overwrite": false}"#, states: "all")
        let sweep = try #require(torn.report.powerLossSweep)
        #expect(sweep.failures.allSatisfy { $0.kind == .versionRolledBack }, "\(sweep.failures)")
        let first = try #require(sweep.failures.first)
        let replay = try self.sweep(
            connection: #"{"journal_mode": "DELETE", "synchronous": "FULL"}"#,
            durability: #"{"fsync": "durable", "powersafe_overwrite": false}"#, states: "\(first.point):\(first.state)")
        let alone = try #require(replay.report.powerLossSweep)
        #expect(alone.states == 1)
        #expect(alone.failures == [first])
        #expect(replay.report.options.powerLossSweep == .replay(point: first.point, state: first.state))
    }

    /// The iOS storage model: a plain fsync leaves the journal in the drive's cache, so a
    /// rollback journal can lose it while the database's own writes reach the medium.
    @Test func aDriveCacheWithoutFullfsyncCanDamageARollbackJournal() throws {
        let cache = #"{"fsync": "drive_cache", "fullfsync": false, "powersafe_overwrite": true}"#
        let connection = #"{"journal_mode": "TRUNCATE", "synchronous": "FULL"}"#
        let exposed = try #require(try sweep(connection: connection, durability: cache, states: "all").report.powerLossSweep)
        #expect(exposed.failures.contains { $0.kind != .versionRolledBack }, "\(exposed.failures)")
        let flushed = #"{"fsync": "drive_cache", "fullfsync": true, "powersafe_overwrite": true}"#
        let safe = try #require(try sweep(connection: connection, durability: flushed, states: "all").report.powerLossSweep)
        #expect(safe.survived == safe.states, "\(safe.failures)")
    }

    @Test func aValueThatNamesNoStateIsAnError() throws {
        let directory = TemporaryDirectory("power-loss")
        let path = try NotesHistory.database(version: 5, at: directory.file("v5.db"))
        let notes = Repository.path("Config/plans/notes.json")
        for value in ["often", "3:nothing", "0:all-lost"] {
            let result = try PreflightProcess.run(["run", "--db", path, "--plan", notes, "--power-loss-sweep", value])
            #expect(result.status == 2)
            #expect(result.stderr.contains("--power-loss-sweep must be \"off\", \"all\", a number of states"))
        }
        // A well-formed state the run does not have: known only once the run is recorded.
        let absent = try PreflightProcess.run(["run", "--db", path, "--plan", notes, "--power-loss-sweep", "999:all-lost"])
        #expect(absent.status == 1)
        #expect(try absent.decodedReport.failure?.message.contains("power_loss_sweep 999:all-lost names no state of this run") == true)
        #expect(PowerLossSelection("12:lost-journal") == .replay(point: 12, state: "lost-journal"))
        #expect(PowerLossSelection("all") == .states(.all))
        #expect(PowerLossSelection("torn512-3:x") == nil)
    }

    /// Over HTTP: the option in the query; past `max_job_seconds` the job ends `time_limit`
    /// in phase `sweep`, keeping the states opened until then.
    @Test func theServiceSweepsWithinItsDeadline() throws {
        let directory = TemporaryDirectory("power-loss")
        let database = try Fixtures.notesDatabase(rows: 50, in: directory.path)
        let server = try ServerProcess()
        let asked = server.curl("/v1/migrations?plan=notes&power_loss_sweep=3", ["-F", "database=@\(database)"])
        #expect(asked.status == 200, "\(asked.text)")
        let report = try asked.report
        #expect(report.options.powerLossSweep == .states(.count(3)))
        let sweep = try #require(report.powerLossSweep)
        #expect((1...3).contains(sweep.states))
        let wrong = server.curl("/v1/migrations?plan=notes&power_loss_sweep=sometimes", ["-F", "database=@\(database)"])
        #expect(wrong.status == 400)
        #expect(wrong.text.contains("power_loss_sweep must be"))

        // The sweep outlasts the job's limit because its replays hold (`HeldJob`): the run's
        // own worker is released, and the replays, in the sweep's directory, never are.
        let hurried = try ServerProcess(
            environment: ["PREFLIGHT_MAX_JOB_SECONDS": "10"].merging(HeldJob.environment(atStep: 2)) { $1 })
        let upload = try TestProcess(
            "/usr/bin/curl",
            ["-s", "--max-time", "120", "-F", "database=@\(database)", hurried.base + "/v1/migrations?plan=notes&power_loss_sweep=all"])
        try #require(HeldJob.await(under: hurried.jobDir)).release()
        let cut = try upload.wait().decodedReport
        #expect(cut.outcome == .failed)
        #expect(cut.failure?.kind.rawValue == "time_limit")
        #expect(cut.failure?.phase == "sweep")
        #expect(cut.final?.userVersion == report.final?.userVersion)
        let kept = try #require(cut.powerLossSweep)
        #expect(kept.survived + kept.failures.count == kept.states)
    }
}
