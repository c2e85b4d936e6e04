import Testing
@testable import MigrationCore
@testable import Simulation

/// `preflight calibrate`'s fit: the costs the timings pin are fitted, and a cost they do not
/// pin keeps the reference machine's value, never 0.
@Suite("Speed fit")
struct SpeedFitTests {
    /// Work of `steps` instructions, `misses` page-cache misses each a re-read of a cached
    /// page (as on a machine whose page cache holds the whole file: the two counts move
    /// together, so no timing can tell their costs apart), `syncs` syncs, and 40 comparisons
    /// through a collation, whose cost is far under 5% of any piece's time.
    private func work(steps: Int64, misses: Int64, syncs: Int64) -> WorkCounts {
        var work = WorkCounts()
        work.sqlite.vmSteps = steps
        work.sqlite.cacheMisses = misses
        work.cachedPages = misses
        work.sqlite.collations = 40
        work.syncs = syncs
        return work
    }

    @Test func aCostTheTimingsDoNotPinKeepsItsReferenceValue() {
        let reference = SpeedModel.referenceMachine
        // This machine: instructions half again dearer than the reference's, every other
        // cost the reference's.
        var machine = reference
        machine.cpu.vmStepNs *= 1.5
        let samples = [
            work(steps: 2_000_000, misses: 1_000, syncs: 2), work(steps: 500_000, misses: 20_000, syncs: 10),
            work(steps: 8_000_000, misses: 5_000, syncs: 200), work(steps: 100_000, misses: 50_000, syncs: 1),
            work(steps: 3_000_000, misses: 0, syncs: 500),
        ].enumerated().map { index, work in
            SpeedFit.Sample(name: "piece \(index)", measuredMs: machine.time(of: work).totalMs, work: work)
        }
        let fit = SpeedFit.fit(samples, startMs: 0, reference: reference)

        let vmStep = fit.speed.cpu.vmStepNs
        #expect(abs(vmStep - machine.cpu.vmStepNs) / machine.cpu.vmStepNs < 0.01, "\(vmStep) ns an instruction")
        #expect(abs(fit.speed.storage.flushMs - reference.storage.flushMs) / reference.storage.flushMs < 0.01)
        #expect(fit.speed.cpu.costs.allSatisfy { $0 > 0 }, "\(fit.speed.cpu.costs)")
        #expect(fit.speed.storage.readLatencyUs > 0 && fit.speed.storage.writeLatencyUs > 0)
        // Work the pieces never did, and comparisons too few to pin their cost.
        for held in ["cpu.sort_ns", "cpu.collation_ns", "cpu.prepare_ns", "storage.read_latency_us"] {
            #expect(fit.held.contains(held), "\(held) not named among \(fit.held)")
        }
        #expect(fit.speed.cpu.sortNs == reference.cpu.sortNs)
        #expect(fit.speed.cpu.collationNs == reference.cpu.collationNs)
        #expect(!fit.held.contains("cpu.vm_step_ns") && !fit.held.contains("storage.flush_ms"))
        // The pieces' times are explained: the miss and the copy together cost what they cost.
        for sample in samples {
            let modelled = fit.speed.time(of: sample.work).totalMs
            #expect(abs(modelled - sample.measuredMs) / sample.measuredMs < 0.01, "\(sample.name): \(modelled) against \(sample.measuredMs)")
        }
    }
}
