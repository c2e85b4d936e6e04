import MigrationCore

/// What the sizes that completed in one launch say about larger ones, on the device clock
/// (where a file's cost is a function of the file alone): lines through the first launch's
/// time, each step's time and the files' peak growth, through the largest sizes that
/// completed (the nearest to the boundary, and far from the small sizes whose cost is
/// mostly what any launch costs). It predicts which sizes hold; the direct runs that
/// confirm a prediction, not the model, decide the answer.
///
/// A cost per row that grows with the rows (an index's sort; a table that outgrows the
/// page cache and starts missing it) bends the first launch's time upward, and a straight
/// line through the two largest sizes then places the boundary too far. Where the three
/// largest completed sizes (at least `spacing` apart) bend upward, and the curve through
/// them (a parabola) also meets a fourth, the first launch is read from that curve, and its
/// line is the chord of the curve from the largest size to where the curve reaches the
/// watchdog: exact at both ends, the two places a prediction is read.
struct CapacityModel {
    /// The first launch's device time: the whole path plus the launch's own start.
    let launch: CostLine
    /// Whether that line is likely to place the boundary too far: it passes below a smaller
    /// completed size it was not drawn through, by more than `curveTolerance` of the
    /// watchdog (or there is none to compare), so that costs bend upward where the line
    /// does not follow them. A line that meets that size, or the curve that meets a fourth,
    /// is read as it is; one that passes above it (costs that bend downward: a cost that
    /// jumped below the sizes the line is drawn through, as where a table outgrew the page
    /// cache) places the boundary short of the truth, if anywhere.
    let overreaches: Bool
    /// Each step's device time, in the plan's order.
    let steps: [(version: Int, cost: CostLine, resumable: Bool)]
    /// The database's files' peak growth over the run.
    let growth: CostLine?
    let watchdogMs: Double?
    let freeBytes: Double?
    let launches: Int
    let runner: Runner

    /// How many of the largest completed sizes the lines go through.
    static let fittedSizes = 2
    /// The first launch is read from sizes at least this ratio apart: between nearby sizes
    /// its cost is uneven (a batch more to commit, a page more in the tree), which would
    /// tilt a line through them.
    static let spacing = 1.2
    /// The curve is used only where it also meets a fourth size, within this share of the
    /// watchdog: a cost that jumps between small sizes bends a curve through them far more
    /// than the costs near the boundary do.
    static let curveTolerance = 0.03

    /// Nil with fewer than two measured sizes (a line needs two), or off the device clock.
    init?(points: [CapacityPoint], plan: Plan, options: RunOptions, fromVersion: Int) {
        let measured = points.filter { Self.measuresWholePath($0, runner: plan.runner) && $0.deviceMs != nil }
            .sorted { $0.rows < $1.rows }.suffix(Self.fittedSizes)
        guard measured.count >= 2, options.clock == .device,
            let line = CostFit.line(measured.compactMap { point in point.deviceMs.map { (Double(point.rows), Double($0)) } })
        else { return nil }
        let firstLaunch = Self.firstLaunch(Self.spaced(points.filter { $0.outcome == .completed }), watchdogMs: options.watchdogMs)
        launch = firstLaunch?.line ?? line
        overreaches = firstLaunch?.overreaches ?? true
        var steps: [(Int, CostLine, Bool)] = []
        for step in plan.migrationPath(from: fromVersion, to: options.target ?? plan.newestVersion) ?? [] {
            let measured = measured.map { point in
                (Double(point.rows), Double(point.steps.filter { $0.version == step.version }.compactMap(\.deviceMs).reduce(0, +)))
            }
            guard let line = CostFit.line(measured) else { return nil }
            steps.append((step.version, line, RewrittenTable.isResumable(step.action)))
        }
        self.steps = steps
        growth = CostFit.line(measured.compactMap { point in
            point.peakBytes.map { (Double(point.rows), Double($0 - point.bytes)) }
        })
        watchdogMs = options.watchdogMs.map(Double.init)
        freeBytes = options.freeBytes.map(Double.init)
        launches = options.launches
        runner = plan.runner
    }

    /// Completed sizes' first launches from the largest down, each at most `1 / spacing` of
    /// the one before.
    static func spaced(_ points: [CapacityPoint]) -> [(x: Double, y: Double)] {
        var result: [(x: Double, y: Double)] = []
        for point in points.sorted(by: { $0.rows > $1.rows }) {
            guard let ms = point.deviceMs else { continue }
            if let last = result.last, Double(point.rows) * spacing > last.x { continue }
            result.append((Double(point.rows), Double(ms)))
        }
        return result
    }

    /// The first launch's line from `spaced` sizes (largest first): the chord of the parabola
    /// through the three largest, from the largest to where it reaches the watchdog, when
    /// they bend upward and the parabola meets the fourth; else the line through the two
    /// largest. `overreaches`: whether it passes below the next size, or has none to meet
    /// (`overreaches` of the model). Nil with fewer than two.
    static func firstLaunch(_ spaced: [(x: Double, y: Double)], watchdogMs: Int?) -> (line: CostLine, overreaches: Bool)? {
        guard spaced.count >= 2, let line = CostFit.line([spaced[1], spaced[0]]) else { return nil }
        guard let watchdogMs, spaced.count >= 3 else { return (line, true) }
        if spaced.count >= 4,
            let chord = chord(through: [spaced[2], spaced[1], spaced[0]], reaching: Double(watchdogMs), meeting: spaced[3])
        {
            return (chord, false)
        }
        return (line, spaced[2].y - line.at(Int(spaced[2].x)) > curveTolerance * Double(watchdogMs))
    }

    /// The chord from the largest of three sizes (in increasing order) to where the parabola
    /// through them reaches `watchdogMs`; nil unless they bend upward, stay below it, and
    /// the parabola passes within `curveTolerance` of the watchdog from `check`.
    static func chord(
        through points: [(x: Double, y: Double)], reaching watchdogMs: Double, meeting check: (x: Double, y: Double)
    ) -> CostLine? {
        guard points.count == 3 else { return nil }
        let (a, b, c) = (points[0], points[1], points[2])
        guard a.x < b.x, b.x < c.x, c.y < watchdogMs else { return nil }
        let lower = (b.y - a.y) / (b.x - a.x)
        let upper = (c.y - b.y) / (c.x - b.x)
        // y = c.y + slope * d + bend * d^2, d = x - c.x
        let bend = (upper - lower) / (c.x - a.x)
        let slope = upper + bend * (c.x - b.x)
        guard bend > 0, slope > 0 else { return nil }
        let away = check.x - c.x
        guard abs(c.y + slope * away + bend * away * away - check.y) <= curveTolerance * watchdogMs else { return nil }
        let rise = watchdogMs - c.y
        let reach = (-slope + (slope * slope + 4 * bend * rise).squareRoot()) / (2 * bend)
        guard reach > 0, reach.isFinite else { return nil }
        let perRow = rise / reach
        return CostLine(fixed: c.y - perRow * c.x, perRow: perRow)
    }

    /// Whether a size's device time together is the whole path's, run once: when it completed
    /// in one launch, or got there after kills where each step commits (a kill then loses
    /// only the batch or step in progress, which the next launch redoes; its own start and
    /// that redone part are small beside the path).
    static func measuresWholePath(_ point: CapacityPoint, runner: Runner) -> Bool {
        point.outcome == .completed || (point.outcome == .completedAfterKills && runner.commitsEachStep)
    }

    /// Whether `rows` holds `boundary` by the model.
    func holds(_ boundary: CapacitySearch.Boundary, rows: Int) -> Bool {
        switch boundary {
        case .completes: return completes(rows)
        case .reachesTarget: return reachesTarget(rows)
        }
    }

    /// The first launch ends inside the watchdog, and the files never outgrow the free space.
    func completes(_ rows: Int) -> Bool {
        fitsSpace(rows) && watchdogMs.map { launch.at(rows) < $0 } ?? true
    }

    /// The launches get there: a launch applies whole steps (and batches of a resumable
    /// step) until its watchdog; a step commits with its version only where the runner
    /// commits each step, else a killed launch keeps nothing and the next does the same.
    func reachesTarget(_ rows: Int) -> Bool {
        guard fitsSpace(rows) else { return false }
        guard let watchdogMs, !completes(rows) else { return true }
        guard runner.commitsEachStep else { return false }
        let overhead = max(0, launch.at(rows) - steps.map { $0.cost.at(rows) }.reduce(0, +))
        var left = steps.map { max(0, $0.cost.at(rows)) }
        guard !left.isEmpty else { return true }
        var index = 0
        for _ in 0..<launches {
            var clock = overhead
            let before = (index, left[min(index, left.count - 1)])
            while index < left.count {
                if clock + left[index] < watchdogMs {
                    clock += left[index]
                    index += 1
                } else {
                    if steps[index].resumable { left[index] -= max(0, watchdogMs - clock) }
                    break
                }
            }
            if index == left.count { return true }
            // A launch that made no durable progress is a crash loop.
            if before == (index, left[index]) { return false }
        }
        return false
    }

    private func fitsSpace(_ rows: Int) -> Bool {
        guard let freeBytes, let growth else { return true }
        return growth.at(rows) <= freeBytes
    }

    /// The smallest size above `held` (which holds) and below `broke` (which does not, or
    /// nil) that the model says does not hold; nil when every size up to `maxRows` holds.
    func firstBreaking(_ boundary: CapacitySearch.Boundary, above held: Int, below broke: Int?, maxRows: Int) -> Int? {
        var high: Int
        if let broke {
            high = broke
        } else {
            // Double until a size breaks by the model.
            high = max(held + 1, held * 2)
            while holds(boundary, rows: high) {
                if high >= maxRows { return nil }
                high = min(maxRows, high * 2)
            }
        }
        var low = held
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if holds(boundary, rows: middle) { low = middle } else { high = middle }
        }
        return high
    }
}
