import Foundation
import Simulation

/// Time per step against rows as an inline SVG (docs/CONTRACT.md §10's capacity chart): one line
/// per step through the sizes tried, the watchdog's deadline on this machine
/// (`watchdog_ms / time_scale`) as a horizontal line. An axis whose values span more than
/// 20x is log-scaled, so that small and large sizes both show. Sizes that did not complete
/// in one launch are hollow marks.
enum CapacityChart {
    static let width = 800.0
    static let height = 320.0
    static let left = 80.0
    static let right = 140.0
    static let top = 24.0
    static let bottom = 40.0
    static let colors = ["#3b6fb6", "#b76e00", "#7b3fa0", "#2a9d8f", "#c62828", "#1d232a", "#5f8f2f", "#a0446a"]
    /// Past this ratio of largest to smallest, an axis is log-scaled.
    static let logRatio = 20.0
    /// The least distance between the baselines of two labels at the right edge: a line of
    /// the chart's 15 px text and a little air.
    static let labelGap = 17.0

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
    }

    /// `deadlineMs`: the watchdog's deadline in this machine's time; nil for no watchdog.
    static func svg(_ answer: CapacityAnswer, deadlineMs: Double?) -> String {
        let versions = Array(Set(answer.points.flatMap { $0.steps.map(\.version) })).sorted()
        let times = answer.points.flatMap { $0.steps.compactMap { $0.watchdogMs.map { Double(max(1, $0)) } } }
        guard !answer.points.isEmpty, !times.isEmpty else { return "<p class=\"meta\">No size was rehearsed.</p>" }
        let xAxis = Axis(values: answer.points.map { Double($0.rows) })
        let yAxis = Axis(values: times + (deadlineMs.map { [$0 * 1.1] } ?? []))
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        func x(_ rows: Double) -> Double { left + xAxis.fraction(rows) * plotWidth }
        func y(_ ms: Double) -> Double { top + plotHeight - yAxis.fraction(ms) * plotHeight }
        let c = HTMLText.coordinate
        var parts: [String] = []
        parts.append(
            "<svg id=\"capacity\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" "
                + "aria-label=\"time per step against rows\" xmlns=\"http://www.w3.org/2000/svg\" font-size=\"15\">")
        parts.append(
            "<line x1=\"\(c(left))\" y1=\"\(c(top + plotHeight))\" x2=\"\(c(left + plotWidth))\" "
                + "y2=\"\(c(top + plotHeight))\" stroke=\"#999\"/>")
        parts.append("<line x1=\"\(c(left))\" y1=\"\(c(top))\" x2=\"\(c(left))\" y2=\"\(c(top + plotHeight))\" stroke=\"#999\"/>")
        let xLow = xAxis.isLog ? xAxis.low : 0
        parts.append(
            "<text x=\"\(c(left))\" y=\"\(c(height - 18))\" text-anchor=\"start\">\(CountText.grouped(Int(xLow)))</text>")
        parts.append(
            "<text x=\"\(c(left + plotWidth))\" y=\"\(c(height - 18))\" text-anchor=\"end\">"
                + "\(CountText.grouped(Int(xAxis.high)))</text>")
        parts.append(
            "<text x=\"\(c(left + plotWidth / 2))\" y=\"\(c(height - 2))\" text-anchor=\"middle\">rows of "
                + "\(MarkupText.escape(answer.table))\(xAxis.isLog ? " (log scale)" : "")</text>")
        parts.append(
            "<text x=\"\(c(left - 6))\" y=\"\(c(top + 10))\" text-anchor=\"end\">"
                + "\(ReportRendering.duration(ms: Int(yAxis.high)))</text>")
        parts.append(
            "<text x=\"\(c(left - 6))\" y=\"\(c(top + plotHeight))\" text-anchor=\"end\">"
                + "\(yAxis.isLog ? ReportRendering.duration(ms: Int(yAxis.low)) : "0")</text>")
        parts.append(
            "<text x=\"4\" y=\"\(c(top + plotHeight / 2))\">ms\(yAxis.isLog ? " (log)" : "")</text>")
        // The labels at the right edge, each by the end of its line, placed together at the
        // end so that lines ending close together do not print their names over each other.
        var labels: [(y: Double, color: String, text: String)] = []
        if let deadlineMs {
            parts.append(
                "<line class=\"capacity-deadline\" x1=\"\(c(left))\" y1=\"\(c(y(deadlineMs)))\" "
                    + "x2=\"\(c(left + plotWidth))\" y2=\"\(c(y(deadlineMs)))\" stroke=\"#c62828\" stroke-dasharray=\"6 4\" "
                    + "stroke-width=\"2\"/>")
            labels.append((y(deadlineMs) + 5, "#c62828", "watchdog \(ReportRendering.duration(ms: Int(deadlineMs)))"))
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
        let placed = spread(labels.map(\.y), gap: labelGap, within: labelGap...(height - bottom + labelGap))
        for (label, labelY) in zip(labels, placed) {
            parts.append(
                "<text class=\"capacity-label\" x=\"\(c(left + plotWidth + 4))\" y=\"\(c(labelY))\" fill=\"\(label.color)\">"
                    + "\(MarkupText.escape(label.text))</text>")
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
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
    static func deadlineMs(_ options: RunOptions) -> Double? { TimelineChart.Clock(options).deadline }
}
