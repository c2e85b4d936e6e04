import Foundation
import MigrationCore
import Simulation

/// The faces of a matrix answer (docs/CONTRACT.md §11): JSON for programs, a grid for a terminal,
/// JUnit XML for CI (one test case per cell, a suite per device). `preflight matrix
/// --format` and `POST /v1/matrix` (by `Accept`) use the same functions; the page is
/// `MatrixPage`.
enum MatrixRendering {
    static func render(_ answer: MatrixAnswer, as format: ReportFormat) -> [UInt8] {
        switch format {
        case .json: return json(answer)
        case .text: return Array(text(answer).utf8)
        case .junit: return Array(junit(answer).utf8)
        }
    }

    /// Pretty JSON with sorted keys, as the report's.
    static func json(_ answer: MatrixAnswer) -> [UInt8] { ReportRendering.prettyJSON(answer, what: "matrix answer") }

    // MARK: - Text

    /// The grid: a line per row, a column per device, each cell its outcome and the time
    /// of its launches (the device's under `clock: device`), then the verdicts.
    ///
    ///     matrix of plan notes to v5: worst outcome completed
    ///     row                    source         ios-launch              android-low-end
    ///     from v0                fresh install  completed 12 ms         completed 40 ms
    static func text(_ answer: MatrixAnswer) -> String {
        var lines: [String] = []
        let shard = answer.shard.map { ", shard \($0.text) (a partial answer: 'preflight matrix merge' joins the shards)" } ?? ""
        lines.append(
            "matrix of plan \(TerminalText.field(answer.plan)) to v\(answer.targetVersion), from v\(answer.fromVersion)\(shard): "
                + "worst outcome \(answer.summary.worstOutcome?.rawValue ?? "none")")
        let labels = rowLabels(answer)
        let labelWidth = max(4, labels.map(\.count).max() ?? 0)
        let cellTexts = answer.rows.map { row in answer.devices.map { row.cells[$0].map(cellText) ?? "-" } }
        let widths = answer.devices.indices.map { column in
            max(answer.devices[column].count, cellTexts.map { $0[column].count }.max() ?? 0)
        }
        lines.append(
            pad("row", labelWidth) + "  " + pad("source", 13) + "  "
                + answer.devices.indices.map { pad(TerminalText.field(answer.devices[$0]), widths[$0]) }.joined(separator: "  "))
        for (index, row) in answer.rows.enumerated() {
            lines.append(
                pad(labels[index], labelWidth) + "  " + pad(sourceText(row.source), 13) + "  "
                    + answer.devices.indices.map { pad(cellTexts[index][$0], widths[$0]) }.joined(separator: "  "))
        }
        let agree: String
        switch answer.schemasAgree {
        case true?: agree = "yes: every row that reached the target has the fresh install's schema"
        case false?: agree = "NO: a row that reached the target differs from the fresh install (its report's final.schema_diff says how)"
        case nil: agree = "unknown: no row reached the target"
        }
        lines.append("schemas agree: \(agree)")
        let margins = answer.devices.map { device in
            "\(TerminalText.field(device)) \((answer.summary.marginMs[device] ?? nil).map { "\($0) ms" } ?? "no watchdog")"
        }
        lines.append("watchdog margin (deadline less the slowest launch): " + margins.joined(separator: ", "))
        for (label, device, cell) in failures(answer, labels: labels) {
            lines.append("\(label) on \(TerminalText.field(device)): \(cell.outcome.rawValue): \(TerminalText.field(cell.failure?.message ?? cell.outcome.meaning))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func cellText(_ cell: MatrixCell) -> String {
        let time = ReportRendering.duration(ms: cell.deviceMs ?? cell.elapsedMs)
        return cell.report == nil ? cell.outcome.rawValue : "\(cell.outcome.rawValue) \(time)\(cell.atRisk ? " at risk" : "")"
    }

    static func sourceText(_ source: MatrixRow.Source) -> String {
        switch source {
        case .fixture: return "fixture"
        case .synthesized: return "synthesized"
        case .freshInstall: return "fresh install"
        }
    }

    /// Each row's name: `from v3`, with its file's name where the version is shared with
    /// another row or unknown.
    static func rowLabels(_ answer: MatrixAnswer) -> [String] {
        var counts: [Int: Int] = [:]
        for row in answer.rows { if let version = row.fromVersion { counts[version, default: 0] += 1 } }
        return answer.rows.map { row in
            TerminalText.field(row.label(unique: row.fromVersion.map { counts[$0] == 1 } ?? false))
        }
    }

    private static func failures(_ answer: MatrixAnswer, labels: [String]) -> [(String, String, MatrixCell)] {
        answer.rows.indices.flatMap { index in
            answer.devices.compactMap { device -> (String, String, MatrixCell)? in
                guard let cell = answer.rows[index].cells[device], cell.outcome != .completed else { return nil }
                return (labels[index], device, cell)
            }
        }
    }

    // MARK: - JUnit

    /// One `testsuite` per device, one `testcase` per cell named `from vN on DEVICE`; a
    /// cell that did not complete is a failure whose message is its outcome's, as a run's
    /// own outcome case says it (`ReportRendering.outcomeFailure`).
    static func junit(_ answer: MatrixAnswer) -> String {
        let labels = rowLabels(answer)
        var suites: [String] = []
        var totalTests = 0
        var totalFailures = 0
        var totalMs = 0
        for device in answer.devices {
            var cases: [String] = []
            var failures = 0
            var deviceMs = 0
            for (index, row) in answer.rows.enumerated() {
                guard let cell = row.cells[device] else { continue }
                let ms = cell.report?.timings.totalMs ?? 0
                deviceMs += ms
                var body = ""
                if cell.outcome != .completed {
                    failures += 1
                    body = ReportRendering.outcomeFailure(cell.outcome, cell.failure)
                }
                let name = "\(labels[index]) on \(device)"
                cases.append(
                    "    <testcase classname=\"\(MarkupText.escape("preflight.\(answer.plan).\(device)"))\" "
                        + "name=\"\(MarkupText.escape(name))\" time=\"\(ReportRendering.seconds(ms: ms))\""
                        + (body.isEmpty ? "/>" : ">\(body)</testcase>"))
            }
            totalTests += cases.count
            totalFailures += failures
            totalMs += deviceMs
            suites.append(
                "  <testsuite name=\"\(MarkupText.escape("preflight.\(answer.plan).\(device)"))\" tests=\"\(cases.count)\" "
                    + "failures=\"\(failures)\" errors=\"0\" skipped=\"0\" time=\"\(ReportRendering.seconds(ms: deviceMs))\">\n"
                    + (cases.isEmpty ? "" : cases.joined(separator: "\n") + "\n") + "  </testsuite>")
        }
        var document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        document += "<testsuites name=\"preflight matrix\" tests=\"\(totalTests)\" failures=\"\(totalFailures)\" errors=\"0\" "
            + "time=\"\(ReportRendering.seconds(ms: totalMs))\">\n"
        document += suites.joined(separator: "\n") + "\n</testsuites>\n"
        return document
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
