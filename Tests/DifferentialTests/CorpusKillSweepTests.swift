import Foundation
import Testing
import TestSupport

/// Two real apps' chains, from their seeded version 1, under `kill_sweep`: killed at 5
/// durable points spread over the run and relaunched, each ends as the uninterrupted run.
@Suite("Differential: kill sweep of corpus apps")
struct CorpusKillSweepTests {
    @Test(arguments: ["wikipedia-android", "siskin-im"])
    func survivesKillsSpreadOverTheRun(app: String) throws {
        let testCase = try Corpus.differentialCase(app)
        let directory = TemporaryDirectory("sweep")
        let input = try Oracle.buildVersionOne(testCase, at: directory.file("input.db"))
        let planPath = directory.file("plan.json")
        try testCase.planDocument.write(to: URL(fileURLWithPath: planPath))
        let result = try PreflightProcess.run(["run", "--db", input.path, "--plan", planPath, "--kill-sweep", "5"])
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stderr)")
        #expect(report["outcome"] as? String == "completed", "\(result.stderr)")
        let sweep = try #require(report["kill_sweep"] as? [String: Any])
        #expect(sweep["points"] as? Int == 5)
        #expect(sweep["survived"] as? Int == 5, "\(app): \(sweep["failures"] ?? [])")
        #expect((sweep["failures"] as? [Any])?.isEmpty == true)
    }
}
