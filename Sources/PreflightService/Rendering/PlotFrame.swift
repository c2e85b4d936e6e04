/// The frame the pages' charts share: an inline SVG of a fixed size in its own units (the
/// page scales it), a plot area inside margins, its axes and their end labels, and a
/// dashed line for a limit (the watchdog's deadline, the free space given).
struct PlotFrame {
    let id: String
    /// What a screen reader says of the chart.
    let label: String
    let width: Double
    let height: Double
    let left: Double
    let right: Double
    let top: Double
    let bottom: Double

    var plotWidth: Double { width - left - right }
    var plotHeight: Double { height - top - bottom }
    /// Where the plot area ends on each axis.
    var plotRight: Double { width - right }
    var plotBottom: Double { top + plotHeight }

    /// The limit lines' colour, which their labels share.
    static let limitColor = "#c62828"

    /// The opening tag; the chart's parts follow, then `close`.
    var open: String {
        "<svg id=\"\(id)\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(label)\" "
            + "xmlns=\"http://www.w3.org/2000/svg\" font-size=\"15\">"
    }

    static let close = "</svg>"

    /// The horizontal axis along the plot's bottom edge.
    var horizontalAxis: String { Self.line(from: (left, plotBottom), to: (plotRight, plotBottom)) + " stroke=\"#999\"/>" }

    /// The vertical axis along the plot's left edge.
    var verticalAxis: String { Self.line(from: (left, top), to: (left, plotBottom)) + " stroke=\"#999\"/>" }

    /// A label at (`x`, `y`); `anchor` is SVG's `text-anchor` (nil: the start); `extra`, more
    /// attributes.
    func text(_ content: String, x: Double, y: Double, anchor: String? = nil, extra: String = "") -> String {
        let anchored = anchor.map { " text-anchor=\"\($0)\"" } ?? ""
        return "<text x=\"\(HTMLText.coordinate(x))\" y=\"\(HTMLText.coordinate(y))\"\(anchored)\(extra)>\(content)</text>"
    }

    /// A dashed limit line across the plot at height `y`.
    func horizontalLimit(at y: Double) -> String {
        Self.line(from: (left, y), to: (plotRight, y)) + Self.limitStroke
    }

    /// A dashed limit line down the plot at `x`, from `top` to `bottom`.
    func verticalLimit(at x: Double, from top: Double, to bottom: Double) -> String {
        Self.line(from: (x, top), to: (x, bottom)) + Self.limitStroke
    }

    /// A limit line's label, ending at (`x`, `y`), in the line's colour.
    func limitLabel(_ content: String, x: Double, y: Double) -> String {
        text(content, x: x, y: y, anchor: "end", extra: " fill=\"\(Self.limitColor)\"")
    }

    private static let limitStroke = " stroke=\"\(limitColor)\" stroke-dasharray=\"6 4\" stroke-width=\"2\"/>"

    /// `<line` with its two ends, open for its attributes.
    private static func line(from start: (Double, Double), to end: (Double, Double)) -> String {
        "<line x1=\"\(HTMLText.coordinate(start.0))\" y1=\"\(HTMLText.coordinate(start.1))\" "
            + "x2=\"\(HTMLText.coordinate(end.0))\" y2=\"\(HTMLText.coordinate(end.1))\""
    }
}
