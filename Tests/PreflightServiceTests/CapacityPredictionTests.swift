import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

/// Predict then confirm (issue 32) against the exhaustive bisection to 1% (`--bisect 1`), on
/// the slow phone's device clock: both methods see the same device time for the same file
/// on any machine, so the boundaries compared are the same everywhere. Nothing here asserts a
/// time of this machine.
@Suite(.serialized)
struct CapacityPredictionTests {
    private let directory = TemporaryDirectory("capacity-prediction")
    private let onSlowPhone: [String]

    init() throws {
        onSlowPhone = try SlowPhone.arguments(in: directory)
    }

    /// A plan of one step over `items`: a rewrite of every row (linear in the rows), or an
    /// index build (a sort: n log n).
    private func plan(_ name: String, step: String) throws -> String {
        let path = directory.file(name + ".json")
        try """
            {"name": "\(name)", "steps": [
              {"version": 1, "name": "create items", "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, label TEXT NOT NULL)"},
              {"version": 2, "name": "\(name)", "sql": "\(step)"}]}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func capacity(_ plan: String, _ arguments: [String]) throws -> CapacityAnswer {
        let result = try PreflightProcess.run(["capacity", "--plan", plan, "--launches", "2"] + onSlowPhone + arguments)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        return try JSONDecoder().decode(CapacityAnswer.self, from: result.stdout)
    }

    /// The predicted boundary is within 5% of the exhaustive one; the answer is honest about
    /// how it was found: a `predicted_and_confirmed` answer's limit and the size that held
    /// below it were settled by its last confirming runs; a `searched` one shows the
    /// confirmation that disagreed.
    private func compare(_ plan: String, watchdogMs: Int) throws -> CapacityAnswer {
        let options = ["--watchdog-ms", String(watchdogMs)]
        let predicted = try capacity(plan, options)
        let exhaustive = try capacity(plan, options + ["--bisect", "1"])
        #expect(exhaustive.method == .searched)
        #expect(exhaustive.prediction == nil)
        let found = try #require(predicted.limit).rows
        let reference = try #require(exhaustive.limit).rows
        let error = abs(Double(found - reference)) / Double(reference)
        #expect(error <= 0.05, "predicted \(found), exhaustive \(reference)")
        let prediction = try #require(predicted.prediction)
        #expect(!prediction.confirmations.isEmpty)
        switch predicted.method {
        case .predictedAndConfirmed:
            // The last confirmation agreed and is one end of the bracket answered: the size
            // found breaking, within 5% above the largest that completed.
            let held = try #require(predicted.points.filter { $0.rows < found && $0.outcome == .completed }.map(\.rows).max())
            #expect(Double(found) <= Double(held) * 1.05)
            let last = try #require(prediction.confirmations.last)
            #expect(last.agrees, "\(prediction.confirmations)")
            #expect(last.rows == found || last.rows == held)
        case .searched:
            #expect(prediction.confirmations.contains { !$0.agrees })
        }
        // Each agreeing run that held says how far the predicted first launch was off; a
        // held run's measured time is whole, so the error is there to read.
        for confirmation in prediction.confirmations where confirmation.outcome == .completed {
            #expect(confirmation.errorPercent != nil)
        }
        // The exhaustive search tried more sizes than the prediction needed.
        #expect(exhaustive.points.count > predicted.points.count)
        return predicted
    }

    @Test func linearRewriteIsPredictedAndConfirmed() throws {
        let rewrite = try plan("rewrite", step: "UPDATE items SET label = substr(label, 2) || substr(label, 1, 1)")
        let answer = try compare(rewrite, watchdogMs: 500)
        #expect(answer.method == .predictedAndConfirmed)
    }

    /// An index build sorts: its cost per row grows with the rows. The method confirms or
    /// falls back, and says which, within 5% either way.
    @Test func indexBuildConfirmsOrFallsBack() throws {
        _ = try compare(try plan("index", step: "CREATE INDEX idx_items_label ON items(label)"), watchdogMs: 2000)
    }
}
