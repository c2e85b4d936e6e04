import Foundation
import MigrationCore
import Simulation

/// The matrix as one self-contained HTML page (docs/CONTRACT.md §11): the grid, each cell coloured
/// by its outcome as the report page colours it (`ReportPage.tone`), each cell opening its
/// own report page. The report pages are inside the document (each in a frame of its own,
/// shown when its cell is chosen, by CSS `:target`): no scripts, nothing fetched.
enum MatrixPage {
    static func html(_ answer: MatrixAnswer) -> String {
        let e = MarkupText.escape
        let labels = MatrixRendering.rowLabels(answer)
        var body: [String] = []
        body.append(
            "<style>td.cell{padding:0}td.cell a{display:block;padding:6px 8px;color:inherit;text-decoration:none}"
                + "td.good{background:#e9f6ec}td.warn{background:#fff4e0}td.bad{background:#fdecec}"
                + "td.cell a:hover{outline:2px solid #1d232a}.cell small{display:block;color:#555}"
                + "section.report{display:none}section.report:target{display:block}"
                + "section.report iframe{width:100%;height:85vh;border:1px solid #ddd;border-radius:6px}</style>")
        body.append("<h1>Preflight matrix: \(e(answer.plan)) to v\(answer.targetVersion)</h1>")
        let worst = answer.summary.worstOutcome
        body.append(
            "<div class=\"outcome \(worst.map(ReportPage.tone) ?? "good")\" id=\"outcome\"><strong>worst outcome: "
                + "\(worst?.rawValue ?? "none")</strong>: \(e(worst?.meaning ?? "no cell ran"))"
                + "<p class=\"todo\">\(e(schemasText(answer)))</p></div>")
        var meta = "from v\(answer.fromVersion) · \(answer.rows.count) rows × \(answer.devices.count) devices"
        if let shard = answer.shard { meta += " · shard \(shard.text) (a partial answer)" }
        body.append("<p class=\"meta\">\(e(meta)) · choose a cell for its report</p>")
        var table = "<div class=\"scroll\"><table id=\"grid\"><thead><tr><th>row</th><th>source</th><th class=\"num\">size</th>"
        for device in answer.devices {
            let margin = (answer.summary.marginMs[device] ?? nil).map { "margin \(marginText(answer, device: device, ms: $0))" }
                ?? "no watchdog"
            table += "<th>\(e(device))<small class=\"meta\"> \(e(margin))</small></th>"
        }
        table += "</tr></thead><tbody>"
        var reports: [String] = []
        for (rowIndex, row) in answer.rows.enumerated() {
            table += "<tr><th>\(e(labels[rowIndex]))</th><td>\(MatrixRendering.sourceText(row.source))</td>"
                + "<td class=\"num\">\(row.bytes.map { ByteCount.text($0) } ?? "-")</td>"
            for (deviceIndex, device) in answer.devices.enumerated() {
                guard let cell = row.cells[device] else {
                    table += "<td class=\"meta\">other shard</td>"
                    continue
                }
                let id = "cell-\(rowIndex)-\(deviceIndex)"
                // The launches' time on the device first, this machine's second (the tooltip has both).
                let times = ReportClock.both(deviceMs: cell.deviceMs, hereMs: cell.report == nil ? nil : cell.elapsedMs)
                let time = cell.deviceMs.map { ReportClock.device(ms: $0) } ?? ReportClock.here(ms: cell.elapsedMs)
                let detail = cell.failure.map { $0.kind.rawValue } ?? "\(cell.launches) launch\(cell.launches == 1 ? "" : "es"), \(time)\(cell.atRisk ? ", at risk" : "")"
                let inner = "\(cell.outcome.rawValue)<small>\(e(detail))</small>"
                let tooltip = times.map { " title=\"launches: \(e($0))\"" } ?? ""
                table += "<td class=\"cell \(ReportPage.tone(cell.outcome))\" data-outcome=\"\(cell.outcome.rawValue)\"\(tooltip)>"
                    + (cell.report == nil ? "<a>\(inner)</a>" : "<a href=\"#\(id)\">\(inner)</a>") + "</td>"
                if let report = cell.report {
                    reports.append(
                        "<section class=\"report\" id=\"\(id)\"><h2>\(e(labels[rowIndex])) on \(e(device))</h2>"
                            + "<iframe title=\"report of \(e(labels[rowIndex])) on \(e(device))\" loading=\"lazy\" "
                            + "srcdoc=\"\(e(ReportPage.html(report)))\"></iframe></section>")
                }
            }
            table += "</tr>"
        }
        table += "</tbody></table></div>"
        body.append(table)
        body.append(contentsOf: reports)
        return HTMLText.document(
            title: "Preflight matrix \(worst?.rawValue ?? ""): \(answer.plan)", body: body.joined(separator: "\n"))
    }

    /// How a device's margin is labelled: on the device's clock when its cells ran on it, else
    /// this machine's (scaled by the profile's `time_scale`, as its watchdog was).
    private static func marginText(_ answer: MatrixAnswer, device: String, ms: Int) -> String {
        let onDevice = answer.rows.contains { row in row.cells[device]?.report?.options.clock == RunOptions.Clock.device }
        return onDevice ? ReportClock.device(ms: ms) : ReportClock.here(ms: ms)
    }

    private static func schemasText(_ answer: MatrixAnswer) -> String {
        switch answer.schemasAgree {
        case true?: return "Every row that reached the target has the fresh install's schema."
        case false?: return "Schemas differ: a row that reached the target does not have the fresh install's schema (its report's schema diff says how)."
        case nil: return "No row reached the target."
        }
    }
}
