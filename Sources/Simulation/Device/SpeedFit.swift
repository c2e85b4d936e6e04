import MigrationCore

/// Fits a `SpeedModel` to timed work: the non-negative costs that make the modelled time of
/// each sample closest to its measured time, each sample weighed by its own time so that a
/// short piece of work counts as much as a long one (least squares on relative errors).
struct SpeedFit {
    /// One piece of work and the wall time it took.
    struct Sample {
        var name: String
        var measuredMs: Double
        var work: WorkCounts
    }

    /// The model's work features, in the order of `model(from:)`'s costs.
    static func features(_ work: WorkCounts) -> [Double] {
        [
            Double(work.sqlite.vmSteps), Double(work.sqlite.sortWork), Double(work.sqlite.cacheMisses),
            Double(work.sqlite.cacheHits), Double(work.sqlite.collations),
            Double(work.randomReads), Double(work.bytesRead), Double(work.flushedExtents), Double(work.bytesWritten),
            Double(work.syncs),
        ]
    }

    /// The speed model whose costs best explain `samples` (`startMs` is measured apart).
    static func fit(_ samples: [Sample], startMs: Double) -> SpeedModel {
        let rows = samples.map { sample in features(sample.work).map { $0 / sample.measuredMs } }
        let costs = nonNegativeLeastSquares(rows, Array(repeating: 1.0, count: samples.count))
        return model(from: costs, startMs: startMs)
    }

    /// Milliseconds per unit of each feature, as a speed model. A rate whose cost came out
    /// zero (nothing in the samples needed it) is taken as fast as the fastest storage.
    static func model(from costs: [Double], startMs: Double) -> SpeedModel {
        let fastestMBPerS = 100_000.0
        func rate(_ msPerByte: Double) -> Double { msPerByte > 0 ? min(fastestMBPerS, 1 / (msPerByte * 1000)) : fastestMBPerS }
        return SpeedModel(
            cpu: SpeedModel.CPU(
                vmStepNs: costs[0] * 1e6, sortNs: costs[1] * 1e6, cacheMissNs: costs[2] * 1e6, cacheHitNs: costs[3] * 1e6,
                collationNs: costs[4] * 1e6),
            storage: SpeedModel.Storage(
                readMBPerS: rate(costs[6]), writeMBPerS: rate(costs[8]), readLatencyUs: costs[5] * 1000,
                writeLatencyUs: costs[7] * 1000, flushMs: costs[9]),
            startMs: startMs)
    }

    /// Minimises |A x - b| with x >= 0, by cyclic coordinate descent on the normal
    /// equations, columns scaled to unit length (a handful of unknowns; it converges well
    /// within the sweeps given).
    static func nonNegativeLeastSquares(_ a: [[Double]], _ b: [Double], sweeps: Int = 20_000) -> [Double] {
        guard let width = a.first?.count else { return [] }
        let scale = (0..<width).map { column in
            let norm = a.reduce(0) { $0 + $1[column] * $1[column] }.squareRoot()
            return norm > 0 ? norm : 1
        }
        let scaled = a.map { row in (0..<width).map { row[$0] / scale[$0] } }
        var gram = Array(repeating: Array(repeating: 0.0, count: width), count: width)
        var projection = Array(repeating: 0.0, count: width)
        for (row, target) in zip(scaled, b) {
            for i in 0..<width {
                projection[i] += row[i] * target
                for j in 0..<width { gram[i][j] += row[i] * row[j] }
            }
        }
        var x = Array(repeating: 0.0, count: width)
        for _ in 0..<sweeps {
            var moved = 0.0
            for i in 0..<width where gram[i][i] > 0 {
                var gradient = projection[i]
                for j in 0..<width where j != i { gradient -= gram[i][j] * x[j] }
                let next = max(0, gradient / gram[i][i])
                moved = max(moved, abs(next - x[i]))
                x[i] = next
            }
            if moved < 1e-12 { break }
        }
        return (0..<width).map { x[$0] / scale[$0] }
    }
}
