import Foundation
import Simulation

/// The space of the database's files over the run as an inline SVG, from the samples the
/// runner took while the launches ran (`space.samples`): each file class (main, journal,
/// wal, shm, temp) a band, stacked, so that the top edge is all the files together; then
/// the peak of each class. The free space the run was given shows as a line at
/// initial + free_bytes.
///
/// The samples are taken on this machine's time; the time axis is on the launches' clock
/// (`ReportClock.sampleTimes`), with each launch's start marked, so that a kill in the
/// timeline above lies at the same time here. Where a report cannot place the samples on
/// the device's time, the axis stays this machine's and says so.
enum SpaceChart {
    static let frame = PlotFrame(
        id: "space", label: "space over time", width: 800, height: 220, left: 100, right: 20, top: 24, bottom: 30)
    static let classes: [(name: String, color: String)] = [
        ("main", "#3b6fb6"), ("journal", "#b76e00"), ("wal", "#7b3fa0"), ("shm", "#2a9d8f"), ("temp", "#c62828"),
    ]

    static func svg(_ report: Report) -> String {
        // A row is [t_ms, main, journal, wal, shm, temp].
        // Until the first launch opens the file nothing is measured (rows of 0 bytes): the files
        // were then as the upload left them, `initial_bytes`, drawn as the main file's.
        let initial = report.space.initialBytes ?? 0
        var measuredYet = false
        let rows = report.space.samples.filter { $0.count == classes.count + 1 }.map { row in
            measuredYet = measuredYet || row.dropFirst().contains { $0 != 0 }
            return measuredYet ? row : [row[0], initial] + Array(repeating: 0, count: classes.count - 1)
        }
        guard rows.count > 1 else { return "<p class=\"meta\">No space was measured: no step ran.</p>" }
        let limit = report.space.freeBytes.flatMap { free in report.space.initialBytes.map { Double($0 + free) } }
        let clock = ReportClock(report.options)
        let mapped = clock.sampleTimes(report)
        let time = mapped ?? { Double($0) }
        let span = max(1, rows.map { time($0[0]) }.max() ?? 1)
        let highest = max(1, max(Double(rows.map { $0.dropFirst().reduce(0, +) }.max() ?? 1), limit ?? 0) * 1.1)
        let frame = Self.frame
        func xPosition(_ ms: Double) -> Double { frame.left + ms / span * frame.plotWidth }
        func x(_ ms: Int64) -> String { HTMLText.coordinate(xPosition(time(ms))) }
        func y(_ bytes: Double) -> Double { frame.plotBottom - bytes / highest * frame.plotHeight }
        func yText(_ bytes: Double) -> String { HTMLText.coordinate(y(bytes)) }
        var parts = [frame.open]
        // Each class's band lies between the sum of the classes below it and that sum plus its own size.
        for (index, fileClass) in classes.enumerated() {
            let lower = rows.map { Double($0[1..<(index + 1)].reduce(0, +)) }
            let upper = rows.map { Double($0[1..<(index + 2)].reduce(0, +)) }
            guard zip(lower, upper).contains(where: { $1 > $0 }) else { continue }
            let edge = rows.indices.map { "\(x(rows[$0][0])) \(yText(upper[$0]))" }
            let base = rows.indices.reversed().map { "\(x(rows[$0][0])) \(yText(lower[$0]))" }
            parts.append(
                "<path class=\"space-band\" data-class=\"\(fileClass.name)\" d=\"M\((edge + base).joined(separator: " L"))Z\" "
                    + "fill=\"\(fileClass.color)\" fill-opacity=\"0.75\"><title>\(fileClass.name)</title></path>")
        }
        let total = rows.map { "\(x($0[0])) \(yText(Double($0.dropFirst().reduce(0, +))))" }
        parts.append(
            "<path class=\"space-path\" d=\"M\(total.joined(separator: " L"))\" fill=\"none\" stroke=\"#1d232a\" "
                + "stroke-width=\"2\"><title>all files</title></path>")
        parts += [frame.horizontalAxis, frame.verticalAxis]
        parts.append(frame.text(ByteCount.text(Int64(highest)), x: frame.left - 6, y: frame.top + 10, anchor: "end"))
        parts.append(frame.text("0", x: frame.left - 6, y: frame.plotBottom, anchor: "end"))
        // Each launch after the first begins at a thin line, named by its number.
        for launch in report.launches.dropFirst() {
            guard let at = launch.atMs, mapped != nil else { continue }
            let lx = xPosition(time(Int64(at)))
            parts.append(
                "<g class=\"launch-start\" data-launch=\"\(launch.launch)\">"
                    + "<line x1=\"\(HTMLText.coordinate(lx))\" y1=\"\(HTMLText.coordinate(frame.top))\" "
                    + "x2=\"\(HTMLText.coordinate(lx))\" y2=\"\(HTMLText.coordinate(frame.plotBottom))\" stroke=\"#777\" "
                    + "stroke-dasharray=\"2 3\"/>" + frame.text("L\(launch.launch)", x: lx + 3, y: frame.top + 12) + "</g>")
        }
        let axis = mapped == nil
            ? "this machine's time: the samples cannot be placed on the device's"
            : clock.onDevice ? "device time, launches end to end" : "this machine's time"
        parts.append(frame.text(axis, x: frame.left, y: frame.height - 10, extra: " class=\"axis-clock\""))
        parts.append(
            frame.text(
                mapped == nil || !clock.onDevice ? ReportClock.here(ms: Int(span)) : ReportClock.device(ms: Int(span)),
                x: frame.plotRight, y: frame.height - 10, anchor: "end"))
        if let limit {
            parts.append(
                "<g class=\"space-limit\">" + frame.horizontalLimit(at: y(limit))
                    + frame.limitLabel("disk full at \(ByteCount.text(Int64(limit)))", x: frame.plotRight, y: y(limit) - 5)
                    + "</g>")
        }
        parts.append(PlotFrame.close)
        return parts.joined(separator: "\n") + "\n" + classBar(report)
    }

    /// The peak of each file class, one bar each, with its size.
    static func classBar(_ report: Report) -> String {
        guard let byClass = report.space.byClass, let largest = byClass.values.max(), largest > 0 else { return "" }
        let rowHeight = 27.0
        let bars = PlotFrame(
            id: "space-classes", label: "peak by file class", width: frame.width,
            height: Double(classes.count) * rowHeight + 6, left: 100, right: 140, top: 0, bottom: 0)
        var parts = [bars.open]
        for (row, fileClass) in classes.enumerated() {
            let bytes = byClass[fileClass.name] ?? 0
            let y = 4 + Double(row) * rowHeight
            let length = Double(bytes) / Double(largest) * bars.plotWidth
            parts.append("<text x=\"4\" y=\"\(HTMLText.coordinate(y + 13))\">\(fileClass.name)</text>")
            parts.append(
                "<rect class=\"space-class\" data-class=\"\(fileClass.name)\" x=\"\(HTMLText.coordinate(bars.left))\" "
                    + "y=\"\(HTMLText.coordinate(y))\" width=\"\(HTMLText.coordinate(max(bytes > 0 ? 1 : 0, length)))\" "
                    + "height=\"16\" fill=\"\(fileClass.color)\"/>")
            parts.append(
                "<text x=\"\(HTMLText.coordinate(bars.left + length + 6))\" y=\"\(HTMLText.coordinate(y + 13))\">"
                    + "\(ByteCount.text(bytes))</text>")
        }
        parts.append(PlotFrame.close)
        return parts.joined(separator: "\n")
    }
}
