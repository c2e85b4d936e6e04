import Foundation
import Testing
import TestSupport

/// Two real apps' chains, from their seeded version 1, under `power_loss_sweep` on the
/// shipped profile of their platform: 24 crash states spread over the run, each opened by
/// a fresh launch. Every state is accounted for, and a failing one replays alone, from its
/// point and state, to the same failure.
@Suite("Differential: power-loss sweep of corpus apps")
struct CorpusPowerLossTests {
    @Test(arguments: [("wikipedia-android", "android-35"), ("siskin-im", "ios-18")])
    func everyStateIsAccountedForAndReplaysAlone(app: String, device: String) throws {
        let testCase = try Corpus.differentialCase(app)
        let directory = TemporaryDirectory("power-loss")
        let input = try Oracle.buildVersionOne(testCase, at: directory.file("input.db"))
        let planPath = directory.file("plan.json")
        try testCase.planDocument.write(to: URL(fileURLWithPath: planPath))
        func powerLossSweep(_ states: String) throws -> [String: Any] {
            let result = try PreflightProcess.run([
                "run", "--db", input.path, "--plan", planPath, "--devices-dir", Repository.path("Config/devices"),
                "--device", device, "--power-loss-sweep", states,
            ])
            let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stderr)")
            #expect(report["outcome"] as? String == "completed", "\(result.stderr)")
            return try #require(report["power_loss_sweep"] as? [String: Any])
        }
        let sweep = try powerLossSweep("24")
        let (states, survived) = (sweep["states"] as? Int ?? 0, sweep["survived"] as? Int ?? 0)
        let failures = sweep["failures"] as? [[String: Any]] ?? []
        #expect((12...24).contains(states))
        #expect(survived + failures.count == states)
        let kinds: Set<String> = ["version_rolled_back", "corruption", "data_lost", "relaunch_failed"]
        #expect(failures.allSatisfy { kinds.contains($0["kind"] as? String ?? "") }, "\(failures)")
        guard let first = failures.first, let point = first["point"] as? Int, let state = first["state"] as? String else { return }
        let alone = try powerLossSweep("\(point):\(state)")
        #expect(alone["states"] as? Int == 1)
        let replayed = try #require((alone["failures"] as? [[String: Any]])?.first)
        #expect(replayed["kind"] as? String == first["kind"] as? String)
        #expect(replayed["message"] as? String == first["message"] as? String)
    }
}
