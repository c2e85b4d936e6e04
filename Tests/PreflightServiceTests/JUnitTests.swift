import Foundation
import Testing
import TestSupport
import MigrationCore
import PreflightService
import Simulation

/// JUnit XML as CI systems read it: valid against the constraints of Jenkins xUnit's
/// junit-10.xsd (Fixtures/junit-constraints.xsd, checked by xmllint, which
/// scripts/bootstrap installs), one uniquely named case per step and launch, and failures
/// that say what happened.
@Suite struct JUnitTests {
    static let schema = Repository.path("Tests/PreflightServiceTests/Fixtures/junit-constraints.xsd")

    /// xmllint's verdict on `xml`: nil when it validates, else what it said.
    private func schemaProblems(_ xml: String, in directory: TemporaryDirectory) throws -> String? {
        let file = directory.file("report-\(UUID().uuidString.prefix(8)).xml")
        try Data(xml.utf8).write(to: URL(fileURLWithPath: file))
        let result = try TestProcess.run("/usr/bin/xmllint", ["--noout", "--schema", Self.schema, file])
        return result.status == 0 ? nil : result.stderr
    }

    private func caseNames(_ xml: String) throws -> [String] {
        let testCase = try Regex(#"<testcase classname="[^"]*" name="([^"]*)""#)
        return xml.matches(of: testCase).compactMap { $0.output[1].substring.map(String.init) }
    }

    /// A rebuild of 5,000 rows in batches of 500.
    static let rebuildPlan = """
        {"name": "items", "steps": [
          {"version": 1, "name": "create items", "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, label TEXT)"},
          {"version": 2, "name": "label required",
           "rebuild": {"table": "items", "columns": "id INTEGER PRIMARY KEY, label TEXT NOT NULL",
                       "select": "id, coalesce(label, '')", "batch_rows": 500}},
          {"version": 3, "name": "label index", "sql": "CREATE INDEX idx_items_label ON items(label)"}]}
        """

    /// The schema's verdict on real runs' JUnit, for every kind of ending: a run that
    /// completes, one whose first launch is killed (the same step twice), one stuck in a
    /// crash loop (steps skipped), one whose step fails.
    @Test(arguments: [
        ("completed", [:]), ("completed_after_kills", ["PREFLIGHT_TEST_FAULT": "launch=1,after_batches=3"]),
        ("crash_loop", ["PREFLIGHT_TEST_FAULT": "point=inside_swap"]), ("failed", ["fail": "yes"]),
    ])
    func realReportsValidate(expected: String, environment: [String: String]) throws {
        let directory = TemporaryDirectory("junit")
        let plan = directory.file("plan.json")
        let failing = environment["fail"] != nil
        try Data((failing ? Self.rebuildPlan.replacingOccurrences(of: "ON items(label)", with: "ON nothing(label)") : Self.rebuildPlan).utf8)
            .write(to: URL(fileURLWithPath: plan))
        let database = try FixtureDatabase.create(
            at: directory.file("items.db"),
            sql: "CREATE TABLE items(id INTEGER PRIMARY KEY, label TEXT); PRAGMA user_version = 1; \(series(5_000)) INSERT INTO items SELECT value, CASE WHEN value % 7 = 0 THEN NULL ELSE 'item ' || value END FROM series;")
        let result = try PreflightProcess.run(
            ["run", "--db", database, "--plan", plan, "--format", "junit", "--launches", "2"],
            environment: environment.filter { $0.key != "fail" })
        let xml = result.stdoutText
        #expect(xml.contains("<property name=\"outcome\" value=\"\(expected)\"/>"), "\(result.stderr)\n\(xml)")
        #expect(try schemaProblems(xml, in: directory) == nil)
        let names = try caseNames(xml)
        #expect(Set(names).count == names.count, "\(names)")
        #expect(names.contains("outcome"))
        if expected == "completed_after_kills" {
            #expect(names.contains("v2 label required (launch 1)") && names.contains("v2 label required (launch 2)"))
            // Killed after its third batch: 1,500 of the 5,000 rows the finishing launch copied.
            #expect(xml.contains("message=\"killed (SIGKILL) after "), "\(xml)")
            #expect(xml.contains("ms, 30% through the copy (1,500/5,000 rows)\""), "\(xml)")
        }
        if expected == "crash_loop" {
            #expect(names.contains("v3 label index (not run)"))
            #expect(xml.contains("<skipped message=\"not run: step 2 stopped the run\"/>"), "\(xml)")
        }
    }

    /// The sentences of a killed step, from the report's own figures.
    @Test func aKilledStepSaysWhenAndHowFar() throws {
        let plan = try NotesHistory.plan()
        var rebuild = StepReport(version: 4, name: "title required, category required", kind: .rebuild, status: .interrupted)
        rebuild.launch = 1
        rebuild.rows = 620_000
        rebuild.batches = 1_240
        var applied = StepReport(version: 2, name: "sync status", kind: .sql, status: .applied)
        applied.launch = 1
        var report = Report(
            jobID: "job", outcome: .watchdogKilled, failure: Failure(kind: .watchdog, step: 4, message: "all launches were killed"),
            plan: PlanSummary(name: "notes", sha256: "", targetVersion: 6, runner: .perStep),
            options: RunOptions(device: "android-anr", watchdogMs: 5_000),
            input: InputSummary(
                bytes: 0, sha256: "", userVersion: 1, applicationID: 0, journalMode: "delete", pageSize: 4096,
                sqliteHeaderValid: true, tables: ["notes": 1_000_000]),
            launches: [LaunchReport(launch: 1, fromVersion: 1, reachedVersion: 3, ended: .killed, elapsedMs: 5_004, startMs: 30)],
            steps: [applied, rebuild], space: SpaceReport(), final: nil, warnings: [], timings: Timings(totalMs: 5_100, uploadMs: nil))
        let xml = ReportRendering.junit(report, plan: plan)
        #expect(xml.contains(
            "name=\"v4 title required, category required (launch 1)\" time=\"0.000\"><failure type=\"interrupted\" message=\"killed by the watchdog at 5,000 ms, 62% through the copy (620,000/1,000,000 rows)\">"),
            "\(xml)")
        // Without the plan the table is unknown: the rows alone.
        #expect(ReportRendering.junit(report).contains("message=\"killed by the watchdog at 5,000 ms, 620,000 rows done in committed batches\""))
        // An sql step has nothing durable until it commits.
        report.steps[1] = StepReport(version: 3, name: "mutation outbox", kind: .sql, status: .interrupted)
        report.steps[1].launch = 1
        #expect(ReportRendering.junit(report, plan: plan).contains(
            "message=\"killed by the watchdog at 5,000 ms, during its transaction, which rolled back\""))
    }
}
