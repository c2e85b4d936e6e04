/// A seeded pseudo-random generator (SplitMix64, Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", 2014): the same seed gives the same sequence on every
/// platform, run and toolchain.
///
/// The helpers below derive their choices from `next()` with plain arithmetic instead of
/// the standard library's `random(in:using:)`, whose way of drawing from the generator is
/// not promised to stay the same across Swift versions: a seed printed in a failure must
/// replay the same history later.
public struct SplitMix64 {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range` (the modulo bias is far below anything a test could notice).
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % width)
    }

    /// A number in `0..<bound`.
    public mutating func below(_ bound: Int) -> Int { int(0...(bound - 1)) }

    /// True with probability `percent` in 100.
    public mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }

    /// One element of `items`, or nil when there is none.
    public mutating func pick<T>(_ items: [T]) -> T? {
        items.isEmpty ? nil : items[int(0...(items.count - 1))]
    }

    /// One element of a list known not to be empty, with `fallback` for the empty case.
    public mutating func pick<T>(_ items: [T], or fallback: T) -> T { pick(items) ?? fallback }

    /// `items` in a random order (Fisher-Yates).
    public mutating func shuffled<T>(_ items: [T]) -> [T] {
        var result = items
        guard result.count > 1 else { return result }
        for index in stride(from: result.count - 1, to: 0, by: -1) {
            result.swapAt(index, int(0...index))
        }
        return result
    }

    /// Up to `count` distinct elements of `items`, in their original order.
    public mutating func subset<T>(_ items: [T], count: Int) -> [T] {
        let chosen = Set(shuffled(Array(items.indices)).prefix(count))
        return items.indices.filter { chosen.contains($0) }.map { items[$0] }
    }

    /// An index into `weights`, each chosen in proportion to its weight; nil when all are 0.
    public mutating func weighted(_ weights: [Int]) -> Int? {
        let total = weights.reduce(0) { $0 + max(0, $1) }
        guard total > 0 else { return nil }
        var roll = int(0...(total - 1))
        for (index, weight) in weights.enumerated() where weight > 0 {
            if roll < weight { return index }
            roll -= weight
        }
        return nil
    }
}
