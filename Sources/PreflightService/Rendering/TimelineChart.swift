import Foundation
import Simulation

/// The launches of a run as an inline SVG: one bar per launch, from its start to its end,
/// the time until the database was open first, then its steps as segments in the order
/// they ran; the watchdog's deadline as a vertical line; a killed launch's end marked.
///
/// Steps carry their duration but not their start, so the segments are laid end to end
/// after `start_ms`; a step the kill cut (no duration) runs to the end of the bar. Every
/// time drawn is on the clock the watchdog counted (`ReportClock`), and says so; under
/// `clock: device` the tooltips give this machine's time second.
enum TimelineChart {
    static let width = 800.0
    static let rowHeight = 34.0

    static func svg(_ report: Report) -> String {
        let launches = report.launches
        guard !launches.isEmpty else { return "<p class=\"meta\">No launch ran.</p>" }
        let clock = ReportClock(report.options)
        // A launch's or step's time for its tooltip: the launches' clock, then this machine's.
        func timeText(_ launch: LaunchReport) -> String {
            clock.onDevice
                ? ReportClock.both(deviceMs: launch.deviceMs, hereMs: launch.elapsedMs) ?? ""
                : ReportClock.here(ms: launch.elapsedMs)
        }
        func timeText(_ step: StepReport) -> String? {
            clock.onDevice ? ReportClock.both(deviceMs: step.deviceMs, hereMs: step.elapsedMs) : step.elapsedMs.map { ReportClock.here(ms: $0) }
        }
        let deadline = clock.deadline
        let longest = launches.map(clock.length).max() ?? 0
        let span = max(1, max(longest, deadline ?? 0) * 1.08)
        // The plot's height grows with the launches: one row each, below the watchdog's label.
        let (top, bottom) = (34.0, 28.0)
        let frame = PlotFrame(
            id: "timeline", label: "launch timeline", width: width, height: top + Double(launches.count) * rowHeight + bottom,
            left: 110, right: 20, top: top, bottom: bottom)
        let left = frame.left
        func x(_ ms: Double) -> Double { left + min(ms, span) / span * frame.plotWidth }
        var parts = [frame.open]
        for (row, launch) in launches.enumerated() {
            let y = top + Double(row) * rowHeight
            let end = clock.length(of: launch)
            parts.append(
                "<text x=\"4\" y=\"\(HTMLText.coordinate(y + 17))\">launch \(launch.launch)</text>")
            parts.append(
                "<rect class=\"launch-bar\" data-launch=\"\(launch.launch)\" data-ended=\"\(launch.ended.rawValue)\" "
                    + "x=\"\(HTMLText.coordinate(left))\" y=\"\(HTMLText.coordinate(y + 4))\" "
                    + "width=\"\(HTMLText.coordinate(max(1, x(end) - left)))\" height=\"20\" fill=\"#dfe3e8\">"
                    + "<title>launch \(launch.launch): \(launch.ended.rawValue) after \(timeText(launch))</title></rect>")
            var cursor = clock.start(of: launch)
            for (index, step) in report.steps.enumerated() where step.launch == launch.launch {
                let length = clock.length(of: step) ?? max(0, end - cursor)
                let segmentEnd = min(end, cursor + length)
                let color = segmentColor(step.status, index: index)
                parts.append(
                    "<rect class=\"step-segment\" data-version=\"\(step.version)\" "
                        + "x=\"\(HTMLText.coordinate(x(cursor)))\" y=\"\(HTMLText.coordinate(y + 4))\" "
                        + "width=\"\(HTMLText.coordinate(max(1, x(segmentEnd) - x(cursor))))\" height=\"20\" fill=\"\(color)\" "
                        + "stroke=\"#fff\" stroke-width=\"1\"><title>v\(step.version) \(MarkupText.escape(step.name)): "
                        + "\(step.status.rawValue)\(timeText(step).map { ", \($0)" } ?? "")</title></rect>")
                cursor = segmentEnd
            }
            if launch.ended == .killed {
                let kx = x(end)
                parts.append(
                    "<g class=\"kill-marker\" data-launch=\"\(launch.launch)\" stroke=\"#c62828\" stroke-width=\"3\">"
                        + "<line x1=\"\(HTMLText.coordinate(kx - 7))\" y1=\"\(HTMLText.coordinate(y + 7))\" "
                        + "x2=\"\(HTMLText.coordinate(kx + 7))\" y2=\"\(HTMLText.coordinate(y + 21))\"/>"
                        + "<line x1=\"\(HTMLText.coordinate(kx + 7))\" y1=\"\(HTMLText.coordinate(y + 7))\" "
                        + "x2=\"\(HTMLText.coordinate(kx - 7))\" y2=\"\(HTMLText.coordinate(y + 21))\"/>"
                        + "<title>killed at \(timeText(launch))</title></g>")
            } else if launch.ended == .failed {
                parts.append(
                    "<circle class=\"fail-marker\" cx=\"\(HTMLText.coordinate(x(end)))\" cy=\"\(HTMLText.coordinate(y + 14))\" "
                        + "r=\"6\" fill=\"#c62828\"><title>failed at \(timeText(launch))</title></circle>")
            }
        }
        let axisY = frame.plotBottom
        parts.append(frame.horizontalAxis)
        parts.append(frame.text("0", x: left, y: axisY + 18))
        parts.append(frame.text(clock.launches(ms: Int(span)), x: frame.plotRight, y: axisY + 18, anchor: "end"))
        if let deadline {
            let dx = x(deadline)
            parts.append(
                "<g class=\"watchdog-line\">" + frame.verticalLimit(at: dx, from: top - 8, to: axisY)
                    + frame.limitLabel("watchdog \(clock.launches(ms: Int(deadline)))", x: dx - 4, y: top - 10)
                    + "</g>")
        }
        parts.append(PlotFrame.close)
        return parts.joined(separator: "\n")
    }

    /// Applied steps alternate two blues so neighbours stay apart; a cut or failed step is red.
    static func segmentColor(_ status: StepReport.Status, index: Int) -> String {
        switch status {
        case .applied: return index.isMultiple(of: 2) ? "#3b6fb6" : "#6d9bd8"
        case .interrupted, .failed: return "#e06666"
        case .refused, .skipped: return "#b0b0b0"
        }
    }
}
