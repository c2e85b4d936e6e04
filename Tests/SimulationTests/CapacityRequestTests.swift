import MigrationCore
import Testing

@testable import Simulation

/// The options each size of a capacity search is rehearsed with (`CapacityRequest.sizeOptions`):
/// the request's, but for `integrity_check`'s cross-check of every index, which no size is
/// asked about.
struct CapacityRequestTests {
    @Test func sizesAreCheckedQuickAtMost() throws {
        let plan = try PlanDecoder.decode(Array("""
            {"name": "items", "steps": [
              {"version": 1, "name": "create items", "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, label TEXT NOT NULL)"},
              {"version": 2, "name": "index labels", "sql": "CREATE INDEX idx_items_label ON items(label)"}]}
            """.utf8))
        for (asked, rehearsed) in [(Verifier.Mode.full, Verifier.Mode.quick), (.quick, .quick), (.off, .off)] {
            let options = RunOptions(watchdogMs: 5_000, freeBytes: 64_000_000, launches: 3, verify: asked, clock: .device)
            let sizeOptions = CapacityRequest(plan: plan, options: options, device: .builtInDefault).sizeOptions
            #expect(sizeOptions.verify == rehearsed)
            var rest = sizeOptions
            rest.verify = asked
            #expect(rest == options, "only verify differs")
        }
    }
}
