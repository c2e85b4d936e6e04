import Foundation
import MigrationCore
import Simulation
import Testing
@testable import PreflightService

/// The report page without a browser: what it says to do first, the space chart on the
/// launches' clock, and that plan text stays text.
@Suite struct ReportPageTests {
    /// A report of two launches on a plan whose step names are markup.
    static func report(outcome: Outcome, failure: Failure?, interrupted: Int?) -> Report {
        var steps: [StepReport] = []
        for version in 2...3 {
            var step = StepReport(version: version, name: "<script>alert(\(version))</script>", kind: .sql, status: .applied)
            step.launch = 1
            step.elapsedMs = 40
            step.peakBytes = 8192
            if version == interrupted { step.status = .interrupted }
            steps.append(step)
        }
        var space = SpaceReport()
        space.initialBytes = 4096
        space.freeBytes = 1 << 20
        space.byClass = ["main": 8192, "journal": 4096, "wal": 0, "shm": 0, "temp": 0]
        return Report(
            jobID: "0123", outcome: outcome, failure: failure,
            plan: PlanSummary(name: "app \"<i>\"", sha256: "00", targetVersion: 3, runner: .perStep),
            options: RunOptions(watchdogMs: 5000),
            input: InputSummary(
                bytes: 4096, sha256: "00", userVersion: 1, applicationID: nil, journalMode: "delete", pageSize: 4096,
                sqliteHeaderValid: true, tables: [:]),
            launches: [
                LaunchReport(launch: 1, fromVersion: 1, reachedVersion: 2, ended: .killed, elapsedMs: 5000, startMs: 10),
                LaunchReport(launch: 2, fromVersion: 2, reachedVersion: 2, ended: .killed, elapsedMs: 5000, startMs: 10),
            ],
            steps: steps, space: space, final: nil, warnings: [], timings: Timings(totalMs: 10_000, uploadMs: nil))
    }

    @Test func crashLoopNamesTheStepToSplit() {
        let report = Self.report(outcome: .crashLoop, failure: Failure(kind: .watchdog, message: "killed"), interrupted: 3)
        #expect(
            ReportAdvice(report).line
                == "Step v3 \"<script>alert(3)</script>\" (sql, one transaction) takes longer than the watchdog (5.0 s here) "
                + "allows, and every launch is killed inside it and rolls it back: crash loop. It needs durable progress: "
                + "make it a chunked rebuild or backfill, or split it into steps that each fit.")
    }

    @Test func refusedForSpaceSaysHowMuch() {
        let failure = Failure(kind: .insufficientSpace, step: 3, message: "no room", neededBytes: 3 << 20, freeBytes: 1 << 20)
        let report = Self.report(outcome: .refused, failure: failure, interrupted: nil)
        #expect(
            ReportAdvice(report).line
                == "Needs 3.0 MiB free (the device has 1.0 MiB): free space first, or make step v3 \"<script>alert(3)</script>\" need less.")
    }

    /// On the device clock, launch 1 (machine 0-100 ms: opened at 20 ms, then a step of 80 ms
    /// here and 950 ms on the device, 1000 ms in all) and launch 2 (machine 150-200 ms, 500 ms
    /// device), with this machine reading the file between them.
    static func deviceRun(placed: Bool) -> Report {
        var report = Self.report(outcome: .completedAfterKills, failure: nil, interrupted: nil)
        report.options = RunOptions(watchdogMs: 1000, clock: .device)
        report.launches = [
            LaunchReport(launch: 1, fromVersion: 1, reachedVersion: 1, ended: .killed, elapsedMs: 100, startMs: 20, deviceMs: 1000),
            LaunchReport(launch: 2, fromVersion: 1, reachedVersion: 3, ended: .finished, elapsedMs: 50, startMs: 10, deviceMs: 500),
        ]
        if placed { (report.launches[0].atMs, report.launches[1].atMs) = (0, 150) }
        report.steps[0].deviceMs = 950
        report.steps[0].elapsedMs = 80
        report.steps[1].launch = 2
        report.space.samples = [[0, 4096, 0, 0, 0, 0], [60, 8192, 0, 0, 0, 0], [120, 8192, 0, 0, 0, 0], [200, 8192, 0, 0, 0, 0]]
        return report
    }

    @Test func theSamplesLieOnEachLaunchsDeviceTime() throws {
        let report = Self.deviceRun(placed: true)
        let time = try #require(ReportClock(report.options).sampleTimes(report))
        // Halfway through the step here is halfway through it on the device; between the
        // launches is the end of the first; the last launch's end is the sum of both.
        #expect([0, 60, 120, 150, 200].map { time($0) } == [0, 475, 1000, 1000, 1500])
        let chart = SpaceChart.svg(report)
        #expect(chart.contains(">device time, launches end to end</text>"))
        #expect(chart.contains(">1.5 s device</text>"))
        #expect(chart.components(separatedBy: "class=\"launch-start\"").count - 1 == 1)
    }

    @Test func samplesThatCannotBePlacedSayTheyAreThisMachinesTime() {
        let report = Self.deviceRun(placed: false)
        #expect(ReportClock(report.options).sampleTimes(report) == nil)
        let chart = SpaceChart.svg(report)
        #expect(chart.contains(">this machine's time: the samples cannot be placed on the device's</text>"))
        #expect(chart.contains(">200 ms here</text>"))
        #expect(!chart.contains("launch-start"))
    }

    @Test func planTextIsEscapedEverywhere() {
        let page = ReportPage.html(Self.report(outcome: .crashLoop, failure: nil, interrupted: 3))
        #expect(!page.contains("<script>"))
        #expect(!page.contains("<i>"))
        #expect(page.contains("&lt;script&gt;alert(2)&lt;/script&gt;"))
        #expect(page.contains("app &quot;&lt;i&gt;&quot;"))
        // Self-contained: nothing to fetch.
        #expect(!page.contains("src="))
        #expect(!page.contains("href="))
        // One bar per launch, both killed.
        #expect(page.components(separatedBy: "class=\"launch-bar\"").count - 1 == 2)
        #expect(page.components(separatedBy: "class=\"kill-marker\"").count - 1 == 2)
    }
}
