/// A Prometheus histogram's state: cumulative counts per upper bound, the sum and the count.
struct Histogram: Sendable {
    let bounds: [Double]
    private(set) var counts: [Int]
    private(set) var sum = 0.0
    private(set) var count = 0

    init(bounds: [Double]) {
        self.bounds = bounds
        counts = [Int](repeating: 0, count: bounds.count)
    }

    mutating func observe(_ value: Double) {
        for (index, bound) in bounds.enumerated() where value <= bound {
            counts[index] += 1
        }
        sum += value
        count += 1
    }

    /// The `_bucket`, `_sum` and `_count` samples of `name`, each with `labels` (already
    /// rendered as `key="value"` pairs) before `le`.
    func samples(_ name: String, labels: [String] = []) -> [String] {
        func braces(_ pairs: [String]) -> String { pairs.isEmpty ? "" : "{" + pairs.joined(separator: ",") + "}" }
        var lines = zip(bounds, counts).map { bound, count in
            "\(name)_bucket\(braces(labels + ["le=\"\(Metrics.number(bound))\""])) \(count)"
        }
        lines.append("\(name)_bucket\(braces(labels + ["le=\"+Inf\""])) \(count)")
        lines.append("\(name)_sum\(braces(labels)) \(Metrics.number(sum))")
        lines.append("\(name)_count\(braces(labels)) \(count)")
        return lines
    }
}
