import MigrationCore
import Simulation
import Testing
@testable import PreflightService

/// The capacity answer's text for people, on answers built here: what the verdict says
/// when the search could not finish, and numbers without a "-0".
@Suite struct CapacityVerdictTests {
    static let plan = """
        {"name": "notes", "steps": [
          {"version": 1, "name": "create", "sql": "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT)"},
          {"version": 2, "name": "rewrite", "sql": "UPDATE notes SET title = upper(title)"}]}
        """

    static func point(_ rows: Int, _ outcome: Outcome) -> CapacityPoint {
        var point = CapacityPoint(
            rows: rows, bytes: Int64(rows) * 100, outcome: outcome, launches: outcome == .completed ? 1 : 2,
            elapsedMs: rows / 10, peakBytes: nil, steps: [])
        if outcome != .completed { point.brokenStep = 2 }
        return point
    }

    /// Past the first boundary the app still got there after kills at every larger size, and
    /// time ran out before a size where it does not: the verdict says the search stopped there.
    @Test func aSecondBoundaryCutByTimeSaysSo() throws {
        let plan = try PlanDecoder.decode(Array(Self.plan.utf8))
        var answer = CapacityAnswer(
            plan: "notes", device: "android-30", runner: .perStep, fromVersion: 1, table: "notes",
            points: [Self.point(1_000, .completed), Self.point(1_100, .completedAfterKills), Self.point(4_000, .completedAfterKills)],
            limit: CapacityLimit(rows: 1_100, bytes: 110_000, outcomeBeyond: .completedAfterKills, step: 2, reason: .narrowed),
            fit: [])
        answer.stoppedBy = .maxSeconds
        let verdict = CapacityRendering.verdict(answer, plan: plan)
        #expect(verdict.hasSuffix("it completes after kills up to 4,000 (390.6 KiB), the largest size tried before the max seconds ran out"), "\(verdict)")
        answer.stoppedBy = nil
        answer.points.append(Self.point(16_000, .crashLoop))
        #expect(CapacityRendering.verdict(answer, plan: plan).hasSuffix(", then v2 crash-loops"))
    }

    @Test func aFitAroundZeroIsShownAsZero() {
        #expect(CapacityRendering.number(-0.000_000_01) == "0")
        #expect(CapacityRendering.number(-0.000_007) == "0")
        #expect(CapacityRendering.number(0) == "0")
        #expect(CapacityRendering.number(0.003955) == "0.003955")
        #expect(CapacityRendering.number(96.5612) == "96.56")
    }
}
