import MigrationCore

/// Fits a `SpeedModel` to timed work: the non-negative costs that make the modelled time of
/// each sample closest to its measured time, each sample weighed by its own time so that a
/// short piece of work counts as much as a long one (least squares on relative errors).
///
/// A cost the samples do not pin keeps its reference value: one whose term the fit drove to
/// zero (it came out negative, or another term stood in for it) and one that explains less
/// than `pinnedShare` of every sample's time, which noise can set to anything. The costs that
/// are pinned are then fitted again with the others held.
struct SpeedFit {
    /// One piece of work and the wall time it took.
    struct Sample {
        var name: String
        var measuredMs: Double
        var work: WorkCounts
    }

    /// What a fit found: the model and which of its costs the samples pinned, by name as a
    /// profile spells it.
    struct Result {
        var speed: SpeedModel
        var held: [String]
    }

    /// The share of some sample's time a term must explain for the data to pin its cost.
    static let pinnedShare = 0.05

    /// The costs' names as a profile spells them, in the order of `features`.
    static let names = [
        "cpu.vm_step_ns", "cpu.sort_ns", "cpu.cache_miss_ns", "cpu.cache_hit_ns", "cpu.collation_ns", "cpu.page_copy_ns",
        "cpu.prepare_ns", "cpu.statement_ns", "cpu.transaction_ns", "storage.read_latency_us", "storage.read_mb_per_s",
        "storage.write_latency_us", "storage.write_mb_per_s", "storage.flush_ms",
    ]

    /// The model's work features, in the order of `model(from:)`'s costs.
    static func features(_ work: WorkCounts) -> [Double] {
        work.cpuFeatures + [
            Double(work.randomReads), Double(work.bytesRead), Double(work.flushedExtents), Double(work.flushedBytes),
            Double(work.syncs),
        ]
    }

    /// The speed model whose costs best explain `samples` (`startMs` is measured apart), with
    /// the costs the samples do not pin at `reference`'s.
    static func fit(_ samples: [Sample], startMs: Double, reference: SpeedModel) -> Result {
        let referenceCosts = costs(of: reference)
        var held = Set<Int>()
        var fitted = referenceCosts
        for _ in 0..<referenceCosts.count {
            let free = referenceCosts.indices.filter { !held.contains($0) }
            let rows = samples.map { sample in
                let all = features(sample.work)
                return free.map { all[$0] / sample.measuredMs }
            }
            let targets = samples.map { sample in
                let all = features(sample.work)
                let heldMs = held.reduce(0) { $0 + all[$1] * referenceCosts[$1] }
                return 1 - heldMs / sample.measuredMs
            }
            let solution = nonNegativeLeastSquares(rows, targets)
            for (index, cost) in zip(free, solution) { fitted[index] = cost }
            let unpinned = free.filter { index in
                fitted[index] <= 0
                    || samples.allSatisfy { features($0.work)[index] * fitted[index] < pinnedShare * $0.measuredMs }
            }
            if unpinned.isEmpty { break }
            for index in unpinned {
                held.insert(index)
                fitted[index] = referenceCosts[index]
            }
        }
        return Result(speed: model(from: fitted, startMs: startMs), held: held.sorted().map { names[$0] })
    }

    /// Milliseconds per unit of each feature of `speed`, in the order of `features`.
    static func costs(of speed: SpeedModel) -> [Double] {
        speed.cpu.costs.map { $0 / 1e6 } + [
            speed.storage.readLatencyUs / 1000, 1 / (speed.storage.readMBPerS * 1000), speed.storage.writeLatencyUs / 1000,
            1 / (speed.storage.writeMBPerS * 1000), speed.storage.flushMs,
        ]
    }

    /// Milliseconds per unit of each feature, as a speed model.
    static func model(from costs: [Double], startMs: Double) -> SpeedModel {
        SpeedModel(
            cpu: SpeedModel.CPU(costs: costs[0..<9].map { $0 * 1e6 }),
            storage: SpeedModel.Storage(
                readMBPerS: 1 / (costs[10] * 1000), writeMBPerS: 1 / (costs[12] * 1000), readLatencyUs: costs[9] * 1000,
                writeLatencyUs: costs[11] * 1000, flushMs: costs[13]),
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
