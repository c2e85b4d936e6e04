import Foundation
import Testing
import TestSupport
import MigrationCore
import Simulation

/// Launches under a watchdog with real processes and real kills.
@Suite("Watchdog, launches and crash loops", .serialized)
struct LaunchTests {
    /// A table of `rows` rows of 200 bytes and no index, at version 1 of `plan(chunked:in:)`.
    private func bigDatabase(in directory: TemporaryDirectory, rows: Int = 200_000) throws -> String {
        try ItemsFixture.database(at: directory.file("big.db"), rows: rows, payloadWidth: 200)
    }

    private func plan(chunked: Bool, in directory: TemporaryDirectory) throws -> String {
        try ItemsFixture.plan(chunked: chunked, in: directory)
    }

    private func dump(_ path: String) throws -> String {
        try TestProcess.run("/usr/bin/sqlite3", [path, ".dump"]).stdoutText
    }

    /// Runs `preflight run` with its temp files (and so its job directory) inside `directory`.
    private func run(_ arguments: [String], in directory: TemporaryDirectory, fault: String? = nil) throws -> PreflightProcess.Result {
        var environment = ["TMPDIR": directory.path]
        if let fault { environment["PREFLIGHT_TEST_FAULT"] = fault }
        let result = try PreflightProcess.run(["run"] + arguments, environment: environment)
        #expect(workersLeft(in: directory) == 0)
        return result
    }

    /// Worker processes (of `task`, or of any task) of jobs inside `directory`.
    private func workersLeft(in directory: TemporaryDirectory, task: String = ".*") -> Int {
        let found = try? TestProcess.run("/usr/bin/pgrep", ["-f", "worker \(task) --job \(directory.path)"])
        return found?.stdoutText.split(separator: "\n").count ?? 0
    }

    @Test func aChunkedRebuildConvergesOverKilledLaunchesWhereOneTransactionCrashLoops() throws {
        let directory = TemporaryDirectory("launch")
        // On the slow phone's device clock, so that every launch is cut at the same point
        // of its work on any machine under any load. Every transaction of the chunked
        // rebuild holds 500 rows (its swap recreates no index: the table has none); the
        // watchdog allows half of the one-transaction launch, of which the phone's start
        // takes a share every launch pays.
        let onSlowPhone = try SlowPhone.arguments(in: directory)
        let database = try bigDatabase(in: directory, rows: 5_000)
        let chunked = try plan(chunked: true, in: directory)
        let single = try plan(chunked: false, in: directory)

        // The change in one transaction, unlimited: its launch's device time sets the watchdog.
        let unlimited = try run(
            ["--db", database, "--plan", single, "--out", directory.file("single.db")] + onSlowPhone, in: directory)
        #expect(try unlimited.decodedReport.outcome == .completed, "\(unlimited.stderr)")
        #expect(try unlimited.decodedReport.options.clock == .device)
        let watchdog = try #require(try unlimited.decodedReport.launches.first?.deviceMs) / 2

        let reference = try run(["--db", database, "--plan", chunked, "--out", directory.file("reference.db")], in: directory)
        #expect(try reference.decodedReport.outcome == .completed, "\(reference.stderr)")

        let killed = try run([
            "--db", database, "--plan", chunked, "--watchdog-ms", String(watchdog), "--launches", "100",
            "--out", directory.file("killed.db"),
        ] + onSlowPhone, in: directory)
        let report = try killed.decodedReport
        #expect(report.options.clock == .device)
        #expect(report.outcome == .completedAfterKills, "\(killed.stderr)")
        #expect(report.launches.count > 1)
        #expect(report.launches.dropLast().allSatisfy { $0.ended == .killed })
        #expect(report.launches.last?.ended == .finished)
        // Every launch, killed ones too, opened the database before its watchdog ended it.
        #expect(report.launches.allSatisfy { $0.startMs != nil })
        #expect(report.steps.contains { $0.status == .interrupted && $0.elapsedMs != nil })
        #expect(report.steps.last?.status == .applied)
        #expect(try dump(directory.file("killed.db")) == dump(directory.file("reference.db")))

        // The same change as one transaction never gets past the watchdog.
        let looping = try run([
            "--db", database, "--plan", single, "--watchdog-ms", String(watchdog), "--launches", "5",
        ] + onSlowPhone, in: directory)
        let loopingReport = try looping.decodedReport
        #expect(loopingReport.outcome == .crashLoop, "\(looping.stderr)")
        #expect(loopingReport.launches.count == 1)
        #expect(loopingReport.final?.userVersion == 1)
        #expect(loopingReport.failure?.step == 2)
    }

    /// On this machine's wall clock a launch can stall only because the machine was busy for
    /// a moment. Here launch 1 holds at its step (a forced stall) until the watchdog kills
    /// it; launch 2 gets its full time and finishes, as the phone's next launch would: not a
    /// crash loop. When every launch holds at the same point, the second stall settles it.
    /// (The watchdog is on the wall clock by design, and far beyond a 100-row step.)
    @Test func onTheWallClockOneStalledLaunchIsNotYetACrashLoop() throws {
        let directory = TemporaryDirectory("launch")
        let database = try bigDatabase(in: directory, rows: 100)
        let single = try plan(chunked: false, in: directory)
        let wallWatchdog = ["--db", database, "--plan", single, "--watchdog-ms", "3000", "--launches", "5"]

        let recovered = try run(wallWatchdog, in: directory, fault: "launch=1,hold_at_step=2")
        let report = try recovered.decodedReport
        #expect(report.options.clock == .wall)
        #expect(report.outcome == .completedAfterKills, "\(recovered.stderr)")
        #expect(report.launches.map(\.ended) == [.killed, .finished])
        #expect(report.final?.userVersion == 2)
        #expect(recovered.stderr.contains("launch 1: no durable progress"), "\(recovered.stderr)")

        let looping = try run(wallWatchdog, in: directory, fault: "hold_at_step=2")
        let loopingReport = try looping.decodedReport
        #expect(loopingReport.outcome == .crashLoop, "\(looping.stderr)")
        #expect(loopingReport.launches.map(\.ended) == [.killed, .killed])
        #expect(loopingReport.final?.userVersion == 1)
        #expect(loopingReport.failure?.step == 2)
    }

    @Test func aKillInsideTheSwapLeavesThePreviousVersionAndTheNextLaunchFinishes() throws {
        let directory = TemporaryDirectory("launch")
        let database = try FixtureDatabase.create(at: directory.file("small.db"), sql: """
            CREATE TABLE items(id INTEGER PRIMARY KEY, payload TEXT NOT NULL, n INTEGER NOT NULL);
            \(series(5_000)) INSERT INTO items SELECT value, 'p' || value, value FROM series;
            PRAGMA user_version = 1;
            """)
        let chunked = try plan(chunked: true, in: directory)
        _ = try run(["--db", database, "--plan", chunked, "--out", directory.file("reference.db")], in: directory)
        let result = try run(
            ["--db", database, "--plan", chunked, "--out", directory.file("resumed.db")], in: directory,
            fault: "launch=1,point=inside_swap")
        let report = try result.decodedReport
        #expect(report.outcome == .completedAfterKills, "\(result.stderr)")
        #expect(report.launches.count == 2)
        #expect(report.launches.first?.ended == .killed)
        #expect(report.launches.first?.reachedVersion == 1)
        #expect(report.launches.last?.fromVersion == 1)
        #expect(try dump(directory.file("resumed.db")) == dump(directory.file("reference.db")))
    }

    /// A file at its target that still holds the purge a killed launch left (a device
    /// killed there, or an earlier rehearsal's `--out`): no step is pending, yet launch 1
    /// writes, finishing the purge, and the file ends as an uninterrupted run's. (The
    /// runner syncs such a work copy, as for any launch that writes.)
    @Test func aPurgeLeftAtTheTargetIsFinishedByTheFirstLaunch() throws {
        let directory = TemporaryDirectory("launch")
        let database = try bigDatabase(in: directory, rows: 100_000)
        let chunked = try plan(chunked: true, in: directory)
        _ = try run(["--db", database, "--plan", chunked, "--out", directory.file("reference.db")], in: directory)
        // Killed after the 200 copy batches and the purge's first.
        let killed = try run(
            ["--db", database, "--plan", chunked, "--launches", "1", "--out", directory.file("killed.db")], in: directory,
            fault: "after_batches=201")
        #expect(try killed.decodedReport.final?.userVersion == 2, "\(killed.stderr)")
        #expect(try FixtureDatabase.count("_preflight_progress", at: directory.file("killed.db")) == 1)

        let result = try run(["--db", directory.file("killed.db"), "--plan", chunked, "--out", directory.file("finished.db")], in: directory)
        let report = try result.decodedReport
        #expect(report.outcome == .completed, "\(result.stderr)")
        #expect(report.steps.isEmpty)
        #expect(report.launches.count == 1)
        #expect(try dump(directory.file("finished.db")) == dump(directory.file("reference.db")))
    }

    // MARK: - Crash loops, named by the part of the step where every launch dies

    /// `preflight run` of the chunked plan on `rows` rows, every launch killed at `fault`.
    private func killedEveryLaunch(
        rows: Int, fault: String, chunked: Bool = true, in directory: TemporaryDirectory
    ) throws -> (report: Report, stderr: String) {
        let database = try bigDatabase(in: directory, rows: rows)
        let result = try run(
            ["--db", database, "--plan", try plan(chunked: chunked, in: directory), "--launches", "10"], in: directory,
            fault: fault)
        return (try result.decodedReport, result.stderr)
    }

    /// Launch 1 commits the copy and the swap, and dies in the purge's first transaction;
    /// launch 2 finds the purge where launch 1 left it and dies in the same transaction:
    /// the file is at its target, and no launch ever gets past the purge.
    @Test func everyLaunchKilledInThePurgeIsACrashLoopAtTheTarget() throws {
        let directory = TemporaryDirectory("launch")
        let (report, stderr) = try killedEveryLaunch(rows: 5_000, fault: "point=inside_purge", in: directory)
        #expect(report.outcome == .crashLoop, "\(stderr)")
        #expect(report.launches.count == 2)
        #expect(report.launches.map(\.fromVersion) == [1, 2])
        #expect(report.final?.userVersion == 2)
        let message = report.failure?.message ?? ""
        #expect(message.contains("in the purge of the old table"), "\(message)")
        #expect(message.contains("target version 2"), "\(message)")
        #expect(report.failure?.step == 2)
        #expect(stderr.contains("launch 2: killed (SIGKILL) during step 2, in the purge of the old table"), "\(stderr)")
    }

    /// Launch 1 commits the copy and dies in the swap; launch 2 has nothing left to copy
    /// and dies in the swap again.
    @Test func everyLaunchKilledInTheSwapIsACrashLoopBeforeTheVersion() throws {
        let directory = TemporaryDirectory("launch")
        let (report, stderr) = try killedEveryLaunch(rows: 5_000, fault: "point=inside_swap", in: directory)
        #expect(report.outcome == .crashLoop, "\(stderr)")
        #expect(report.launches.count == 2)
        #expect(report.final?.userVersion == 1)
        let message = report.failure?.message ?? ""
        #expect(message.contains("in the swap"), "\(message)")
        #expect(!message.contains("target"), "\(message)")
        #expect(report.failure?.step == 2)
    }

    @Test func everyLaunchKilledInAnSQLStepIsACrashLoopInTheStepsTransaction() throws {
        let directory = TemporaryDirectory("launch")
        let (report, stderr) = try killedEveryLaunch(rows: 1_000, fault: "point=inside_step", chunked: false, in: directory)
        #expect(report.outcome == .crashLoop, "\(stderr)")
        #expect(report.launches.count == 1)
        #expect(report.final?.userVersion == 1)
        #expect(report.failure?.message.contains("in the step's transaction") == true, "\(report.failure?.message ?? "")")
    }

    /// Every launch commits three purge transactions and is killed: each moves the purge's
    /// cursor on, so the run goes on until one finishes it.
    @Test func purgeBatchesCommittedAcrossKillsEndAtTheTarget() throws {
        let directory = TemporaryDirectory("launch")
        let database = try bigDatabase(in: directory, rows: 5_000)
        let chunked = try plan(chunked: true, in: directory)
        _ = try run(["--db", database, "--plan", chunked, "--out", directory.file("reference.db")], in: directory)
        // 10 copy batches of 500, then 10 purge transactions of 500 and the one that drops
        // the emptied table: 3 in each launch.
        let result = try run(
            ["--db", database, "--plan", chunked, "--launches", "10", "--out", directory.file("killed.db")], in: directory,
            fault: "after_purge_batches=3")
        let report = try result.decodedReport
        #expect(report.outcome == .completedAfterKills, "\(result.stderr)")
        #expect(report.launches.count == 4)
        #expect(report.launches.map(\.ended) == [.killed, .killed, .killed, .finished])
        #expect(report.launches.map(\.fromVersion) == [1, 2, 2, 2])
        #expect(report.final?.userVersion == 2)
        #expect(result.stderr.contains("launch 2: killed (SIGKILL) during step 2, in the purge of the old table"), "\(result.stderr)")
        #expect(try dump(directory.file("killed.db")) == dump(directory.file("reference.db")))
    }

    /// The launches run out while each still commits purge transactions: the file is at
    /// its target, and the message says what was left rather than that it was not reached.
    @Test func launchesRunningOutInThePurgeSayTheTargetWasReached() throws {
        let directory = TemporaryDirectory("launch")
        let database = try bigDatabase(in: directory, rows: 5_000)
        let result = try run(
            ["--db", database, "--plan", try plan(chunked: true, in: directory), "--launches", "2"], in: directory,
            fault: "after_purge_batches=3")
        let report = try result.decodedReport
        #expect(report.outcome == .watchdogKilled, "\(result.stderr)")
        #expect(report.final?.userVersion == 2)
        let message = report.failure?.message ?? ""
        #expect(message.contains("reached its target version 2"), "\(message)")
        #expect(message.contains("the purge of the old table of step 2"), "\(message)")
        #expect(!message.contains("only at version"), "\(message)")
    }

    @Test func aCrashingWorkerIsAFailureWithAMessageNotAHang() throws {
        let directory = TemporaryDirectory("launch")
        let database = try NotesHistory.database(version: 1, at: directory.file("v1.db"))
        let result = try run(
            ["--db", database, "--plan", Repository.path("Config/plans/notes.json")], in: directory,
            fault: "crash_at_step=3")
        #expect(result.status == 1)
        let report = try result.decodedReport
        #expect(report.outcome == .failed)
        let failure = try #require(report.failure)
        #expect(failure.kind.rawValue == "worker_crashed")
        #expect(failure.message.contains("SIGSEGV"))
        #expect(report.final?.userVersion == 2)
    }

    @Test func workersDieWithTheirParent() throws {
        let directory = TemporaryDirectory("launch")
        let database = try bigDatabase(in: directory, rows: 100)
        let single = try plan(chunked: false, in: directory)
        // A job whose migrating worker holds at its step until its parent is gone.
        let run = try TestProcess(
            PreflightProcess.executable, ["run", "--db", database, "--plan", single],
            environment: ["TMPDIR": directory.path, "PATH": "/usr/bin:/bin"].merging(HeldJob.environment(atStep: 2)) { $1 },
            inherits: false)
        #expect(HeldJob.await(under: directory.path) != nil, "\(run.stderr)")
        #expect(workersLeft(in: directory, task: "migrate") == 1)
        run.stop(signal: SIGKILL)
        #expect(eventually { workersLeft(in: directory) == 0 }, "workers still alive after their parent was killed")
    }
}
