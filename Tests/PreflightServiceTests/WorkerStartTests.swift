import Foundation
import Glibc
import MigrationCore
import Testing
import TestSupport
@testable import Simulation

/// Workers started ahead of their turn (`WorkerLauncher.start`): real `preflight worker`
/// processes, held at their go while the job gets their files ready.
@Suite struct WorkerStartTests {
    let directory = TemporaryDirectory("worker-start")

    private func launcher() throws -> (WorkerLauncher, JobDirectory) {
        let jobDirectory = try JobDirectory.create(parent: directory.path)
        let job = Job(directory: jobDirectory, plan: try NotesHistory.plan(), options: RunOptions(), device: .builtInDefault)
        let launcher = WorkerLauncher(
            executable: try preflightExecutable(), job: job, jobID: job.id, cancellation: JobCancellation(), jobDeadline: nil)
        return (launcher, jobDirectory)
    }

    /// A plan whose second step never ends: only a kill stops a launch of it.
    static let endlessPlan = """
        {"name": "endless", "steps": [
          {"version": 1, "name": "create", "sql": "CREATE TABLE t(x)"},
          {"version": 2, "name": "count forever",
           "sql": "CREATE TABLE n AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) AS n FROM c"}]}
        """

    /// What the runner hands every worker, written only once the worker waits.
    private func writeInstructions(_ job: JobDirectory, plan: String? = nil) throws {
        let plan = try plan ?? String(contentsOfFile: Repository.path("Config/plans/notes.json"), encoding: .utf8)
        let instructions = WorkerInstructions(
            plan: plan, target: nil, spaceCheck: .off, verify: .full, connection: ConnectionSettings(), sqliteVersion: nil,
            sqliteCheck: .warn, tablesBefore: nil, startVersion: 1)
        try JSONEncoder().encode(instructions).write(to: URL(fileURLWithPath: job.workerInstructions))
    }

    /// Returns once the worker is blocked reading its standard input, the go's socket
    /// (`/proc/PID/syscall`: `read`, 0 on x86-64, of descriptor 0): it has started and
    /// confined itself, and would have read the job by now if it did not wait.
    private func waitUntilItWaits(_ worker: WorkerLauncher.Started) throws {
        var zombie = false
        let waits = try eventually {
            let syscall = try String(contentsOfFile: "/proc/\(worker.pid)/syscall", encoding: .utf8)
            // A zombie: it ran to its end without waiting.
            let state = try String(contentsOfFile: "/proc/\(worker.pid)/stat", encoding: .utf8)
            zombie = state.split(separator: ")").last?.split(separator: " ").first == "Z"
            return syscall.hasPrefix("0 0x0 ") || zombie
        }
        if !waits || zombie { Issue.record("worker \(worker.pid) did not wait for its go") }
    }

    @Test func aWorkerStartedAheadReadsTheDatabaseOnlyAtItsGo() throws {
        let (launcher, job) = try launcher()
        try writeInstructions(job)
        let inspector = try launcher.start(.inspect)
        try waitUntilItWaits(inspector)
        // The database did not exist until now.
        _ = try NotesHistory.database(version: 1, rows: 7, at: job.work.path)
        let run = launcher.run(inspector)
        #expect(run.termination == .exited(0))
        let report = try JSONDecoder().decode(WorkerReport.self, from: Data(try #require(run.lines.last)))
        #expect(report.readable == "ok")
        #expect(report.tables?["notes"] == 7)
    }

    /// Held at its go for longer than its watchdog allows a whole launch, a launch of an
    /// endless step is still given its watchdog after the go, less only its own start: the
    /// watchdog counts the process's start, never the wait. (Had it counted the wait, the
    /// deadline would have passed before the go, and the kill would come at once.) The
    /// bound is one-sided: the start is timed here from before the spawn to after the
    /// worker was seen waiting, longer than it was, and a kill cannot come before its
    /// deadline however loaded the machine.
    @Test func onTheWallClockTheWaitForTheGoIsNotPartOfTheLaunch() throws {
        let (launcher, job) = try launcher()
        _ = try FixtureDatabase.create(at: job.work.path, sql: "CREATE TABLE t(x); PRAGMA user_version = 1;")
        try writeInstructions(job, plan: Self.endlessPlan)
        #expect(SpaceStats.create(path: job.spaceStats, quotaBytes: nil) == 0)
        let spawned = ContinuousClock.now
        let launch = try launcher.start(.migrate, extraArguments: ["--launch", "1"])
        try waitUntilItWaits(launch)
        let start = ContinuousClock.now - spawned
        let watchdogMs = 1_000
        // Longer than the watchdog, so that a deadline that counted the wait is past at the go.
        Thread.sleep(forTimeInterval: Double(watchdogMs) / 1000 + 0.5)
        let go = ContinuousClock.now
        let run = launcher.run(launch, watchdogMs: watchdogMs)
        #expect(run.killedByWatchdog)
        #expect(
            ContinuousClock.now - go >= .milliseconds(watchdogMs) - start,
            "killed before its watchdog, counting the wait for its go (its start took at most \(start))")
    }

    /// Its instructions and the plan are read and decoded before the go, so that none of
    /// it is left for the job's path: replaced by garbage while the worker waits, they
    /// still migrate the file.
    @Test func aWorkerHasReadItsInstructionsByItsGo() throws {
        let (launcher, job) = try launcher()
        try writeInstructions(job)
        #expect(SpaceStats.create(path: job.spaceStats, quotaBytes: nil) == 0)
        let launch = try launcher.start(.migrate, extraArguments: ["--launch", "1"])
        try waitUntilItWaits(launch)
        try Data("not the instructions".utf8).write(to: URL(fileURLWithPath: job.workerInstructions))
        _ = try NotesHistory.database(version: 1, rows: 9, at: job.work.path)
        let run = launcher.run(launch)
        #expect(run.termination == .exited(0))
        #expect(try FixtureDatabase.userVersion(at: job.work.path) == (try NotesHistory.plan()).newestVersion)
    }

    /// A verifier builds its fresh install while it waits (it needs only the plan), and
    /// reads the migrated file only at its go: started before that file exists, it
    /// verifies it, and finds its schema to be the fresh install's.
    @Test func aVerifierStartedAheadVerifiesWhatTheLaunchesLeft() throws {
        let (launcher, job) = try launcher()
        try writeInstructions(job)
        let verifier = try launcher.start(.verify)
        try waitUntilItWaits(verifier)
        let target = try NotesHistory.plan().newestVersion
        _ = try NotesHistory.database(version: target, rows: 12, at: job.work.path)
        let run = launcher.run(verifier)
        #expect(run.termination == .exited(0))
        let report = try JSONDecoder().decode(WorkerReport.self, from: Data(try #require(run.lines.last)))
        #expect(report.problems == [])
        #expect(report.final?.userVersion == target)
        #expect(report.final?.schemaMatchesFreshInstall == true)
        #expect(report.final?.tables?["notes"] == 12)
        #expect(!FileManager.default.fileExists(atPath: job.freshInstall))
    }

    @Test func aWorkerTheJobNoLongerNeedsIsEndedAndReaped() throws {
        let (launcher, job) = try launcher()
        try writeInstructions(job)
        let inspector = try launcher.start(.inspect)
        try waitUntilItWaits(inspector)
        let before = try FileManager.default.contentsOfDirectory(atPath: job.path)
        inspector.discard()
        #expect(kill(inspector.pid, 0) == -1 && errno == ESRCH)
        #expect(try FileManager.default.contentsOfDirectory(atPath: job.path) == before)
    }
}
