import Foundation
import MigrationCore
import Simulation

/// A capacity answer as one self-contained HTML page, in the report page's style: the
/// verdict first, then the chart of time per step against rows with the watchdog line,
/// the sizes tried and the fitted costs.
enum CapacityPage {
    static func html(_ answer: CapacityAnswer, plan: Plan, options: RunOptions) -> String {
        let e = MarkupText.escape
        let tone = answer.limit.map { ReportPage.tone($0.outcomeBeyond) } ?? "good"
        var body: [String] = []
        body.append("<h1>Preflight capacity: \(e(answer.plan)) from v\(answer.fromVersion)</h1>")
        body.append(
            "<div class=\"outcome \(tone)\" id=\"verdict\"><strong>\(e(CapacityRendering.verdict(answer, plan: plan)))"
                + "</strong></div>")
        body.append(
            "<p class=\"meta\">device \(e(answer.device)) · runner \(answer.runner.rawValue) · growing table "
                + "\(e(answer.table)) · \(answer.points.count) sizes tried · "
                + (answer.points.contains { $0.deviceMs != nil } ? "times are the device's (its modelled clock)" : "times are this machine's")
                + " · method \(answer.method.rawValue), \(ReportRendering.duration(ms: answer.wallMs)) on this machine</p>")
        body.append("<h2>Time per step against rows</h2>")
        body.append(CapacityChart.svg(answer, deadlineMs: CapacityChart.deadlineMs(options)))
        if let prediction = answer.prediction {
            body.append("<h2>Prediction and confirming runs</h2>")
            var rows = "<div class=\"scroll\"><table id=\"confirmations\"><tr><th class=\"num\">rows</th><th>predicted</th>"
                + "<th>outcome</th><th class=\"num\">predicted first launch</th><th class=\"num\">measured</th>"
                + "<th class=\"num\">error</th><th>verdict</th></tr>"
            for confirmation in prediction.confirmations {
                rows += "<tr><td class=\"num\">\(CountText.grouped(confirmation.rows))</td><td>"
                    + (confirmation.predictedToHold ? "holds" : "breaks") + "</td><td>\(confirmation.outcome.rawValue)</td>"
                    + "<td class=\"num\">\(ReportRendering.duration(ms: confirmation.predictedMs))</td><td class=\"num\">"
                    + (confirmation.deviceMs.map { ReportRendering.duration(ms: $0) } ?? "-") + "</td><td class=\"num\">"
                    + (confirmation.errorPercent.map { String(format: "%+.1f%%", $0) } ?? "cut by the watchdog") + "</td><td>"
                    + (confirmation.agrees ? "agrees" : "disagrees") + "</td></tr>"
            }
            body.append(rows + "</table></div>")
        }
        body.append("<h2>Sizes tried</h2>")
        var table = "<div class=\"scroll\"><table id=\"points\"><tr><th class=\"num\">rows</th><th class=\"num\">size</th>"
            + "<th>outcome</th><th class=\"num\">launches</th><th class=\"num\">time</th><th class=\"num\">peak</th>"
            + "<th>broke</th></tr>"
        for point in answer.points {
            table += "<tr><td class=\"num\">\(CountText.grouped(point.rows))</td><td class=\"num\">"
                + "\(ByteCount.text(point.bytes))</td><td>\(point.outcome.rawValue)</td><td class=\"num\">\(point.launches)"
                + "</td><td class=\"num\">\(ReportRendering.duration(ms: point.deviceMs ?? point.elapsedMs))</td><td class=\"num\">"
                + "\(point.peakBytes.map(ByteCount.text) ?? "-")</td><td>\(point.brokenStep.map { "v\($0)" } ?? "")</td></tr>"
        }
        body.append(table + "</table></div>")
        body.append("<h2>Cost per row</h2>")
        var fits = "<div class=\"scroll\"><table id=\"fit\"><tr><th>step</th><th class=\"num\">ms per row</th>"
            + "<th class=\"num\">bytes per row</th></tr>"
        for fit in answer.fit {
            fits += "<tr><td>v\(fit.version) \(e(plan.step(version: fit.version)?.name ?? ""))</td><td class=\"num\">"
                + "\(fit.msPerRow.map(CapacityRendering.number) ?? "-")</td><td class=\"num\">"
                + "\(fit.bytesPerRow.map(CapacityRendering.number) ?? "-")</td></tr>"
        }
        body.append(fits + "</table></div>")
        return HTMLText.document(title: "Preflight capacity: \(answer.plan)", body: body.joined(separator: "\n"))
    }
}
