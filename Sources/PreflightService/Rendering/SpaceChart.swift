import Foundation
import Simulation

/// The space of the database's files over the run as an inline SVG, from the samples the
/// runner took while the launches ran (`space.samples`): each file class (main, journal,
/// wal, shm, temp) a band, stacked, so that the top edge is all the files together; then
/// the peak of each class. The free space the run was given shows as a line at
/// initial + free_bytes.
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

    static func svg(_ report: Report) -> String {
        // A row is [t_ms, main, journal, wal, shm, temp].
        let rows = report.space.samples.filter { $0.count == classes.count + 1 }
        guard rows.count > 1 else { return "<p class=\"meta\">No space was measured: no step ran.</p>" }
        let limit = report.space.freeBytes.flatMap { free in report.space.initialBytes.map { Double($0 + free) } }
        let span = max(1, Double(rows.map { $0[0] }.max() ?? 1))
        let highest = max(1, max(Double(rows.map { $0.dropFirst().reduce(0, +) }.max() ?? 1), limit ?? 0) * 1.1)
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        func x(_ ms: Int64) -> String { HTMLText.coordinate(left + Double(ms) / span * plotWidth) }
        func y(_ bytes: Double) -> String { HTMLText.coordinate(top + plotHeight - bytes / highest * plotHeight) }
        var parts: [String] = []
        parts.append(
            "<svg id=\"space\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"space over time\" "
                + "xmlns=\"http://www.w3.org/2000/svg\" font-size=\"15\">")
        // Each class's band lies between the sum of the classes below it and that sum plus its own size.
        for (index, fileClass) in classes.enumerated() {
            let lower = rows.map { Double($0[1..<(index + 1)].reduce(0, +)) }
            let upper = rows.map { Double($0[1..<(index + 2)].reduce(0, +)) }
            guard zip(lower, upper).contains(where: { $1 > $0 }) else { continue }
            let edge = rows.indices.map { "\(x(rows[$0][0])) \(y(upper[$0]))" }
            let base = rows.indices.reversed().map { "\(x(rows[$0][0])) \(y(lower[$0]))" }
            parts.append(
                "<path class=\"space-band\" data-class=\"\(fileClass.name)\" d=\"M\((edge + base).joined(separator: " L"))Z\" "
                    + "fill=\"\(fileClass.color)\" fill-opacity=\"0.75\"><title>\(fileClass.name)</title></path>")
        }
        let total = rows.map { "\(x($0[0])) \(y(Double($0.dropFirst().reduce(0, +))))" }
        parts.append(
            "<path class=\"space-path\" d=\"M\(total.joined(separator: " L"))\" fill=\"none\" stroke=\"#1d232a\" "
                + "stroke-width=\"2\"><title>all files</title></path>")
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
                "<g class=\"space-limit\"><line x1=\"\(HTMLText.coordinate(left))\" y1=\"\(y(limit))\" "
                    + "x2=\"\(HTMLText.coordinate(width - right))\" y2=\"\(y(limit))\" stroke=\"#c62828\" "
                    + "stroke-dasharray=\"6 4\" stroke-width=\"2\"/><text x=\"\(HTMLText.coordinate(width - right))\" "
                    + "y=\"\(HTMLText.coordinate(top + plotHeight - limit / highest * plotHeight - 5))\" text-anchor=\"end\" "
                    + "fill=\"#c62828\">disk full at \(ByteCount.text(Int64(limit)))</text></g>")
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n") + "\n" + classBar(report)
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
