import Foundation
import MigrationCore
import Simulation
import Testing
@testable import PreflightService

/// The report page without a browser: what it says to do first, and that plan text stays text.
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
        let report = Self.report(outcome: .crashLoop, failure: Failure(kind: "watchdog", message: "killed"), interrupted: 3)
        #expect(
            ReportAdvice(report).line
                == "Step v3 \"<script>alert(3)</script>\" (sql, one transaction) takes longer than the watchdog (5.0 s here) "
                + "allows, and every launch is killed inside it and rolls it back: crash loop. It needs durable progress: "
                + "make it a chunked rebuild or backfill, or split it into steps that each fit.")
    }

    @Test func refusedForSpaceSaysHowMuch() {
        let failure = Failure(kind: "insufficient_space", step: 3, message: "no room", neededBytes: 3 << 20, freeBytes: 1 << 20)
        let report = Self.report(outcome: .refused, failure: failure, interrupted: nil)
        #expect(
            ReportAdvice(report).line
                == "Needs 3.0 MiB free (the device has 1.0 MiB): free space first, or make step v3 \"<script>alert(3)</script>\" need less.")
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
