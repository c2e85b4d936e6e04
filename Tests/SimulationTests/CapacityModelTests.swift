import MigrationCore
import Testing

@testable import Simulation

/// Predict then confirm on its own (`PredictingSearch`, `CapacityModel`), against first
/// launches given by a known cost: which sizes it tries, which it hands out side by side,
/// and that the pair it settles on brackets the true boundary within 5%.
struct CapacityModelTests {
    static let watchdogMs = 5_000

    /// Drives the search to its end; answers it and the sizes it handed out at once.
    private func drive(_ cost: (Int) -> Double) throws -> (search: PredictingSearch, batches: [[Int]]) {
        let plan = try PlanDecoder.decode(Array("""
            {"name": "rewrite", "steps": [
              {"version": 1, "name": "create items", "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, label TEXT NOT NULL)"},
              {"version": 2, "name": "rewrite", "sql": "UPDATE items SET label = label || 'x'"}]}
            """.utf8))
        let options = RunOptions(watchdogMs: Self.watchdogMs, launches: 2, clock: .device)
        var search = PredictingSearch(
            request: CapacityRequest(plan: plan, options: options, device: .builtInDefault), fromVersion: 1)
        var batches: [[Int]] = []
        while case .tryRows(let rows) = search.next(), batches.count < 50 {
            let sizes = search.sideBySide(rows, limit: 2)
            batches.append(sizes)
            for size in sizes {
                let ms = cost(size)
                let holds = ms < Double(Self.watchdogMs)
                let deviceMs = holds ? Int(ms) : Self.watchdogMs
                var point = CapacityPoint(
                    rows: size, bytes: Int64(size) * 100, outcome: holds ? .completed : .crashLoop, launches: holds ? 1 : 2,
                    elapsedMs: deviceMs, peakBytes: nil,
                    steps: [CapacityPoint.StepCost(version: 2, elapsedMs: deviceMs, deviceMs: deviceMs - 50, peakBytes: nil)])
                point.deviceMs = deviceMs
                search.record(point, firstLaunch: (deviceMs, !holds))
            }
        }
        return (search, batches)
    }

    /// The first size whose first launch reaches the watchdog.
    private func boundary(_ cost: (Int) -> Double) -> Int {
        var (low, high) = (1, 100_000_000)
        while high - low > 1 {
            let middle = (low + high) / 2
            if cost(middle) < Double(Self.watchdogMs) { low = middle } else { high = middle }
        }
        return high
    }

    private func expectSettled(_ cost: (Int) -> Double, sizesAtMost: Int) throws -> [[Int]] {
        let (search, batches) = try drive(cost)
        let (held, broke) = search.search.bracket(.completes)
        let truth = boundary(cost)
        let (low, high) = (try #require(held), try #require(broke))
        #expect(low < truth && truth <= high, "bracket \(low)...\(high), boundary \(truth)")
        #expect(Double(high) <= Double(low) * 1.05)
        #expect(search.method == .predictedAndConfirmed, "\(batches)")
        #expect(batches.joined().count <= sizesAtMost, "\(batches)")
        return batches
    }

    /// A cost that bends upward (an index's sort): a line through the two largest sizes
    /// would place the boundary too far; the curve through three meets a fourth, so that
    /// its prediction, four times the largest size that held, is confirmed at once (here
    /// by the pair's lower run alone: 256,000 broke within 5% above it).
    @Test func aCostThatBendsIsConfirmedAtOnce() throws {
        let batches = try expectSettled({ 60 + 0.01 * Double($0) + 4e-8 * Double($0) * Double($0) }, sizesAtMost: 6)
        // The first sizes are cheap whatever the plan: measured side by side; so is 64,000
        // with 256,000, which the search tries next whenever 64,000 completes within the
        // measuring's share of the watchdog, as 16,000 says it will.
        #expect(batches.first == [1_000, 8_000, 16_000])
        #expect(batches.dropFirst().first == [64_000, 256_000])
        #expect(batches.count == 3, "\(batches)")
    }

    /// A table that outgrows the page cache between the first sizes: each row costs little
    /// up to a few thousand rows, then more, after a jump. The line through 8,000 and 16,000
    /// rows, both beyond the jump, places the boundary where it is, and it meets 1,000, so
    /// that its prediction, nearly twice the largest size, is confirmed at once; a line
    /// through 4,000 and 16,000 would have spanned the jump and fallen short by more than
    /// the pair reaches.
    @Test func aTableOutgrowingThePageCacheIsConfirmedByTheFirstPair() throws {
        let cost: (Int) -> Double = { rows in
            let x = Double(rows)
            if x <= 4_000 { return 155 + 0.036 * x }
            if x <= 8_000 { return 299 + 0.2465 * (x - 4_000) }
            return 1_285 + 0.167 * (x - 8_000)
        }
        let batches = try expectSettled(cost, sizesAtMost: 5)
        #expect(batches.count == 2, "\(batches)")
    }

    /// A straight cost with a jump up above a small size (a batch committed more): the line
    /// through the larger sizes passes above the smallest, so that it does not place the
    /// boundary too far, and its prediction, twice the largest size, is confirmed at once.
    @Test func aJumpAboveASmallSizeIsConfirmedAtOnce() throws {
        let batches = try expectSettled({ $0 < 3_000 ? 600 + 0.1 * Double($0) : 2_000 + 0.09 * Double($0) }, sizesAtMost: 5)
        #expect(batches.count == 2, "\(batches)")
    }

    /// A cost whose smallest size pays more than the line through the larger ones says (a
    /// fixed cost that small runs pay): the line passes below that size, as a cost bending
    /// upward would, so that its far prediction is scouted, at a doubling at most, and a
    /// bolder scout beside it stands within reach of the boundary in the same round, so
    /// that the confirming pair comes next.
    @Test func aHeldBackScoutHasABolderOneBesideIt() throws {
        let batches = try expectSettled({ $0 < 3_000 ? 1_200 : 300 + 0.07 * Double($0) }, sizesAtMost: 7)
        #expect(batches.count == 3, "\(batches)")
        let scouts = try #require(batches.dropFirst().first)
        #expect(scouts.count == 2 && scouts[0] == 32_000 && scouts[1] > 32_000, "\(batches)")
    }
}
