import Testing

@testable import Simulation

/// The search's rule on its own, against outcomes given by a known boundary: which sizes
/// it tries, and that it stops within 10% of the boundary.
struct CapacitySearchTests {
    /// Drives the search to its end with `outcome(rows)`; answers it and the sizes in the order tried.
    private func drive(_ search: inout CapacitySearch, _ outcome: (Int) -> Outcome) -> [Int] {
        var order: [Int] = []
        while case .tryRows(let rows) = search.next(search.currentBoundary()) {
            #expect(search.tried[rows] == nil, "size \(rows) tried twice")
            order.append(rows)
            search.record(rows: rows, outcome: outcome(rows))
            if order.count > 100 { break }
        }
        return order
    }

    @Test func growsGeometricallyThenBisectsToTenPercent() throws {
        var search = CapacitySearch(startRows: 1_000, maxRows: 100_000_000)
        let order = drive(&search) { $0 < 180_000 ? .completed : .crashLoop }
        #expect(Array(order.prefix(5)) == [1_000, 4_000, 16_000, 64_000, 256_000])
        let (held, broke) = search.bracket(.completes)
        let (low, high) = (try #require(held), try #require(broke))
        #expect(low < 180_000 && high >= 180_000)
        #expect(Double(high) <= Double(low) * 1.1)
        #expect(search.next(.completes) == .narrowed)
        // From a bracket of 4x to one of 1.1x takes at most four halvings on a log scale.
        #expect(order.count <= 5 + 4)
    }

    @Test func afterKillsNarrowsWhereTheTargetIsNoLongerReached() throws {
        var search = CapacitySearch(startRows: 1_000, maxRows: 100_000_000)
        _ = drive(&search) { rows in
            rows < 50_000 ? .completed : rows < 400_000 ? .completedAfterKills : .crashLoop
        }
        let first = search.bracket(.completes)
        let second = search.bracket(.reachesTarget)
        #expect(Double(try #require(first.broke)) <= Double(try #require(first.held)) * 1.1)
        #expect(try #require(first.held) < 50_000)
        #expect(Double(try #require(second.broke)) <= Double(try #require(second.held)) * 1.1)
        #expect(try #require(second.held) < 400_000)
        #expect(try #require(second.broke) >= 400_000)
    }

    @Test func stopsAtMaxRowsWhenEverythingCompletes() {
        var search = CapacitySearch(startRows: 1_000, maxRows: 10_000)
        let order = drive(&search) { _ in .completed }
        #expect(order == [1_000, 4_000, 10_000])
        #expect(search.next(.completes) == .heldToMaxRows)
    }

    @Test func aFailureAtTheSmallestSizeEndsTheSearch() {
        var search = CapacitySearch(startRows: 1_000, maxRows: 10_000)
        let order = drive(&search) { _ in .failed }
        #expect(order == [1_000])
        #expect(search.next(.completes) == .brokeAtSmallest)
    }

    /// `--bisect PERCENT`: the bracket narrows to the precision asked, not the default 10%.
    @Test func bisectsToThePrecisionAsked() throws {
        var search = CapacitySearch(startRows: 1_000, maxRows: 100_000_000, precision: 1.01)
        _ = drive(&search) { $0 < 180_000 ? .completed : .crashLoop }
        let (held, broke) = search.bracket(.completes)
        let (low, high) = (try #require(held), try #require(broke))
        #expect(low < 180_000 && high >= 180_000)
        #expect(Double(high) <= Double(low) * 1.01)
    }
}
