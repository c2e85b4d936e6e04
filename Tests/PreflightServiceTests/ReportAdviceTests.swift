import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport
@testable import PreflightService

/// The report page's advice (`ReportAdvice`) per outcome and kind of step, over the reports of
/// real runs on the slow test phone: its device clock kills at the same point of the work
/// on any machine, so each run ends as the test says. Outcomes no cheap run reaches (a
/// whole-path runner that completes after kills needs this machine's clock) are reports
/// built here.
@Suite("Report advice", .serialized)
struct ReportAdviceTests {
    private let directory = TemporaryDirectory("advice")

    /// 20,000 rows at version 1 of the plans below.
    private func database() throws -> String {
        let path = directory.file("items.db")
        if FileManager.default.fileExists(atPath: path) { return path }
        return try ItemsFixture.database(at: path, rows: 20_000, payloadWidth: 100)
    }

    /// The items plan with `change` as step 2 (and `more` after it), under `runner`.
    private func plan(_ name: String, runner: String = "per_step", _ change: String, more: String = "") throws -> String {
        let path = directory.file(name + ".json")
        try Data("""
            {"name": "items", "runner": "\(runner)", "steps": [
              {"version": 1, "name": "create", "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, payload TEXT NOT NULL, n INTEGER NOT NULL)"},
              {"version": 2, "name": "parity", \(change)}\(more)]}
            """.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private static let columns = "id INTEGER PRIMARY KEY, payload TEXT NOT NULL, n INTEGER NOT NULL, parity INTEGER NOT NULL DEFAULT 0"
    private static func rebuild(batchRows: Int) -> String {
        #""rebuild": {"table": "items", "columns": "\#(columns)", "select": "id, payload, n, n % 2", "batch_rows": \#(batchRows)}"#
    }
    private static let backfill = #""backfill": {"table": "items", "set": "n = n + 1", "batch_rows": 500}"#
    private static let oneTransaction =
        #""sql": ["CREATE TABLE items_new(\#(columns))", "INSERT INTO items_new SELECT id, payload, n, n % 2 FROM items", "DROP TABLE items", "ALTER TABLE items_new RENAME TO items"]"#
    private static let flip = #", {"version": 3, "name": "flip", "sql": "UPDATE items SET parity = 1 - parity"}"#

    /// The run's report; its page, whatever the outcome, says the clock of every time it shows
    /// (the failure's message among them).
    private func run(_ plan: String, _ options: [String] = []) throws -> Report {
        let report = try SlowPhoneRun.report(
            try database(), plan: plan, devices: try SlowPhone.devicesDirectory(in: directory), in: directory, options)
        let times = PageTimes(dom: ReportPage.html(report))
        #expect(times.unlabelled.isEmpty, "times without their clock: \(times.unlabelled)")
        #expect(times.count(on: "device") > report.launches.count)
        return report
    }

    private func kills(_ report: Report) -> Int { report.launches.filter { $0.ended == .killed }.count }

    // MARK: - Real runs

    @Test(arguments: ["rebuild", "backfill"])
    func aChunkedStepThatConvergedAfterKillsCostsCrashes(kind: String) throws {
        let change = kind == "rebuild" ? Self.rebuild(batchRows: 500) : Self.backfill
        let plan = try plan(kind, change)
        let unwatched = try run(plan)
        let watchdog = try #require(unwatched.launches.first?.deviceMs) / 3
        let report = try run(plan, ["--watchdog-ms", String(watchdog), "--launches", "20"])
        #expect(report.outcome == .completedAfterKills)
        let (launches, killed) = (report.launches.count, kills(report))
        #expect(killed >= 2)
        #expect(
            ReportAdvice(report).line
                == "Step v2 \"parity\" (\(kind), 500 rows a batch) resumed from its last batch after each kill and was done "
                + "in launch \(launches) of \(launches): users see \(killed) crashes before the app opens. Smaller batches "
                + "run after the app has opened, or an earlier start (in a release before the one that needs it), would "
                + "avoid them.")
    }

    @Test func aChunkedStepWhoseLaunchesRanOutNeedsAnEarlierStart() throws {
        let report = try run(try plan("ran-out", Self.rebuild(batchRows: 500)), ["--watchdog-ms", "1000", "--launches", "2"])
        #expect(report.outcome == .watchdogKilled)
        #expect(
            ReportAdvice(report).line
                == "Step v2 \"parity\" (rebuild, 500 rows a batch) was still unfinished after 2 launches, each killed by the "
                + "watchdog (1.0 s device) after committing batches: users see 2 crashes or more before the app opens. "
                + "Start it earlier (in a release before the one that needs it) or run its batches after the app has opened.")
    }

    @Test func aBatchLongerThanTheWatchdogIsACrashLoopThatNeedsSmallerBatches() throws {
        let report = try run(try plan("one-batch", Self.rebuild(batchRows: 1_000_000)), ["--watchdog-ms", "600"])
        #expect(report.outcome == .crashLoop)
        let launch = try #require(report.launches.last?.launch)
        #expect(
            ReportAdvice(report).line
                == "Step v2 \"parity\" (rebuild, 1000000 rows a batch) committed no batch before the watchdog (600 ms "
                + "device) killed launch \(launch), and every launch would do the same: crash loop. It needs durable "
                + "progress: make its batches smaller than 1000000 rows, so that each launch commits some.")
    }

    @Test func aOneTransactionStepLongerThanTheWatchdogIsACrashLoopThatNeedsDurableProgress() throws {
        let report = try run(try plan("single", Self.oneTransaction), ["--watchdog-ms", "600"])
        #expect(report.outcome == .crashLoop)
        #expect(
            ReportAdvice(report).line
                == "Step v2 \"parity\" (sql, one transaction) takes longer than the watchdog (600 ms device) allows, and "
                + "every launch is killed inside it and rolls it back: crash loop. It needs durable progress: make it a "
                + "chunked rebuild or backfill, or split it into steps that each fit.")
    }

    @Test func aWholePathRunnerRollsTheWholePathBack() throws {
        let report = try run(
            try plan("android", runner: "sqliteopenhelper", Self.oneTransaction, more: Self.flip), ["--watchdog-ms", "1000"])
        #expect(report.outcome == .crashLoop)
        #expect(
            ReportAdvice(report).line
                == "Runner sqliteopenhelper runs steps v2 to v3 in one transaction, which the watchdog (1.0 s device) "
                + "cuts in every launch and rolls back whole: crash loop. Splitting the steps does not help under this "
                + "runner: make the path's work fit within the watchdog, or move the data work out of the migration into "
                + "batches the app runs once it is open.")
    }

    /// Two one-transaction steps that each fit the watchdog but not together: the second is
    /// cut in launch 1 and run again, whole, in launch 2.
    @Test func aOneTransactionStepCutAndRunAgainShouldBeSplitOrChunked() throws {
        let plan = try plan("two", Self.oneTransaction, more: Self.flip)
        let unwatched = try run(plan)
        let launch = try #require(unwatched.launches.first)
        let copy = try #require(unwatched.steps.first { $0.version == 2 }?.deviceMs)
        let flip = try #require(unwatched.steps.first { $0.version == 3 }?.deviceMs)
        let start = try #require(launch.deviceMs) - copy - flip
        try #require(flip < 2 * copy, "step 3 must fit a launch of its own")
        let watchdog = start + copy + flip / 2
        let report = try run(plan, ["--watchdog-ms", String(watchdog)])
        #expect(report.outcome == .completedAfterKills)
        #expect(report.launches.map(\.ended) == [.killed, .finished])
        #expect(
            ReportAdvice(report).line
                == "Step v3 \"flip\" (sql, one transaction) was cut by the watchdog (\(ReportRendering.duration(ms: watchdog)) "
                + "device) and run again from its start, done in launch 2 of 2: users see 1 crash. Split it into smaller "
                + "steps or make it a chunked rebuild or backfill, so that each launch keeps what it did.")
    }

    @Test func aRunInOneLaunchSaysHowMuchOfTheWatchdogItUsed() throws {
        let report = try run(try plan("fits", Self.rebuild(batchRows: 500)), ["--watchdog-ms", "60000"])
        #expect(report.outcome == .completed)
        let used = try #require(report.launches.first?.deviceMs)
        #expect(
            ReportAdvice(report).line
                == "Nothing to do: it migrates in one launch, in \(ReportRendering.duration(ms: used)) device; "
                + "the watchdog allows 60.0 s device.")
    }

    // MARK: - Built reports

    /// A report of `launches` on this machine's clock (a 700 ms watchdog), steps as given.
    private static func report(_ outcome: Outcome, runner: Runner, launches: [LaunchReport.Ending], steps: [StepReport],
                               failure: Failure? = nil, target: Int = 3) -> Report {
        Report(
            jobID: "0", outcome: outcome, failure: failure,
            plan: PlanSummary(name: "app", sha256: "00", targetVersion: target, runner: runner),
            options: RunOptions(watchdogMs: 700),
            input: InputSummary(
                bytes: 4096, sha256: "00", userVersion: 1, applicationID: nil, journalMode: "delete", pageSize: 4096,
                sqliteHeaderValid: true, tables: [:]),
            launches: launches.enumerated().map { index, ended in
                LaunchReport(launch: index + 1, fromVersion: 1, reachedVersion: 1, ended: ended, elapsedMs: 700, startMs: 20)
            },
            steps: steps, space: SpaceReport(), final: nil, warnings: [], timings: Timings(totalMs: 2000, uploadMs: nil))
    }

    private static func step(_ version: Int, _ name: String, _ status: StepReport.Status, launch: Int) -> StepReport {
        var step = StepReport(version: version, name: name, kind: .sql, status: status)
        step.launch = launch
        step.elapsedMs = 300
        return step
    }

    @Test func aWholePathRunnerThatCompletedAfterAKillStillNeedsThePathToFit() {
        let report = Self.report(
            .completedAfterKills, runner: .room, launches: [.killed, .finished],
            steps: [Self.step(2, "a", .interrupted, launch: 1), Self.step(3, "b", .interrupted, launch: 1),
                    Self.step(2, "a", .applied, launch: 2), Self.step(3, "b", .applied, launch: 2)])
        #expect(
            ReportAdvice(report).line
                == "Runner room runs steps v2 to v3 in one transaction, which the watchdog (700 ms here) cut and rolled back "
                + "whole before it was done in launch 2 of 2: users see 1 crash. Make the path's work fit within the "
                + "watchdog, or move the data work out of the migration into batches the app runs once it is open.")
    }

    @Test func oneTransactionStepsWhoseLaunchesRanOutShouldBeSplit() {
        let report = Self.report(
            .watchdogKilled, runner: .grdb, launches: [.killed, .killed],
            steps: [Self.step(2, "a", .applied, launch: 1), Self.step(3, "b", .interrupted, launch: 1),
                    Self.step(3, "b", .applied, launch: 2), Self.step(4, "c", .interrupted, launch: 2)], target: 4)
        #expect(
            ReportAdvice(report).line
                == "Each of the 2 launches finished steps before the watchdog (700 ms here) cut the next, and they ran out "
                + "at step v4 \"c\" (sql, one transaction): users see 2 crashes or more. Split the long steps or make them "
                + "chunked rebuilds or backfills.")
    }

    @Test func aDriftStepThatFailsOnWhatItsKilledLaunchLeftMustBeSafeToRunTwice() {
        let report = Self.report(
            .crashLoop, runner: .drift, launches: [.killed, .failed],
            steps: [Self.step(2, "archive", .interrupted, launch: 1), Self.step(2, "archive", .failed, launch: 2)],
            failure: Failure(kind: .sqlError, step: 2, message: "table archive already exists"))
        #expect(
            ReportAdvice(report).line
                == "Step v2 \"archive\" (sql, its statements committing one by one under runner drift) was killed in "
                + "launch 1 with some of its statements committed, and the next launch fails on them: crash loop. Make "
                + "each of its statements safe to run twice (IF NOT EXISTS, INSERT OR IGNORE), or make it a chunked "
                + "rebuild or backfill.")
    }

    @Test func theOutcomesThatStopOnAStepNameIt() {
        let failed = Self.report(
            .failed, runner: .perStep, launches: [.failed], steps: [Self.step(2, "a", .failed, launch: 1)],
            failure: Failure(kind: .sqlError, step: 2, message: "NOT NULL constraint failed: notes.title"))
        #expect(ReportAdvice(failed).line == "Fix step v2 \"a\": NOT NULL constraint failed: notes.title.")
        var full = Self.report(
            .diskFull, runner: .perStep, launches: [.failed], steps: [Self.step(2, "a", .failed, launch: 1)],
            failure: Failure(kind: .diskFull, step: 2, message: "database or disk is full"))
        full.space.freeBytes = 1 << 20
        #expect(
            ReportAdvice(full).line
                == "Needs more than 1.0 MiB free: step v2 \"a\" filled the disk. Free space first, or make it need less.")
        let verification = Self.report(
            .verificationFailed, runner: .perStep, launches: [.finished], steps: [],
            failure: Failure(kind: .verification, message: "rows lost: notes 3"))
        #expect(ReportAdvice(verification).line == "Fix what verification found: rows lost: notes 3.")
        let invalid = Self.report(.invalidDatabase, runner: .perStep, launches: [], steps: [])
        #expect(ReportAdvice(invalid).line == "Upload an SQLite database file (with its -wal if it has one).")
    }
}
