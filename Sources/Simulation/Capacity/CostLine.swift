/// A cost that grows in a straight line with the rows of the growing table:
/// `fixed + perRow * rows` (device milliseconds, or bytes).
public struct CostLine: Sendable, Codable, Equatable {
    public var fixed: Double
    public var perRow: Double

    public init(fixed: Double, perRow: Double) {
        self.fixed = fixed
        self.perRow = perRow
    }

    public func at(_ rows: Int) -> Double { fixed + perRow * Double(rows) }

    enum CodingKeys: String, CodingKey { case fixed, perRow = "per_row" }
}
