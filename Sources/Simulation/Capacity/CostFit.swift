import Foundation

/// Each step's cost per row of the growing table: the slope of a least-squares line
/// (`cost = fixed + per_row * rows`) through the sizes that completed in one launch, where
/// every step ran whole and uninterrupted. With one size only, the line goes through zero.
enum CostFit {
    /// What one size measured of one step.
    struct Sample {
        var rows: Int
        var elapsedMs: Int?
        var growthBytes: Int64?
    }

    static func fit(versions: [Int], samples: [Int: [Sample]]) -> [StepFit] {
        versions.map { version in
            let measured = samples[version] ?? []
            return StepFit(
                version: version,
                msPerRow: slope(measured.compactMap { sample in sample.elapsedMs.map { (Double(sample.rows), Double($0)) } }),
                bytesPerRow: slope(measured.compactMap { sample in sample.growthBytes.map { (Double(sample.rows), Double($0)) } }))
        }
    }

    /// The least-squares slope of `y` over `x`, rounded to what a timing can tell; nil
    /// without any point.
    static func slope(_ points: [(x: Double, y: Double)]) -> Double? {
        line(points).map { rounded($0.perRow) }
    }

    /// The least-squares line through `points` (`y = fixed + perRow * x`); with one size only,
    /// or all at one size, the line through zero. Nil without any point, or with only
    /// points at zero.
    static func line(_ points: [(x: Double, y: Double)]) -> CostLine? {
        guard !points.isEmpty else { return nil }
        let n = Double(points.count)
        let meanX = points.map(\.x).reduce(0, +) / n
        let meanY = points.map(\.y).reduce(0, +) / n
        let spread = points.map { ($0.x - meanX) * ($0.x - meanX) }.reduce(0, +)
        if spread == 0 {
            guard meanX > 0 else { return nil }
            return CostLine(fixed: 0, perRow: meanY / meanX)
        }
        let perRow = points.map { ($0.x - meanX) * ($0.y - meanY) }.reduce(0, +) / spread
        return CostLine(fixed: meanY - perRow * meanX, perRow: perRow)
    }

    /// Four significant digits.
    private static func rounded(_ value: Double) -> Double {
        guard value != 0, value.isFinite else { return 0 }
        let scale = pow(10, 3 - log10(abs(value)).rounded(.down))
        return (value * scale).rounded() / scale
    }
}
