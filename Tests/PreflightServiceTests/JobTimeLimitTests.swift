import Foundation
import MigrationCore
import PreflightService
import Simulation
import Testing
import TestSupport

/// `max_job_seconds`: every worker of a job runs against the job's own deadline, and a
/// job past it ends `failed` with kind `time_limit`, naming the phase that ran out.
@Suite struct JobTimeLimitTests {
    /// The job's limit, in seconds, for the tests whose answer names the phase that ran
    /// out. A time limit is wall time by nature, so each of them stops its job where
    /// nothing but the limit can end it (a launch held at step 2 and never released, or an
    /// endless statement): the limit is then certain to be what ends the job. It only has
    /// to outlast the small file's way to that point, with room to spare on a loaded machine.
    static let limitSeconds = "10"

    /// A statement that never ends: counting an unbounded recursive CTE.
    static let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"

    /// The same count, endless only where `t` is empty: instant on the uploaded file, whose
    /// `t` has rows, but endless in the verifier's fresh-install replay.
    static let endlessWhenEmpty =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE NOT EXISTS (SELECT 1 FROM t)) SELECT count(*) FROM c"

    /// An ordinary second step, at whose start a held launch stops for good.
    static let heldStep = "CREATE TABLE u(y)"

    /// Runs the plan whose second step is `sql` with a limit of `limitSeconds`:
    /// `PREFLIGHT_MAX_JOB_SECONDS` unless `limit` gives the command line's own flags for
    /// it. `holding` holds the launch at step 2 (`HeldJob`), and nothing releases it.
    private func run(
        secondStep sql: String, in directory: TemporaryDirectory, limit: [String]? = nil, holding: Bool = false
    ) throws -> PreflightProcess.Result {
        let planPath = directory.file("plan.json")
        let plan: [String: Any] = [
            "name": "slow",
            "steps": [
                ["version": 1, "name": "create", "sql": "CREATE TABLE t(x)"],
                ["version": 2, "name": "never ends", "sql": sql],
            ],
        ]
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: planPath))
        let database = try FixtureDatabase.create(
            at: directory.file("a.db"), sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1); PRAGMA user_version = 1;")
        let limitVariable = limit == nil ? ["PREFLIGHT_MAX_JOB_SECONDS": Self.limitSeconds] : [:]
        // No watchdog: only the job's own deadline can stop the step.
        return try PreflightProcess.run(
            ["run", "--db", database, "--plan", planPath, "--watchdog-ms", "off", "--launches", "1"] + (limit ?? []),
            environment: limitVariable.merging(holding ? HeldJob.environment(atStep: 2) : [:]) { $1 })
    }

    /// Issue 34's third attack: `preflight run` of a step that never ends, with no
    /// watchdog. With `--max-seconds` it ends `failed` / `time_limit` in the launch, exit
    /// 1, and no worker of its job is left running.
    @Test func theCommandLinesMaxSecondsEndsALaunchThatNeverEnds() throws {
        let directory = TemporaryDirectory("time-limit")
        let result = try run(
            secondStep: Self.heldStep, in: directory, limit: ["--max-seconds", Self.limitSeconds], holding: true)
        #expect(result.status == 1, "\(result.stderr)")
        let report = try result.decodedReport
        #expect(report.outcome == .failed, "\(result.stderr)")
        #expect(report.failure?.kind.rawValue == "time_limit")
        #expect(report.failure?.phase == "launch")
        #expect(report.launches.first?.ended == .killed)
        #expect(workers(ofJob: report.jobID).isEmpty, "workers left: \(workers(ofJob: report.jobID))")
    }

    @Test func maxSecondsIsCheckedAndDocumented() throws {
        let directory = TemporaryDirectory("time-limit")
        let result = try run(secondStep: Self.heldStep, in: directory, limit: ["--max-seconds", "0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--max-seconds must be a whole number from 1"), "\(result.stderr)")
        let help = try PreflightProcess.run(["run", "--help"])
        let usage = String(decoding: help.stdout, as: UTF8.self)
        #expect(usage.contains("--max-seconds S"))
        #expect(usage.contains("600, the service's max_job_seconds"))
    }

    /// `preflight synthesize` replays the plan's steps 1..V in a worker: an endless step
    /// there ends the command at `--max-seconds` with `time_limit`, exit 1, nothing
    /// written, and no worker left (its job directory, under the TMPDIR given, is gone).
    @Test func synthesizeEndsAnEndlessStepAtMaxSeconds() throws {
        let directory = TemporaryDirectory("time-limit")
        let planPath = directory.file("plan.json")
        let plan: [String: Any] = [
            "name": "slow",
            "steps": [
                ["version": 1, "name": "create", "sql": "CREATE TABLE t(x)"],
                ["version": 2, "name": "count forever", "sql": Self.endless],
            ],
        ]
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: planPath))
        let jobs = directory.file("jobs")
        try FileManager.default.createDirectory(atPath: jobs, withIntermediateDirectories: true)
        let out = directory.file("made.db")
        // The answer names no phase: wherever the limit falls, in the endless step or
        // before it, the command ends the same, so the shortest limit serves.
        let result = try PreflightProcess.run(
            ["synthesize", "--plan", planPath, "--version", "2", "--rows", "t=10", "--out", out, "--max-seconds", "2"],
            environment: ["TMPDIR": jobs])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("(time_limit)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(WorkerProcesses.under(jobs).isEmpty, "workers left: \(WorkerProcesses.under(jobs))")
        #expect((try FileManager.default.contentsOfDirectory(atPath: jobs)).isEmpty)
    }

    /// The processes whose environment names job `jobID` (`PREFLIGHT_JOB_ID`, which every
    /// worker of a job gets), from /proc.
    private func workers(ofJob jobID: String) -> [Int32] {
        let marker = Array("PREFLIGHT_JOB_ID=\(jobID)".utf8)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environment.split(separator: 0).contains { Array($0) == marker }
        }
    }

    @Test func aLaunchThatNeverEndsEndsAtTheJobDeadlineWithWhatItMeasured() throws {
        let directory = TemporaryDirectory("time-limit")
        let result = try run(secondStep: Self.heldStep, in: directory, holding: true)
        #expect(result.status == 1)
        let report = try result.decodedReport
        #expect(report.outcome == .failed, "\(result.stderr)")
        let failure = try #require(report.failure)
        #expect(failure.kind.rawValue == "time_limit")
        #expect(failure.phase == "launch")
        #expect(failure.step == 2)
        // What the launch measured is kept: the launch itself and the step it was in.
        #expect(report.launches.count == 1)
        #expect(report.launches.first?.ended == .killed)
        #expect(report.steps.first { $0.version == 2 }?.status == .interrupted)
        #expect(report.input.tables == ["t": 1])
    }

    /// The verifier's fresh-install replay, which no launch hold reaches, never ends by its
    /// endless statement; the launch before it, on the small file, finishes.
    @Test func anEndlessFreshInstallReplayEndsAsPhaseReplay() throws {
        let directory = TemporaryDirectory("time-limit")
        let result = try run(secondStep: Self.endlessWhenEmpty, in: directory)
        let report = try result.decodedReport
        #expect(report.outcome == .failed, "\(result.stderr)")
        let failure = try #require(report.failure)
        #expect(failure.kind.rawValue == "time_limit")
        #expect(failure.phase == "replay")
        // The launch itself finished: the migration is measured, only the check ran out.
        #expect(report.launches.first?.ended == .finished)
        #expect(report.steps.first { $0.version == 2 }?.status == .applied)
    }

    /// Drift, with the watchdog: both launches are killed in the endless step, a crash
    /// loop. The state read that follows reads the file and replays nothing (a fresh
    /// install's schema would be discarded for a run short of its target): the endless
    /// step cannot make it run out of the job's time, and the crash loop is reported with
    /// the state the file is in.
    @Test func theStateReadAfterAKillReplaysNothing() throws {
        let directory = TemporaryDirectory("time-limit")
        let planPath = directory.file("plan.json")
        let plan: [String: Any] = [
            "name": "slow", "runner": "drift",
            "steps": [
                ["version": 1, "name": "create", "sql": "CREATE TABLE t(x)"],
                ["version": 2, "name": "count forever", "sql": Self.endless],
            ],
        ]
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: planPath))
        let database = try FixtureDatabase.create(
            at: directory.file("a.db"), sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1); PRAGMA user_version = 1;")
        // Each launch is killed at one second of the slow phone's time; a replay of step 2
        // would run until the job's time limit.
        let result = try PreflightProcess.run(
            ["run", "--db", database, "--plan", planPath, "--watchdog-ms", "1000", "--launches", "2"]
                + SlowPhone.arguments(in: directory),
            environment: ["PREFLIGHT_MAX_JOB_SECONDS": "120"])
        let report = try result.decodedReport
        #expect(report.outcome == .crashLoop, "\(result.stderr)")
        #expect(report.failure?.kind.rawValue == "watchdog", "\(String(describing: report.failure))")
        #expect(report.launches.map(\.ended) == [.killed, .killed])
        #expect(report.final?.userVersion == 1)
        #expect(report.final?.tables == ["t": 1])
        #expect(report.final?.schemaMatchesFreshInstall == nil)
    }

    @Test func theLimitIsAConfigurationKeyWithItsVariable() throws {
        let configuration = try ServiceConfiguration.load(path: nil, environment: ["PREFLIGHT_MAX_JOB_SECONDS": "42"])
        #expect(configuration.maxJobSeconds == 42)
        #expect(try ServiceConfiguration.maxJobSeconds(environment: [:]) == 600)
        #expect(try ServiceConfiguration.maxJobSeconds(environment: ["PREFLIGHT_MAX_JOB_SECONDS": "5"]) == 5)
        let error = #expect(throws: ConfigurationError.self) {
            try ServiceConfiguration.maxJobSeconds(environment: ["PREFLIGHT_MAX_JOB_SECONDS": "0"])
        }
        #expect(error?.description.contains("max_job_seconds") == true)
    }
}
