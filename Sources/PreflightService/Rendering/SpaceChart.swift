import Foundation
import Simulation

/// The space of the database's files over the run as an inline SVG: the total of all the
/// files through the run's time (the launches one after another), and the peak of each
/// file class (main, journal, wal, shm, temp).
///
/// This report carries each step's peak, not samples, so the curve is a staircase: the
/// initial size, each step's peak for as long as the step ran, the final size. The free
/// space the run was given shows as a line at initial + free_bytes.
enum SpaceChart {
    static let width = 800.0
    static let height = 220.0
    static let left = 100.0
    static let right = 20.0
    static let top = 24.0
    static let bottom = 30.0
    static let classes: [(name: String, color: String)] = [
        ("main", "#3b6fb6"), ("journal", "#b76e00"), ("wal", "#7b3fa0"), ("shm", "#2a9d8f"), ("temp", "#c62828"),
    ]

    /// One point of the staircase: when (ms from the first launch's start) and how many bytes.
    struct Point { var ms: Double; var bytes: Double }

    static func svg(_ report: Report) -> String {
        let points = staircase(report)
        guard points.count > 1 else { return "<p class=\"meta\">No space was measured: no step ran.</p>" }
        let limit = report.space.freeBytes.flatMap { free in report.space.initialBytes.map { Double($0 + free) } }
        let span = max(1, points.map(\.ms).max() ?? 1)
        let highest = max(1, max(points.map(\.bytes).max() ?? 1, limit ?? 0) * 1.1)
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        func x(_ ms: Double) -> Double { left + ms / span * plotWidth }
        func y(_ bytes: Double) -> Double { top + plotHeight - bytes / highest * plotHeight }
        var path = "M\(HTMLText.coordinate(x(points[0].ms))) \(HTMLText.coordinate(y(points[0].bytes)))"
        for point in points.dropFirst() {
            path += " L\(HTMLText.coordinate(x(point.ms))) \(HTMLText.coordinate(y(point.bytes)))"
        }
        var parts: [String] = []
        parts.append(
            "<svg id=\"space\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"space over time\" "
                + "xmlns=\"http://www.w3.org/2000/svg\" font-size=\"15\">")
        parts.append(
            "<line x1=\"\(HTMLText.coordinate(left))\" y1=\"\(HTMLText.coordinate(top + plotHeight))\" "
                + "x2=\"\(HTMLText.coordinate(width - right))\" y2=\"\(HTMLText.coordinate(top + plotHeight))\" stroke=\"#999\"/>")
        parts.append(
            "<line x1=\"\(HTMLText.coordinate(left))\" y1=\"\(HTMLText.coordinate(top))\" "
                + "x2=\"\(HTMLText.coordinate(left))\" y2=\"\(HTMLText.coordinate(top + plotHeight))\" stroke=\"#999\"/>")
        parts.append(
            "<text x=\"\(HTMLText.coordinate(left - 6))\" y=\"\(HTMLText.coordinate(top + 10))\" text-anchor=\"end\">"
                + "\(ByteCount.text(Int64(highest)))</text>")
        parts.append(
            "<text x=\"\(HTMLText.coordinate(left - 6))\" y=\"\(HTMLText.coordinate(top + plotHeight))\" text-anchor=\"end\">0</text>")
        parts.append(
            "<text x=\"\(HTMLText.coordinate(width - right))\" y=\"\(HTMLText.coordinate(height - 10))\" text-anchor=\"end\">"
                + "\(ReportRendering.duration(ms: Int(span)))</text>")
        if let limit {
            parts.append(
                "<g class=\"space-limit\"><line x1=\"\(HTMLText.coordinate(left))\" y1=\"\(HTMLText.coordinate(y(limit)))\" "
                    + "x2=\"\(HTMLText.coordinate(width - right))\" y2=\"\(HTMLText.coordinate(y(limit)))\" stroke=\"#c62828\" "
                    + "stroke-dasharray=\"6 4\" stroke-width=\"2\"/><text x=\"\(HTMLText.coordinate(width - right))\" "
                    + "y=\"\(HTMLText.coordinate(y(limit) - 5))\" text-anchor=\"end\" fill=\"#c62828\">disk full at "
                    + "\(ByteCount.text(Int64(limit)))</text></g>")
        }
        parts.append(
            "<path class=\"space-path\" d=\"\(path)\" fill=\"none\" stroke=\"#1d232a\" stroke-width=\"2\"><title>all files"
                + "</title></path>")
        parts.append("</svg>")
        return parts.joined(separator: "\n") + "\n" + classBar(report)
    }

    /// The staircase of total bytes through the run's time.
    static func staircase(_ report: Report) -> [Point] {
        var points: [Point] = []
        var level = Double(report.space.initialBytes ?? 0)
        points.append(Point(ms: 0, bytes: level))
        var offset = 0.0
        for launch in report.launches {
            var cursor = offset + Double(launch.startMs ?? 0)
            let end = offset + Double(launch.elapsedMs)
            for step in report.steps where step.launch == launch.launch {
                let length = step.elapsedMs.map(Double.init) ?? max(0, end - cursor)
                if let peak = step.peakBytes {
                    points.append(Point(ms: cursor, bytes: level))
                    level = Double(peak)
                    points.append(Point(ms: cursor, bytes: level))
                }
                cursor = min(end, cursor + length)
                points.append(Point(ms: cursor, bytes: level))
            }
            offset = end
        }
        if let final = report.space.finalBytes {
            points.append(Point(ms: offset, bytes: level))
            points.append(Point(ms: offset, bytes: Double(final)))
        }
        return points
    }

    /// The peak of each file class, one bar each, with its size.
    static func classBar(_ report: Report) -> String {
        guard let byClass = report.space.byClass, let largest = byClass.values.max(), largest > 0 else { return "" }
        let rowHeight = 27.0
        let barLeft = 100.0
        let barWidth = width - barLeft - 140
        var parts: [String] = []
        parts.append(
            "<svg id=\"space-classes\" viewBox=\"0 0 \(Int(width)) \(Int(Double(classes.count) * rowHeight + 6))\" "
                + "role=\"img\" aria-label=\"peak by file class\" xmlns=\"http://www.w3.org/2000/svg\" font-size=\"15\">")
        for (row, fileClass) in classes.enumerated() {
            let bytes = byClass[fileClass.name] ?? 0
            let y = 4 + Double(row) * rowHeight
            let length = Double(bytes) / Double(largest) * barWidth
            parts.append("<text x=\"4\" y=\"\(HTMLText.coordinate(y + 13))\">\(fileClass.name)</text>")
            parts.append(
                "<rect class=\"space-class\" data-class=\"\(fileClass.name)\" x=\"\(HTMLText.coordinate(barLeft))\" "
                    + "y=\"\(HTMLText.coordinate(y))\" width=\"\(HTMLText.coordinate(max(bytes > 0 ? 1 : 0, length)))\" "
                    + "height=\"16\" fill=\"\(fileClass.color)\"/>")
            parts.append(
                "<text x=\"\(HTMLText.coordinate(barLeft + length + 6))\" y=\"\(HTMLText.coordinate(y + 13))\">"
                    + "\(ByteCount.text(bytes))</text>")
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }
}
