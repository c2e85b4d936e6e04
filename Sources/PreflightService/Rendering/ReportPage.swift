import Foundation
import MigrationCore
import Simulation

/// The report as one self-contained HTML page (docs/CONTRACT.md §10): the outcome and the one
/// thing to do about it first, the launches' timeline, the space over time, the steps.
/// Inline CSS and SVG only, no scripts, nothing fetched.
enum ReportPage {
    static func html(_ report: Report) -> String {
        let e = MarkupText.escape
        var body: [String] = []
        body.append("<h1>Preflight: \(e(report.plan.name)) to v\(report.plan.targetVersion)</h1>")
        body.append(
            "<div class=\"outcome \(tone(report.outcome))\" id=\"outcome\"><strong>\(report.outcome.rawValue)</strong>: "
                + "\(e(report.outcome.meaning))<p class=\"todo\" id=\"todo\">\(e(ReportAdvice(report).line))</p></div>")
        if let failure = report.failure {
            var detail = "<p><strong>\(e(failure.kind.rawValue))</strong>"
            if let step = failure.step { detail += " in step v\(step)" }
            detail += ": \(e(failure.message))</p>"
            if let statement = failure.statement { detail += "<pre>\(e(statement))</pre>" }
            body.append(detail)
        }
        let inputVersion = report.input.userVersion.map { "v\($0)" } ?? "unknown version"
        body.append(
            "<p class=\"meta\">job \(e(report.jobID)) · device \(e(report.options.device)) · runner "
                + "\(report.plan.runner.rawValue) · input \(ByteCount.text(report.input.bytes)), \(inputVersion) · "
                + "\(report.launches.count) launch\(report.launches.count == 1 ? "" : "es") · clock "
                + "\(report.options.clock.rawValue) · run \(ReportClock.here(ms: report.timings.totalMs))</p>")
        body.append("<h2>Launches</h2>")
        body.append("<p class=\"meta\" id=\"clocks\">\(e(ReportClock(report.options).legend))</p>")
        body.append(TimelineChart.svg(report))
        body.append("<h2>Space</h2>")
        body.append(spaceSummary(report))
        body.append(SpaceChart.svg(report))
        body.append("<h2>Steps</h2>")
        body.append(stepsTable(report))
        for (title, id, points, sweep) in [
            ("Kill sweep", "kill-sweep", "kill points", report.killSweep),
            ("Disk-full sweep", "disk-full-sweep", "disk-full points", report.diskFullSweep),
        ] {
            guard let sweep else { continue }
            body.append("<h2>\(title)</h2><p id=\"\(id)\">\(e(ReportRendering.sweepLine(sweep, points: points)))</p>")
        }
        if let sweep = report.powerLossSweep {
            body.append("<h2>Power-loss sweep</h2><p id=\"power-loss-sweep\">\(e(ReportRendering.powerLossLine(sweep)))</p>")
        }
        if !report.warnings.isEmpty {
            body.append("<h2>Warnings</h2><ul>")
            for warning in report.warnings {
                let step = warning.step.map { " (step v\($0))" } ?? ""
                body.append("<li><code>\(e(warning.code))</code>\(step): \(e(warning.message))</li>")
            }
            body.append("</ul>")
        }
        return HTMLText.document(title: "Preflight \(report.outcome.rawValue): \(report.plan.name)", body: body.joined(separator: "\n"))
    }

    static func tone(_ outcome: Outcome) -> String {
        switch outcome {
        case .completed: return "good"
        case .completedAfterKills: return "warn"
        default: return "bad"
        }
    }

    static func spaceSummary(_ report: Report) -> String {
        let space = report.space
        var items: [String] = []
        if let initial = space.initialBytes { items.append("initial \(ByteCount.text(initial))") }
        if let peak = space.peakBytes { items.append("peak \(ByteCount.text(peak))") }
        if let final = space.finalBytes { items.append("final \(ByteCount.text(final))") }
        if let needed = space.minFreeBytes { items.append("needs \(ByteCount.text(needed)) free") }
        items.append("free given: \(space.freeBytes.map { ByteCount.text($0) } ?? "unlimited")")
        return "<p class=\"meta\">\(items.joined(separator: " · "))</p>"
    }

    static func stepsTable(_ report: Report) -> String {
        guard !report.steps.isEmpty else { return "<p class=\"meta\">No step ran.</p>" }
        let e = MarkupText.escape
        let clock = ReportClock(report.options)
        var rows: [String] = []
        rows.append(
            // The time, the watchdog's concern, before the wider columns: a phone sees it unscrolled.
            "<div class=\"scroll\"><table id=\"steps\"><thead><tr><th>version</th><th>name</th><th>status</th>"
                + "<th class=\"num\">launch</th><th class=\"num\">time</th><th>kind</th><th class=\"num\">peak</th>"
                + "<th class=\"num\">estimate</th><th class=\"num\">rows</th></tr></thead><tbody>")
        for step in report.steps {
            let kind = step.kind.rawValue + (step.costClass.map { " (\($0.rawValue))" } ?? "")
                + (step.batchRows.map { ", \($0) rows a batch" } ?? "")
            // The device's time first; this machine's below it, marked.
            let here = step.elapsedMs.map { ReportClock.here(ms: $0) }
            let time = clock.onDevice
                ? [step.deviceMs.map { ReportClock.device(ms: $0) }, here.map { "<small class=\"meta\">\($0)</small>" }]
                    .compactMap { $0 }.joined(separator: "<br>")
                : here ?? ""
            rows.append(
                "<tr data-status=\"\(step.status.rawValue)\"><td>v\(step.version)</td><td>\(e(step.name))</td>"
                    + "<td>\(step.status.rawValue)</td><td class=\"num\">\(step.launch.map(String.init) ?? "-")</td>"
                    + "<td class=\"num\">\(time.isEmpty ? "-" : time)</td><td>\(e(kind))</td>"
                    + "<td class=\"num\">\(step.peakBytes.map { ByteCount.text($0) } ?? "-")</td>"
                    + "<td class=\"num\">\(step.estimatedBytes.map { ByteCount.text($0) } ?? "-")</td>"
                    + "<td class=\"num\">\(step.rows.map(String.init) ?? "-")</td></tr>")
        }
        rows.append("</tbody></table></div>")
        return rows.joined(separator: "\n")
    }
}
