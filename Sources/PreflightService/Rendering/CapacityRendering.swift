import Foundation
import MigrationCore
import Simulation

/// The faces of a capacity answer (docs/CONTRACT.md §8): JSON for programs, and for people a table
/// of the sizes tried with a one-line verdict. `preflight capacity --format` and
/// `POST /v1/capacity` (by `Accept`) use the same functions.
enum CapacityRendering {
    /// Pretty JSON with sorted keys, as the report's.
    static func json(_ answer: CapacityAnswer) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(answer)) + [0x0A]
        } catch {
            let message = JSONValue.string("the capacity answer could not be encoded: \(error)").canonicalText
            return Array("{\"error\": {\"code\": \"internal\", \"message\": \(message)}}\n".utf8)
        }
    }

    /// The sizes tried, the fitted costs and the verdict:
    ///
    ///       rows of notes       size  outcome                launches     time        peak  broke
    ///               1,000   72.0 KiB  completed                     1    41 ms    140.0 KiB
    ///     ...
    ///     v4 (title required, category required) completes only after kills above about ...
    static func text(_ answer: CapacityAnswer, plan: Plan) -> String {
        let table = TerminalText.field(answer.table)
        let rowsHeader = "rows of \(table)"
        let rowsWidth = max(12, rowsHeader.count)
        var lines: [String] = []
        lines.append(
            "capacity of plan \(TerminalText.field(answer.plan)) from v\(answer.fromVersion) on device "
                + "\(TerminalText.field(answer.device)), runner \(answer.runner.rawValue)")
        lines.append(
            pad(rowsHeader, rowsWidth, right: true) + "  " + pad("size", 10, right: true) + "  " + pad("outcome", 21)
                + "  " + pad("launches", 8, right: true) + "  " + pad("time", 8, right: true) + "  "
                + pad("peak", 10, right: true) + "  broke")
        for point in answer.points {
            lines.append(
                pad(CountText.grouped(point.rows), rowsWidth, right: true) + "  "
                    + pad(ByteCount.text(point.bytes), 10, right: true) + "  " + pad(point.outcome.rawValue, 21) + "  "
                    + pad(String(point.launches), 8, right: true) + "  "
                    + pad(ReportRendering.duration(ms: point.deviceMs ?? point.elapsedMs), 8, right: true) + "  "
                    + pad(point.peakBytes.map(ByteCount.text) ?? "-", 10, right: true) + "  "
                    + (point.brokenStep.map { "v\($0)" } ?? ""))
        }
        let fitted = answer.fit.filter { $0.msPerRow != nil || $0.bytesPerRow != nil }
        if !fitted.isEmpty {
            lines.append("cost per row of \(table), fitted over the sizes that completed in one launch:")
            for fit in fitted {
                let ms = fit.msPerRow.map { "\(number($0)) ms" } ?? "- ms"
                let bytes = fit.bytesPerRow.map { "\(number($0)) B" } ?? "- B"
                lines.append("  v\(fit.version) \(stepName(fit.version, plan: plan)): \(ms), \(bytes) of space")
            }
        }
        lines += predictionLines(answer)
        lines.append(verdict(answer, plan: plan))
        return lines.joined(separator: "\n") + "\n"
    }

    /// The predicted line, the confirming runs with the prediction's error at each, and how
    /// the answer was found in how long:
    ///
    ///     predicted first launch: 77.7 ms + 0.01752 ms per row; first size not completing: 24,101
    ///       confirm     23,628  completed              predicted 492 ms, measured 493 ms, error -0.2%  agrees
    ///     method predicted_and_confirmed, 1.2 s on this machine
    static func predictionLines(_ answer: CapacityAnswer) -> [String] {
        var lines: [String] = []
        if let prediction = answer.prediction {
            let boundary = prediction.rows.map { CountText.grouped($0) } ?? "none up to the max rows"
            lines.append(
                "predicted first launch: \(String(format: "%.1f", prediction.launchMs.fixed)) ms + "
                    + "\(number(prediction.launchMs.perRow)) ms "
                    + "per row; first size not completing: \(boundary)")
            for confirmation in prediction.confirmations {
                let measured = confirmation.deviceMs.map { "\($0) ms" } ?? "-"
                let error = confirmation.errorPercent.map { String(format: "%+.1f%%", $0) } ?? "(cut by the watchdog)"
                lines.append(
                    "  confirm " + pad(CountText.grouped(confirmation.rows), 10, right: true) + "  "
                        + pad(confirmation.outcome.rawValue, 21) + "  predicted \(confirmation.predictedMs) ms, measured "
                        + "\(measured), error \(error)  \(confirmation.agrees ? "agrees" : "disagrees")")
            }
        }
        lines.append(
            "method \(answer.method.rawValue), \(ReportRendering.duration(ms: answer.wallMs)) on this machine")
        return lines
    }

    /// One line a person can act on: which step breaks first, how, above about which size,
    /// on which device and runner; and, when the app still gets there after kills, up to
    /// where.
    static func verdict(_ answer: CapacityAnswer, plan: Plan) -> String {
        let table = TerminalText.field(answer.table)
        let device = TerminalText.field(answer.device)
        let whereRun = "on \(device) with the \(answer.runner.rawValue) runner"
        guard let limit = answer.limit else {
            let largest = answer.points.last
            let size = largest.map { "\(CountText.grouped($0.rows)) rows of \(table) (\(ByteCount.text($0.bytes)))" } ?? "every size"
            let why: String
            switch answer.stoppedBy {
            case .maxRows?: why = "the max rows asked for"
            case .maxSeconds?: why = "the largest size tried before the max seconds ran out"
            case nil: why = "the largest size tried"
            }
            return "the migration completes in one launch up to \(size), \(why), \(whereRun)"
        }
        let step = limit.step.map { "v\($0) (\(stepName($0, plan: plan)))" } ?? "the migration"
        let held = answer.points.last { $0.rows < limit.rows && $0.outcome == .completed }
        var line: String
        if let held {
            line = "\(step) \(verb(limit.outcomeBeyond)) above about \(CountText.grouped(held.rows)) rows of \(table) "
                + "(\(ByteCount.text(held.bytes))) \(whereRun)"
        } else {
            line = "\(step) \(verb(limit.outcomeBeyond)) already at \(CountText.grouped(limit.rows)) rows of \(table) "
                + "(\(ByteCount.text(limit.bytes))), the smallest size tried, \(whereRun)"
        }
        if limit.reason == .maxSeconds { line += " (not narrowed to 10%: the max seconds ran out)" }
        if limit.outcomeBeyond == .completedAfterKills {
            let reaches: (Outcome) -> Bool = { $0 == .completed || $0 == .completedAfterKills }
            let broke = answer.points.first { !reaches($0.outcome) }
            if let reached = answer.points.last(where: { reaches($0.outcome) && $0.rows < (broke?.rows ?? Int.max) }) {
                line += "; it completes after kills up to \(CountText.grouped(reached.rows)) (\(ByteCount.text(reached.bytes)))"
            }
            if let broke {
                let brokeStep = broke.brokenStep.map { "v\($0) " } ?? ""
                line += ", then \(brokeStep)\(verb(broke.outcome))"
            } else if let runOut = answer.prediction?.reachesTargetRows {
                line += ", and its launches run out at about \(CountText.grouped(runOut)) rows by the prediction (not run)"
            } else if let stopped = answer.stoppedBy {
                line += stopped == .maxSeconds
                    ? ", the largest size tried before the max seconds ran out"
                    : ", the max rows asked for"
            }
        }
        return line
    }

    static func stepName(_ version: Int, plan: Plan) -> String {
        TerminalText.field(plan.step(version: version)?.name ?? "v\(version)")
    }

    /// What the migration does to the user at a size, as a verb phrase.
    static func verb(_ outcome: Outcome) -> String {
        switch outcome {
        case .completed: return "completes"
        case .completedAfterKills: return "completes only after kills"
        case .watchdogKilled: return "is killed in every launch"
        case .crashLoop: return "crash-loops"
        case .refused: return "is refused"
        case .diskFull: return "fills the disk"
        case .failed: return "fails"
        case .verificationFailed: return "fails verification"
        case .dataErased: return "erases the user's data"
        case .invalidDatabase: return "leaves no readable database"
        }
    }

    /// A fitted cost as people read it: four significant digits, no exponent.
    static func number(_ value: Double) -> String {
        // Below what six decimals show, or below zero (a metadata step's fit is noise around
        // zero, and no step gives time or space back per row): 0, not "-0.000007".
        if value < 0.000_000_5 { return "0" }
        let decimals = value >= 100 ? 0 : value >= 1 ? 2 : value >= 0.01 ? 4 : 6
        return String(format: "%.\(decimals)f", value)
    }

    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return right ? fill + text : text + fill
    }
}
