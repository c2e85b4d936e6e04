import Testing

@testable import Simulation

/// Which step a capacity point says broke first (`limit.step`), from reports built here
/// as the runner writes them (an entry per launch a step ran in): the step a kill or a
/// failure left unapplied, and, when no launch left one, the step after whose commit the
/// first kill came.
struct CapacityBrokenStepTests {
    private func report(
        _ outcome: Outcome, launches: [LaunchReport.Ending], steps: [(version: Int, status: StepReport.Status, launch: Int)]
    ) -> Report {
        Report(
            jobID: "job", outcome: outcome, failure: nil,
            plan: PlanSummary(name: "rewrite", sha256: "", targetVersion: 4, runner: .perStep),
            options: RunOptions(device: "android-anr", watchdogMs: 2_000),
            input: InputSummary(
                bytes: 0, sha256: "", userVersion: 1, applicationID: 0, journalMode: "delete", pageSize: 4096,
                sqliteHeaderValid: true, tables: ["items": 1_000]),
            launches: launches.enumerated().map { index, ended in
                LaunchReport(launch: index + 1, fromVersion: 1, reachedVersion: nil, ended: ended, elapsedMs: 2_000, startMs: 10)
            },
            steps: steps.map { step in
                var report = StepReport(version: step.version, name: "rewrite", kind: .sql, status: step.status)
                report.launch = step.launch
                return report
            },
            space: SpaceReport(), final: nil, warnings: [], timings: Timings(totalMs: 4_000, uploadMs: nil))
    }

    @Test func aCompletedRunBrokeNothing() {
        let run = report(.completed, launches: [.finished], steps: [(2, .applied, 1), (3, .applied, 1)])
        #expect(CapacityRehearsal.brokenStep(run) == nil)
    }

    /// Launch 1 was cut in step 3, which launch 2 applied.
    @Test func theStepAKillCutBrokeFirst() {
        let run = report(
            .completedAfterKills, launches: [.killed, .finished],
            steps: [(2, .applied, 1), (3, .interrupted, 1), (3, .applied, 2), (4, .applied, 2)])
        #expect(CapacityRehearsal.brokenStep(run) == 3)
    }

    /// Right at a boundary the kill can come after a launch's last commit, while it
    /// closes: no step was cut, and the next launch only runs what is left. The step the
    /// killed launch applied last is what held it past the watchdog.
    @Test func aKillAfterACommitBlamesTheLastStepTheLaunchApplied() {
        let run = report(
            .completedAfterKills, launches: [.killed, .finished], steps: [(2, .applied, 1), (3, .applied, 1), (4, .applied, 2)])
        #expect(CapacityRehearsal.brokenStep(run) == 3)
        let atTarget = report(.completedAfterKills, launches: [.killed, .finished], steps: [(2, .applied, 1)])
        #expect(CapacityRehearsal.brokenStep(atTarget) == 2)
    }

    /// A launch killed in its start, before any step: no step of the plan held it.
    @Test func aKillBeforeAnyStepBlamesNone() {
        let run = report(.completedAfterKills, launches: [.killed, .finished], steps: [(2, .applied, 2)])
        #expect(CapacityRehearsal.brokenStep(run) == nil)
    }
}
