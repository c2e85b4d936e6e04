import Foundation
import MigrationCore
import Testing

/// Random but valid schema histories (`HistoryGenerator`) run through the real
/// `preflight run` and through plain SQLite, which must end alike.
///
/// Environment:
/// - `PREFLIGHT_DIFF_SEED=S`: run only seed S (to replay a failure);
/// - `PREFLIGHT_DIFF_CASES=N`: how many seeds (default `GeneratedPlanTests.defaultCount`);
/// - `PREFLIGHT_DIFF_FIRST_SEED=S`: the first of them (default 1).
@Suite struct GeneratedPlanTests {
    /// Each seed costs two `preflight run` processes and two oracle runs, about 0.5 s of
    /// CPU (debug build): 200 seeds take some 50 s on two otherwise idle cores.
    static let defaultCount = 200

    static let seeds: [UInt64] = {
        let environment = ProcessInfo.processInfo.environment
        if let text = environment["PREFLIGHT_DIFF_SEED"], let seed = UInt64(text) { return [seed] }
        let count = environment["PREFLIGHT_DIFF_CASES"].flatMap { Int($0) }.map { max(0, $0) } ?? defaultCount
        let first = environment["PREFLIGHT_DIFF_FIRST_SEED"].flatMap { UInt64($0) } ?? 1
        return (0..<UInt64(count)).map { first + $0 }
    }()

    static func replay(_ seed: UInt64) -> String {
        "replay: PREFLIGHT_DIFF_SEED=\(seed) swift test --filter GeneratedPlanTests"
    }

    @Test("Preflight and plain SQLite end alike", arguments: seeds)
    func agreesWithPlainSQLite(seed: UInt64) {
        let history = HistoryGenerator.generate(seed: seed)
        for start in Differential.Start.allCases {
            do {
                let found = try Differential.discrepancies(history.testCase, from: start)
                #expect(
                    found.isEmpty,
                    "seed \(seed), \(start.rawValue) start, constructs \(history.constructs.map(\.rawValue)):\n\(found.joined(separator: "\n"))\n\(Self.replay(seed))")
            } catch {
                Issue.record("seed \(seed), \(start.rawValue) start: the run could not be compared: \(error)\n\(Self.replay(seed))")
            }
        }
    }

    @Test("The same seed gives the same history")
    func deterministic() {
        for seed: UInt64 in [0, 1, 2, 17, 1234, 99_999, UInt64.max] {
            let first = HistoryGenerator.generate(seed: seed)
            let second = HistoryGenerator.generate(seed: seed)
            #expect(first.testCase.planDocument == second.testCase.planDocument, "seed \(seed)")
            #expect(first.testCase.oracleSteps == second.testCase.oracleSteps, "seed \(seed)")
            #expect(first.testCase.seedSQL == second.testCase.seedSQL, "seed \(seed)")
            #expect(first.constructs == second.constructs, "seed \(seed)")
        }
        #expect(
            HistoryGenerator.generate(seed: 1).testCase.planDocument
                != HistoryGenerator.generate(seed: 2).testCase.planDocument)
    }

    @Test("200 seeds cover every construct the generator knows")
    func coversEveryConstruct() {
        var seen: Set<Construct> = []
        for seed: UInt64 in 1...200 { seen.formUnion(HistoryGenerator.generate(seed: seed).constructs) }
        let missing = Construct.allCases.filter { !seen.contains($0) }
        #expect(missing.isEmpty, "never emitted in seeds 1...200: \(missing.map(\.rawValue))")
    }

    @Test("Every generated plan is one Preflight accepts, with an oracle step per version")
    func plansDecode() {
        for seed: UInt64 in 1...200 {
            let history = HistoryGenerator.generate(seed: seed)
            do {
                let plan = try PlanDecoder.decode(Array(history.testCase.planDocument))
                #expect(plan.steps.count == history.testCase.oracleSteps.count, "seed \(seed)")
                #expect(history.testCase.oracleSteps.allSatisfy { !$0.isEmpty }, "seed \(seed)")
            } catch {
                Issue.record("seed \(seed): the plan is rejected: \(error)\n\(Self.replay(seed))")
            }
        }
    }
}
