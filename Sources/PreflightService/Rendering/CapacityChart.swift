import Foundation
import Simulation

/// Time per step against rows as an inline SVG (docs/CONTRACT.md §10's capacity chart), on the
/// charts' shared `PlotFrame`: one line per step through the sizes tried, the watchdog's
/// deadline as a horizontal line, and, when the answer predicted its boundary, the
/// predicted first launch as a dashed line with the predicted boundary marked, and the
/// confirming runs as squares at their first launch's time (filled where they agreed).
/// An axis whose values span more than 20x is log-scaled, so that small and large sizes
/// both show. Sizes that did not complete in one launch are hollow marks.
enum CapacityChart {
    static let frame = PlotFrame(
        id: "capacity", label: "time per step against rows", width: 800, height: 320, left: 80, right: 140, top: 24,
        bottom: 40)
    static let colors = ["#3b6fb6", "#b76e00", "#7b3fa0", "#2a9d8f", "#c62828", "#1d232a", "#5f8f2f", "#a0446a"]
    /// The predicted line's and the confirming runs' colour.
    static let predictionColor = "#555"
    /// Past this ratio of largest to smallest, an axis is log-scaled.
    static let logRatio = 20.0
    /// The least distance between the baselines of two labels at the right edge: a line of
    /// the chart's 15 px text and a little air.
    static let labelGap = 17.0
    /// Points along the predicted line (a straight line bends on a log axis).
    static let predictedSamples = 48

    /// One axis: where a value goes along `length` pixels.
    struct Axis {
        var low: Double
        var high: Double
        var isLog: Bool

        init(values: [Double]) {
            let positive = values.filter { $0 > 0 }
            low = positive.min() ?? 1
            high = max(positive.max() ?? 1, low)
            isLog = high / low > CapacityChart.logRatio
            if !isLog { low = 0 }
            if high == low { high = low + 1 }
        }

        /// 0...1 along the axis.
        func fraction(_ value: Double) -> Double {
            guard isLog else { return (value - low) / (high - low) }
            return (log10(max(value, low)) - log10(low)) / (log10(high) - log10(low))
        }

        /// The value at `fraction` along the axis.
        func value(at fraction: Double) -> Double {
            guard isLog else { return low + fraction * (high - low) }
            return pow(10, log10(low) + fraction * (log10(high) - log10(low)))
        }
    }

    /// `deadlineMs`: the watchdog's deadline on the clock the run used; nil for no watchdog.
    static func svg(_ answer: CapacityAnswer, deadlineMs: Double?) -> String {
        let versions = Array(Set(answer.points.flatMap { $0.steps.map(\.version) })).sorted()
        let times = answer.points.flatMap { $0.steps.compactMap { $0.watchdogMs.map { Double(max(1, $0)) } } }
        guard !answer.points.isEmpty, !times.isEmpty else { return "<p class=\"meta\">No size was rehearsed.</p>" }
        let prediction = answer.prediction
        let confirmations = prediction?.confirmations ?? []
        let confirmedTimes = confirmations.compactMap { $0.deviceMs.map { Double(max(1, $0)) } }
        let xAxis = Axis(values: answer.points.map { Double($0.rows) })
        let predictedTimes = prediction.map { line in
            [xAxis.value(at: 0), xAxis.high].map { max(1, line.launchMs.at(Int($0))) }
        } ?? []
        let yAxis = Axis(values: times + confirmedTimes + predictedTimes + (deadlineMs.map { [$0 * 1.1] } ?? []))
        let frame = Self.frame
        func x(_ rows: Double) -> Double { frame.left + xAxis.fraction(rows) * frame.plotWidth }
        func y(_ ms: Double) -> Double { frame.plotBottom - yAxis.fraction(ms) * frame.plotHeight }
        let c = HTMLText.coordinate
        var parts = [frame.open, frame.horizontalAxis, frame.verticalAxis]
        parts.append(frame.text(CountText.grouped(Int(xAxis.isLog ? xAxis.low : 0)), x: frame.left, y: frame.height - 18))
        parts.append(frame.text(CountText.grouped(Int(xAxis.high)), x: frame.plotRight, y: frame.height - 18, anchor: "end"))
        parts.append(
            frame.text(
                "rows of \(MarkupText.escape(answer.table))\(xAxis.isLog ? " (log scale)" : "")",
                x: frame.left + frame.plotWidth / 2, y: frame.height - 2, anchor: "middle"))
        parts.append(frame.text(ReportRendering.duration(ms: Int(yAxis.high)), x: frame.left - 6, y: frame.top + 10, anchor: "end"))
        parts.append(
            frame.text(
                yAxis.isLog ? ReportRendering.duration(ms: Int(yAxis.low)) : "0", x: frame.left - 6, y: frame.plotBottom,
                anchor: "end"))
        parts.append(frame.text("ms\(yAxis.isLog ? " (log)" : "")", x: 4, y: frame.top + frame.plotHeight / 2))
        // The labels at the right edge, each by the end of its line, placed together at the
        // end so that lines ending close together do not print their names over each other.
        var labels: [(y: Double, color: String, text: String)] = []
        if let deadlineMs {
            parts.append("<g class=\"capacity-deadline\">" + frame.horizontalLimit(at: y(deadlineMs)) + "</g>")
            labels.append((y(deadlineMs) + 5, PlotFrame.limitColor, "watchdog \(ReportRendering.duration(ms: Int(deadlineMs)))"))
        }
        for (index, version) in versions.enumerated() {
            let color = colors[index % colors.count]
            let measured = answer.points.compactMap { point in
                point.steps.first { $0.version == version }?.watchdogMs.map { (point, Double(max(1, $0))) }
            }
            guard let last = measured.last else { continue }
            let path = measured.enumerated().map { offset, entry in
                "\(offset == 0 ? "M" : "L")\(c(x(Double(entry.0.rows)))) \(c(y(entry.1)))"
            }.joined(separator: " ")
            parts.append(
                "<path class=\"capacity-step\" data-version=\"\(version)\" d=\"\(path)\" fill=\"none\" stroke=\"\(color)\" "
                    + "stroke-width=\"2\"><title>v\(version)</title></path>")
            for (point, ms) in measured {
                let fill = point.outcome == .completed ? color : "#fff"
                parts.append(
                    "<circle class=\"capacity-point\" cx=\"\(c(x(Double(point.rows))))\" cy=\"\(c(y(ms)))\" r=\"4\" "
                        + "fill=\"\(fill)\" stroke=\"\(color)\" stroke-width=\"2\"><title>v\(version): "
                        + "\(CountText.grouped(point.rows)) rows, \(Int(ms)) ms, \(point.outcome.rawValue)</title></circle>")
            }
            labels.append((y(last.1) - 6, color, "v\(version)"))
        }
        if let prediction {
            parts += predictedParts(prediction, x: x, y: y, xAxis: xAxis)
            let end = max(1, prediction.launchMs.at(Int(xAxis.high)))
            labels.append((y(min(end, yAxis.high)) - 6, predictionColor, "predicted launch"))
        }
        let placed = spread(labels.map(\.y), gap: labelGap, within: labelGap...(frame.height - frame.bottom + labelGap))
        for (label, labelY) in zip(labels, placed) {
            parts.append(
                "<text class=\"capacity-label\" x=\"\(c(frame.plotRight + 4))\" y=\"\(c(labelY))\" fill=\"\(label.color)\">"
                    + "\(MarkupText.escape(label.text))</text>")
        }
        parts.append(PlotFrame.close)
        return parts.joined(separator: "\n")
    }

    /// The predicted first launch (dashed), the predicted boundary (a dotted line down the
    /// plot) and the confirming runs (squares, filled where they agreed).
    private static func predictedParts(
        _ prediction: CapacityPrediction, x: (Double) -> Double, y: (Double) -> Double, xAxis: Axis
    ) -> [String] {
        let c = HTMLText.coordinate
        let frame = Self.frame
        var parts: [String] = []
        let line = (0...predictedSamples).map { sample -> String in
            let rows = xAxis.value(at: Double(sample) / Double(predictedSamples))
            let ms = min(max(1, prediction.launchMs.at(Int(rows))), Double.greatestFiniteMagnitude)
            return "\(sample == 0 ? "M" : "L")\(c(x(rows))) \(c(max(frame.top, y(ms))))"
        }.joined(separator: " ")
        parts.append(
            "<path class=\"capacity-predicted\" d=\"\(line)\" fill=\"none\" stroke=\"\(predictionColor)\" "
                + "stroke-dasharray=\"3 3\" stroke-width=\"1.5\"><title>predicted first launch: "
                + "\(String(format: "%.1f", prediction.launchMs.fixed)) ms + \(CapacityRendering.number(prediction.launchMs.perRow)) "
                + "ms per row</title></path>")
        if let rows = prediction.rows, Double(rows) <= xAxis.high {
            let at = x(Double(rows))
            parts.append(
                "<line class=\"capacity-predicted-boundary\" x1=\"\(c(at))\" y1=\"\(c(frame.top))\" x2=\"\(c(at))\" "
                    + "y2=\"\(c(frame.plotBottom))\" stroke=\"\(predictionColor)\" stroke-dasharray=\"2 4\"/>")
            parts.append(frame.text("predicted \(CountText.grouped(rows))", x: at - 4, y: frame.top + 14, anchor: "end"))
        }
        for confirmation in prediction.confirmations {
            guard let ms = confirmation.deviceMs else { continue }
            let (cx, cy) = (x(Double(confirmation.rows)), y(Double(max(1, ms))))
            parts.append(
                "<rect class=\"capacity-confirmation\" data-agrees=\"\(confirmation.agrees)\" x=\"\(c(cx - 5))\" "
                    + "y=\"\(c(cy - 5))\" width=\"10\" height=\"10\" fill=\"\(confirmation.agrees ? predictionColor : "#fff")\" "
                    + "stroke=\"\(confirmation.agrees ? predictionColor : PlotFrame.limitColor)\" stroke-width=\"2\"><title>confirm "
                    + "\(CountText.grouped(confirmation.rows)) rows: \(confirmation.outcome.rawValue), predicted "
                    + "\(confirmation.predictedMs) ms, first launch \(ms) ms, \(confirmation.agrees ? "agrees" : "disagrees")"
                    + "</title></rect>")
        }
        return parts
    }

    /// `wanted` baselines moved as little as they must to lie at least `gap` apart, in the
    /// same order, inside `bounds` (when they fit there): pushed down from the top, then
    /// back up from the bottom. Answered in the order given.
    static func spread(_ wanted: [Double], gap: Double, within bounds: ClosedRange<Double>) -> [Double] {
        let order = wanted.indices.sorted { wanted[$0] < wanted[$1] }
        var placed = order.map { min(max(wanted[$0], bounds.lowerBound), bounds.upperBound) }
        for index in placed.indices.dropFirst() { placed[index] = max(placed[index], placed[index - 1] + gap) }
        if let last = placed.last, last > bounds.upperBound {
            placed[placed.count - 1] = bounds.upperBound
            for index in placed.indices.dropLast().reversed() {
                placed[index] = min(placed[index], placed[index + 1] - gap)
            }
        }
        var answer = wanted
        for (rank, index) in order.enumerated() { answer[index] = placed[rank] }
        return answer
    }

    /// The chart as a file of its own (`--chart FILE`).
    static func document(_ answer: CapacityAnswer, deadlineMs: Double?) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svg(answer, deadlineMs: deadlineMs) + "\n"
    }

    /// The watchdog's deadline on the clock the run used.
    static func deadlineMs(_ options: RunOptions) -> Double? { ReportClock(options).deadline }
}
