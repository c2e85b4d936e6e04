import Foundation
import Simulation
import Testing
@testable import PreflightService

/// The capacity chart's labels at the right edge: lines that end close together (or at the
/// watchdog's line) still get names that can be read.
@Suite struct CapacityChartTests {
    @Test func labelsCloserThanALineMoveApartInTheirOrder() {
        let placed = CapacityChart.spread([100, 102, 101], gap: 17, within: 17...300)
        #expect(placed == [100, 134, 117])
        // Pushed past the bottom: moved back up from it, still apart and in order.
        #expect(CapacityChart.spread([295, 296, 297], gap: 17, within: 17...300) == [266, 283, 300])
        // Far enough apart already: left where they are.
        #expect(CapacityChart.spread([40, 200], gap: 17, within: 17...300) == [40, 200])
    }

    /// Two steps that took the same device time at every size and a deadline just above
    /// them: three labels where one line's name would be printed over the others. The answer
    /// is a search's on the device clock, whose steps carry the device's time beside the few
    /// milliseconds this machine took: the chart draws the device's, against its watchdog.
    @Test func stepsEndingTogetherKeepReadableNames() throws {
        let steps = [CapacityPoint.StepCost(version: 2, elapsedMs: 9, deviceMs: 300, peakBytes: nil),
                     CapacityPoint.StepCost(version: 3, elapsedMs: 9, deviceMs: 300, peakBytes: nil)]
        let points = [1_000, 4_000].map { rows in
            var point = CapacityPoint(
                rows: rows, bytes: Int64(rows) * 100, outcome: .completed, launches: 1, elapsedMs: 18, peakBytes: nil, steps: steps)
            point.deviceMs = 650
            return point
        }
        let answer = CapacityAnswer(
            plan: "notes", device: "android-30", runner: .perStep, fromVersion: 1, table: "notes", points: points,
            limit: nil, fit: [])
        let svg = CapacityChart.svg(answer, deadlineMs: 310)
        let baselines = try Regex(#"class="capacity-label" x="[0-9.]+" y="([0-9.]+)""#)
        let ys = svg.matches(of: baselines).compactMap { Double($0.output[1].substring ?? "") }.sorted()
        #expect(ys.count == 3, "\(svg)")
        for (upper, lower) in zip(ys, ys.dropFirst()) {
            #expect(lower - upper >= CapacityChart.labelGap - 0.01, "\(ys)")
        }
        #expect(svg.contains(">v2</text>") && svg.contains(">v3</text>") && svg.contains(">watchdog 310 ms</text>"))
        #expect(svg.contains("v2: 4,000 rows, 300 ms, completed</title>"), "the step's device time, not this machine's")
    }

    /// A predicted answer draws its predicted first launch, the predicted boundary and each
    /// confirming run, marked by whether it agreed.
    @Test func predictionAndConfirmingRuns() throws {
        let steps = [CapacityPoint.StepCost(version: 2, elapsedMs: 9, deviceMs: 300, peakBytes: nil)]
        let points = [(1_000, Outcome.completed), (9_800, .completed), (10_200, .crashLoop)].map { rows, outcome in
            var point = CapacityPoint(
                rows: rows, bytes: Int64(rows) * 100, outcome: outcome, launches: 1, elapsedMs: 18, peakBytes: nil, steps: steps)
            point.deviceMs = 400
            return point
        }
        let confirmations = [
            CapacityConfirmation(
                boundary: .completes, predictedRows: 10_000, rows: 9_800, predictedToHold: true, outcome: .completed,
                predictedMs: 490, deviceMs: 495, errorPercent: -1),
            CapacityConfirmation(
                boundary: .completes, predictedRows: 10_000, rows: 10_200, predictedToHold: false, outcome: .completed,
                predictedMs: 510, deviceMs: 505, errorPercent: 1),
        ]
        let answer = CapacityAnswer(
            plan: "notes", device: "android-30", runner: .perStep, fromVersion: 1, table: "notes", points: points,
            limit: nil, fit: [], method: .searched,
            prediction: CapacityPrediction(
                launchMs: CostLine(fixed: 0, perRow: 0.05), rows: 10_000, reachesTargetRows: nil, confirmations: confirmations))
        let svg = CapacityChart.svg(answer, deadlineMs: 500)
        #expect(svg.contains("class=\"capacity-predicted\""))
        #expect(svg.contains("class=\"capacity-predicted-boundary\""))
        #expect(svg.contains(">predicted 10,000</text>"))
        #expect(svg.contains("class=\"capacity-confirmation\" data-agrees=\"true\""))
        #expect(svg.contains("class=\"capacity-confirmation\" data-agrees=\"false\""))
        #expect(confirmations.map(\.agrees) == [true, false])
        let text = CapacityRendering.predictionLines(answer).joined(separator: "\n")
        #expect(text.contains("first size not completing: 10,000"))
        #expect(text.contains("error -1.0%  agrees"))
        #expect(text.contains("disagrees"))
        #expect(text.contains("method searched"))
    }
}
