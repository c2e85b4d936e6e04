import Foundation
import Testing
import TestSupport
import MigrationCore
@testable import PreflightService
import Simulation

/// `kill_sweep` and `disk_full_sweep` through `preflight run`: real workers, each replay's
/// first launch killed by a real SIGKILL raised in the shim VFS (or its write failed with
/// SQLITE_FULL), the next launches run as usual, and the end compared with the run's.
@Suite("kill sweep")
struct KillSweepTests {
    let notesPlan = Repository.path("Config/plans/notes.json")

    @Test func theNotesPlanSurvivesEveryKillPoint() throws {
        let directory = TemporaryDirectory("sweep")
        let path = try NotesHistory.database(version: 3, rows: 200, at: directory.file("v3.db"))
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", notesPlan, "--kill-sweep", "all"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.decodedReport
        #expect(report.outcome == .completed)
        #expect(report.options.killSweep == .all)
        #expect(report.diskFullSweep == nil)
        let sweep = try #require(report.killSweep)
        // Steps 4 to 6 each commit at least once, and each commit syncs its journal and file.
        #expect(sweep.points >= 6)
        #expect(sweep.survived == sweep.points, "\(sweep.failures)")
        #expect(sweep.failures.isEmpty)
        // The JSON shape of docs/CONTRACT.md §3, exactly.
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let field = try #require(json["kill_sweep"] as? [String: Any])
        #expect(Set(field.keys) == ["points", "survived", "failures"])
        #expect(json["disk_full_sweep"] is NSNull)
        #expect((json["options"] as? [String: Any])?["kill_sweep"] as? String == "all")
        #expect(ReportRendering.text(report).contains("survives \(sweep.points)/\(sweep.points) kill points\n"))
    }

    /// Drift commits each statement on its own: killed after the copy committed and before
    /// `user_version`, the next launch copies again. The same plan step by step survives.
    @Test func aDriftRunnerThatCopiesRowsIsCaught() throws {
        let directory = TemporaryDirectory("sweep")
        let path = try FixtureDatabase.create(
            at: directory.file("log.db"),
            sql: """
                CREATE TABLE log(id INTEGER PRIMARY KEY, message TEXT);
                INSERT INTO log(message) VALUES ('a'), ('b'), ('c'), ('d'), ('e');
                PRAGMA user_version = 1;
                """)
        func plan(runner: String) throws -> String {
            let planPath = directory.file("\(runner).json")
            try Data(
                """
                {"name": "log-copy", "runner": "\(runner)", "steps": [
                  {"version": 1, "name": "create log", "sql": ["CREATE TABLE log(id INTEGER PRIMARY KEY, message TEXT)"]},
                  {"version": 2, "name": "copy log", "sql": [
                    "INSERT INTO log(message) SELECT message || ' (copy)' FROM log",
                    "CREATE TABLE archive(id INTEGER PRIMARY KEY, note TEXT)"]}
                ]}
                """.utf8
            ).write(to: URL(fileURLWithPath: planPath))
            return planPath
        }

        let drift = try PreflightProcess.run(["run", "--db", path, "--plan", try plan(runner: "drift"), "--kill-sweep", "all"])
        let report = try drift.decodedReport
        // The uninterrupted run is fine: only the sweep shows the problem (and the status).
        #expect(report.outcome == .completed, "\(drift.stderr)")
        #expect(drift.status == 1)
        let sweep = try #require(report.killSweep)
        #expect(sweep.survived < sweep.points)
        #expect(sweep.failures.count == sweep.points - sweep.survived)
        let doubled = try #require(sweep.failures.first { $0.message.contains("table log has 20 rows, the uninterrupted run 10") })
        #expect(doubled.step == 2)
        #expect(["journal", "wal", "main"].contains(doubled.phase))
        #expect(sweep.failures.contains { $0.message.contains("table archive already exists") })
        #expect(ReportRendering.text(report).contains("survives \(sweep.survived)/\(sweep.points) kill points; first failure at point \(sweep.failures[0].point) (step 2, "))
        #expect(ReportPage.html(report).contains("<h2>Kill sweep</h2><p id=\"kill-sweep\">survives \(sweep.survived)/\(sweep.points) kill points; "))
        let junit = ReportRendering.junit(report)
        #expect(junit.contains("failures=\"1\""))
        #expect(junit.contains("<testcase classname=\"preflight.log-copy\" name=\"kill sweep\" time=\"0.000\"><failure type=\"sweep\""))

        let perStep = try PreflightProcess.run(["run", "--db", path, "--plan", try plan(runner: "per_step"), "--kill-sweep", "all"])
        let steady = try #require(try perStep.decodedReport.killSweep)
        #expect(steady.points > 0)
        #expect(steady.survived == steady.points, "\(steady.failures)")
    }

    /// Every point of a full disk ends with the file intact at a version of the plan, and a
    /// rerun with space ends where the uninterrupted run did.
    @Test func theNotesPlanSurvivesADiskFullSweep() throws {
        let directory = TemporaryDirectory("sweep")
        let path = try NotesHistory.database(version: 3, rows: 200, at: directory.file("v3.db"))
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", notesPlan, "--disk-full-sweep", "8"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.decodedReport
        #expect(report.killSweep == nil)
        let sweep = try #require(report.diskFullSweep)
        #expect(sweep.points == 8)
        #expect(sweep.survived == 8, "\(sweep.failures)")
        #expect(ReportRendering.text(report).contains("survives 8/8 disk-full points"))
    }

    /// `max_job_seconds` bounds the sweep: the job ends `time_limit` in phase `sweep`, with
    /// the run's own results and the points replayed until then. Every worker holds at step
    /// 4 (`HeldJob`): the test releases the run's own launch, and the replays, in the
    /// sweep's directory, are never released, so the sweep is certain to be where the
    /// job's time runs out.
    @Test func theJobsDeadlineBoundsTheSweep() throws {
        let directory = TemporaryDirectory("sweep")
        let path = try NotesHistory.database(version: 3, rows: 200, at: directory.file("v3.db"))
        let jobs = directory.file("jobs")
        try FileManager.default.createDirectory(atPath: jobs, withIntermediateDirectories: true)
        let run = try TestProcess.preflight(
            ["run", "--db", path, "--plan", notesPlan, "--kill-sweep", "all", "--disk-full-sweep", "all"],
            environment: ["PREFLIGHT_MAX_JOB_SECONDS": "10", "TMPDIR": jobs].merging(HeldJob.environment(atStep: 4)) { $1 })
        try #require(HeldJob.await(under: jobs), "the run's launch never held: \(run.stderr)").release()
        let result = try run.wait()
        let report = try result.decodedReport
        #expect(report.outcome == .failed, "\(result.stderr)")
        #expect(report.failure?.kind.rawValue == "time_limit")
        #expect(report.failure?.phase == "sweep")
        #expect(report.final?.userVersion == 6)
        // The first replay held, so no point was replayed to its end; both sweeps are
        // reported, as far as they got.
        #expect(report.killSweep == SweepReport())
        #expect(report.diskFullSweep == SweepReport())
        #expect(!FileManager.default.fileExists(atPath: directory.file("v3.db-journal")))
        #expect(WorkerProcesses.under(jobs).isEmpty, "workers left: \(WorkerProcesses.under(jobs))")
    }

    /// The same option over HTTP: in the query, and as a number in the options part.
    @Test func theServiceSweepsWhenAsked() throws {
        let server = try ServerProcess()
        let directory = TemporaryDirectory("sweep")
        let database = try Fixtures.notesDatabase(rows: 50, in: directory.path)
        let query = server.curl("/v1/migrations?plan=notes&kill_sweep=all", ["-F", "database=@\(database)"])
        #expect(query.status == 200, "\(query.text)")
        let swept = try #require(try query.report.killSweep)
        #expect(swept.points > 0)
        #expect(swept.survived == swept.points, "\(swept.failures)")
        let part = server.curl("/v1/migrations?plan=notes", ["-F", "database=@\(database)", "-F", #"options={"kill_sweep": 2}"#])
        let report = try part.report
        #expect(report.options.killSweep == .count(2))
        #expect(report.killSweep == SweepReport(points: 2, survived: 2))
        let wrong = server.curl("/v1/migrations?plan=notes&kill_sweep=-1", ["-F", "database=@\(database)"])
        #expect(wrong.status == 400)
        #expect(wrong.text.contains("kill_sweep must be"))
    }

    @Test func anOptionValueThatIsNoSweepIsAnError() throws {
        let directory = TemporaryDirectory("sweep")
        let path = try NotesHistory.database(version: 5, at: directory.file("v5.db"))
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", notesPlan, "--kill-sweep", "often"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--kill-sweep must be \"off\", \"all\" or a number of points"))
    }

    @Test func pointsAreSpreadEvenlyOverTheRun() {
        #expect(SweepSelection.count(5).points(outOf: 9) == [1, 3, 5, 7, 9])
        #expect(SweepSelection.count(3).points(outOf: 100) == [1, 50, 100])
        #expect(SweepSelection.count(1).points(outOf: 7) == [4])
        #expect(SweepSelection.count(10).points(outOf: 4) == [1, 2, 3, 4])
        #expect(SweepSelection.all.points(outOf: 3) == [1, 2, 3])
        #expect(SweepSelection.off.points(outOf: 3).isEmpty)
        #expect(SweepSelection.all.points(outOf: 0).isEmpty)
        #expect(SweepSelection("0") == nil)
        #expect(SweepSelection("ALL") == .all)
    }
}
