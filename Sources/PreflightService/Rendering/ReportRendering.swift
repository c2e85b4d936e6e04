import Foundation
import MigrationCore
import Simulation

/// The faces of a report: JSON for programs, a short text for people in a terminal,
/// JUnit XML for CI systems, and the page (`ReportPage`). `preflight run --format` and the
/// HTTP service (by `Accept`) use the same functions, so both say the same thing.
public enum ReportRendering {
    /// The report as `answer`, as bytes to write or send. With the job's `plan`, JUnit's
    /// failures say how far a killed chunked step was through its table.
    static func render(_ report: Report, as answer: ReportAnswer, plan: Plan? = nil) -> [UInt8] {
        switch answer {
        case .rendered(.json): return json(report)
        case .rendered(.text): return Array(text(report).utf8)
        case .rendered(.junit): return Array(junit(report, plan: plan).utf8)
        case .page: return Array(ReportPage.html(report).utf8)
        }
    }

    // MARK: - JSON

    /// The report as pretty JSON with sorted keys: the same report always gives the same bytes.
    public static func json(_ report: Report) -> [UInt8] { prettyJSON(report, what: "report") }

    /// An answer (`what`: a report, a matrix answer) as pretty JSON with sorted keys.
    static func prettyJSON<Answer: Encodable>(_ answer: Answer, what: String) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(answer)) + [0x0A]
        } catch {
            // The answers' encoders write only strings, numbers and containers; this cannot
            // happen, but an answer must still be JSON.
            let message = JSONValue.string("the \(what) could not be encoded: \(error)").canonicalText
            return Array("{\"error\": {\"code\": \"internal\", \"message\": \(message)}}\n".utf8)
        }
    }

    // MARK: - Text

    /// A short summary: the outcome, the failure, the launches when there was more than one
    /// or one that did not finish, one line per step with time and peak space.
    ///
    ///     completed: target reached in the first launch, verification passed
    ///     plan notes -> v5 on device default, runner per_step, 1 launch, 1.2 s here
    ///       v1  create notes          applied   12 ms here   peak 8.0 KiB
    ///
    /// Every time this machine measured is followed by "here"; a time without it is the
    /// device's, modelled (`clock: device`). So a reader, and scripts/check-docs, can tell
    /// the figures that are the same on every machine from those that are not.
    /// Names and messages from the plan and the database are `TerminalText` fields: no
    /// control character of theirs reaches the terminal.
    public static func text(_ report: Report) -> String {
        var lines: [String] = []
        lines.append("\(report.outcome.rawValue): \(report.outcome.meaning)")
        let launchCount = report.launches.count
        lines.append(
            "plan \(report.plan.name) -> v\(report.plan.targetVersion) on device \(report.options.device), "
                + "runner \(report.plan.runner.rawValue), "
                + "\(launchCount) launch\(launchCount == 1 ? "" : "es"), \(duration(ms: report.timings.totalMs)) here")
        let onDevice = report.options.clock == .device
        if onDevice {
            lines.append(
                "clock device: launch and step times are the device's, modelled from the work done; "
                    + "\"here\" is what this machine measured")
        }
        let inputVersion = report.input.userVersion.map { "v\($0)" } ?? "unknown version"
        lines.append("input \(ByteCount.text(report.input.bytes)), \(inputVersion)")
        if report.firstLaunch == .created {
            lines.append("first launch: the framework created the schema (its create path; no migration ran)")
        }
        if let failure = report.failure {
            let step = failure.step.map { " (step \($0))" } ?? ""
            lines.append("failure \(failure.kind)\(step): \(failure.message)")
        }
        if launchCount > 1 || report.launches.contains(where: { $0.ended != .finished || $0.atRisk }) {
            for launch in report.launches {
                let from = launch.fromVersion.map { "v\($0)" } ?? "?"
                let id = launch.fromID.map { " (\"\(TerminalText.field($0))\")" } ?? ""
                let reached = launch.reachedVersion.map { "v\($0)" } ?? "?"
                let undone = launch.rolledBack ? ", uncommitted work rolled back" : ""
                let risk = launch.deviceBand.map { launch.atRisk ? ", at risk (\($0.lowMs)-\($0.highMs) ms)" : "" } ?? ""
                let time = onDevice
                    ? "\(launch.deviceMs.map { duration(ms: $0) } ?? "-") (\(duration(ms: launch.elapsedMs)) here)"
                    : "\(duration(ms: launch.elapsedMs)) here"
                lines.append(
                    "  launch \(launch.launch): \(from)\(id) -> \(reached), \(launch.ended.rawValue) after \(time)\(undone)\(risk)")
            }
        }
        let names = report.steps.map { TerminalText.field($0.name) }
        let nameWidth = min(40, names.map(\.count).max() ?? 0)
        for (step, fullName) in zip(report.steps, names) {
            let name = fullName.count > nameWidth ? String(fullName.prefix(nameWidth - 1)) + "~" : fullName
            let padded = name + String(repeating: " ", count: max(0, nameWidth - name.count))
            let time = onDevice
                ? step.deviceMs.map { duration(ms: $0) } ?? "-"
                : step.elapsedMs.map { duration(ms: $0) + " here" } ?? "-"
            let peak = step.peakBytes.map { ByteCount.text($0) } ?? "-"
            let status = step.status.rawValue + String(repeating: " ", count: max(0, 11 - step.status.rawValue.count))
            let here = onDevice ? "   (\(step.elapsedMs.map { duration(ms: $0) } ?? "-") here)" : ""
            lines.append(
                "  v\(step.version)\(step.version < 10 ? " " : "") \(padded)  \(status) "
                    + "\(leftPad(time, 9))   peak \(peak)\(here)")
        }
        if let peak = report.space.peakBytes {
            let needed = report.space.minFreeBytes.map { ", needs \(ByteCount.text($0)) free" } ?? ""
            lines.append("space peak \(ByteCount.text(peak))\(needed)")
        }
        if let sweep = report.killSweep { lines.append(sweepLine(sweep, points: "kill points")) }
        if let sweep = report.diskFullSweep { lines.append(sweepLine(sweep, points: "disk-full points")) }
        if let sweep = report.powerLossSweep { lines.append(powerLossLine(sweep)) }
        for warning in report.warnings {
            let step = warning.step.map { " (step \($0))" } ?? ""
            lines.append("warning \(warning.code)\(step): \(warning.message)")
        }
        return lines.map(TerminalText.field).joined(separator: "\n") + "\n"
    }

    /// "survives 120/124 power-loss states (at 31 points); first failure at 12:lost-journal
    /// (version_rolled_back, step 3, journal): ...". Replay it: `--power-loss-sweep 12:lost-journal`.
    static func powerLossLine(_ sweep: PowerLossSweepReport) -> String {
        var line = "survives \(sweep.survived)/\(sweep.states) power-loss states (at \(sweep.points) points)"
        if let first = sweep.failures.first {
            let place = [first.kind.rawValue] + [first.step.map { "step \($0)" }, first.phase].compactMap { $0 }
            line += "; first failure at \(first.point):\(first.state) (\(place.joined(separator: ", "))): \(first.message)"
        }
        return line
    }

    /// "survives 214/214 kill points", or with the first failure: "survives 200/214 kill
    /// points; first failure at point 17 (step 3, journal): ...".
    static func sweepLine(_ sweep: SweepReport, points: String) -> String {
        var line = "survives \(sweep.survived)/\(sweep.points) \(points)"
        if let first = sweep.failures.first {
            let place = [first.step.map { "step \($0)" }, first.phase].compactMap { $0 }.joined(separator: ", ")
            line += "; first failure at point \(first.point) (\(place)): \(first.message)"
        }
        return line
    }

    // MARK: - JUnit

    /// One `testsuite` for the job, one `testcase` per step and launch it ran in (so that a
    /// step cut by a kill and applied in the next launch is two cases, each named for its
    /// launch: `v4 title required (launch 1)`), and one for the outcome. A step that did
    /// not apply and an outcome other than `completed` are failures whose message says what
    /// happened (`StepFailureText`).
    public static func junit(_ report: Report, plan: Plan? = nil) -> String {
        let suiteName = "preflight.\(report.plan.name)"
        let completed = report.outcome == .completed
        var cases: [String] = []
        var failures = 0
        var skipped = 0
        for step in report.steps {
            // Every step that ran has its launch; one that did not is skipped.
            let run = step.launch.map { "launch \($0)" } ?? (step.status == .skipped ? "not run" : step.status.rawValue)
            let name = "v\(step.version) \(step.name) (\(run))"
            let time = seconds(ms: step.elapsedMs ?? 0)
            var body = ""
            switch step.status {
            case .applied:
                break
            case .skipped:
                skipped += 1
                body = "<skipped message=\"\(MarkupText.escape(StepFailureText.message(for: step, in: report, plan: plan)))\"/>"
            case .failed, .refused, .interrupted:
                failures += 1
                let message = StepFailureText.message(for: step, in: report, plan: plan)
                body = "<failure type=\"\(MarkupText.escape(step.status.rawValue))\" message=\"\(MarkupText.escape(message))\">"
                    + "\(MarkupText.escape("step \(step.status.rawValue)\(step.launch.map { " in launch \($0)" } ?? ""): \(message)\noutcome \(report.outcome.rawValue): \(report.failure?.message ?? report.outcome.meaning)"))</failure>"
            }
            cases.append(
                "    <testcase classname=\"\(MarkupText.escape(suiteName))\" name=\"\(MarkupText.escape(name))\" time=\"\(time)\""
                    + (body.isEmpty ? "/>" : ">\(body)</testcase>"))
        }
        var outcomeBody = ""
        if !completed {
            failures += 1
            outcomeBody = outcomeFailure(report.outcome, report.failure)
        }
        cases.append(
            "    <testcase classname=\"\(MarkupText.escape(suiteName))\" name=\"outcome\" time=\"\(seconds(ms: report.timings.totalMs))\""
                + (outcomeBody.isEmpty ? "/>" : ">\(outcomeBody)</testcase>"))
        // One case per sweep asked for: a point or state that did not survive fails it.
        var sweeps: [(name: String, line: String, failures: [String])] = []
        for (name, sweep) in [("kill sweep", report.killSweep), ("disk-full sweep", report.diskFullSweep)] {
            guard let sweep else { continue }
            sweeps.append((name, sweepLine(sweep, points: "points"), sweep.failures.map { "point \($0.point): \($0.message)" }))
        }
        if let sweep = report.powerLossSweep {
            sweeps.append((
                "power-loss sweep", powerLossLine(sweep),
                sweep.failures.map { "\($0.point):\($0.state) \($0.kind.rawValue): \($0.message)" }))
        }
        for sweep in sweeps {
            var body = ""
            if !sweep.failures.isEmpty {
                failures += 1
                body = "<failure type=\"sweep\" message=\"\(MarkupText.escape(sweep.line))\">"
                    + "\(MarkupText.escape(sweep.failures.joined(separator: "\n")))</failure>"
            }
            cases.append(
                "    <testcase classname=\"\(MarkupText.escape(suiteName))\" name=\"\(sweep.name)\" time=\"0.000\""
                    + (body.isEmpty ? "/>" : ">\(body)</testcase>"))
        }
        let tests = cases.count
        let total = seconds(ms: report.timings.totalMs)
        var document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        document += "<testsuites name=\"preflight\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" time=\"\(total)\">\n"
        document += "  <testsuite name=\"\(MarkupText.escape(suiteName))\" id=\"\(MarkupText.escape(report.jobID))\" tests=\"\(tests)\" "
            + "failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" time=\"\(total)\">\n"
        document += "    <properties>\n"
        let properties: [(String, String)] = [
            ("outcome", report.outcome.rawValue), ("job_id", report.jobID), ("plan_sha256", report.plan.sha256),
            ("target_version", String(report.plan.targetVersion)), ("runner", report.plan.runner.rawValue),
            ("device", report.options.device),
        ]
        for (name, value) in properties {
            document += "      <property name=\"\(MarkupText.escape(name))\" value=\"\(MarkupText.escape(value))\"/>\n"
        }
        document += "    </properties>\n"
        document += cases.joined(separator: "\n") + "\n"
        document += "  </testsuite>\n</testsuites>\n"
        return document
    }

    /// The `<failure>` element of an outcome other than `completed`: the run's own case,
    /// and a matrix's cell (`MatrixRendering`).
    static func outcomeFailure(_ outcome: Outcome, _ failure: Failure?) -> String {
        let message = failure?.message ?? outcome.meaning
        let detail = failure.map { "\n\($0.message)" } ?? ""
        return "<failure type=\"\(MarkupText.escape(outcome.rawValue))\" message=\"\(MarkupText.escape(message))\">"
            + "\(MarkupText.escape("\(outcome.rawValue): \(outcome.meaning)\(detail)"))</failure>"
    }

    // MARK: - Formatting

    static func duration(ms: Int) -> String {
        ms < 1000 ? "\(ms) ms" : String(format: "%.1f s", Double(ms) / 1000)
    }

    static func seconds(ms: Int) -> String { String(format: "%.3f", Double(ms) / 1000) }

    private static func leftPad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
