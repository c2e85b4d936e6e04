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
            body.append(
                table(
                    id: "confirmations",
                    columns: [
                        ("rows", true), ("predicted", false), ("outcome", false), ("predicted first launch", true),
                        ("measured", true), ("error", true), ("verdict", false),
                    ],
                    rows: prediction.confirmations.map { confirmation in
                        [
                            CountText.grouped(confirmation.rows), confirmation.predictedToHold ? "holds" : "breaks",
                            confirmation.outcome.rawValue, ReportRendering.duration(ms: confirmation.predictedMs),
                            confirmation.deviceMs.map { ReportRendering.duration(ms: $0) } ?? "-",
                            confirmation.errorPercent.map { String(format: "%+.1f%%", $0) } ?? "cut by the watchdog",
                            confirmation.agrees ? "agrees" : "disagrees",
                        ]
                    }))
        }
        body.append("<h2>Sizes tried</h2>")
        body.append(
            table(
                id: "points",
                columns: [
                    ("rows", true), ("size", true), ("outcome", false), ("launches", true), ("time", true), ("peak", true),
                    ("broke", false),
                ],
                rows: answer.points.map { point in
                    [
                        CountText.grouped(point.rows), ByteCount.text(point.bytes), point.outcome.rawValue, String(point.launches),
                        ReportRendering.duration(ms: point.deviceMs ?? point.elapsedMs), point.peakBytes.map(ByteCount.text) ?? "-",
                        point.brokenStep.map { "v\($0)" } ?? "",
                    ]
                }))
        body.append("<h2>Cost per row</h2>")
        body.append(
            table(
                id: "fit", columns: [("step", false), ("ms per row", true), ("bytes per row", true)],
                rows: answer.fit.map { fit in
                    [
                        "v\(fit.version) \(e(plan.step(version: fit.version)?.name ?? ""))",
                        fit.msPerRow.map(CapacityRendering.number) ?? "-", fit.bytesPerRow.map(CapacityRendering.number) ?? "-",
                    ]
                }))
        return HTMLText.document(title: "Preflight capacity: \(answer.plan)", body: body.joined(separator: "\n"))
    }

    /// A scrolling table: `columns` are its headings, numeric ones right-aligned; `rows` its
    /// cells, already markup.
    private static func table(id: String, columns: [(title: String, numeric: Bool)], rows: [[String]]) -> String {
        func cell(_ tag: String, _ content: String, numeric: Bool) -> String {
            "<\(tag)\(numeric ? " class=\"num\"" : "")>\(content)</\(tag)>"
        }
        var html = "<div class=\"scroll\"><table id=\"\(id)\"><tr>"
            + columns.map { cell("th", $0.title, numeric: $0.numeric) }.joined() + "</tr>"
        for row in rows {
            html += "<tr>" + zip(columns, row).map { cell("td", $1, numeric: $0.numeric) }.joined() + "</tr>"
        }
        return html + "</table></div>"
    }
}
