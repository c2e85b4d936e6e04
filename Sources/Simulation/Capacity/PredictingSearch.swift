import MigrationCore

/// Which size to try next when the device clock makes a size's cost a function of the file
/// alone (issue 32): measure a few sizes (`firstSizes`, then the search's own geometric
/// steps, until a first launch takes a good part of the watchdog), fit the costs
/// (`CapacityModel`), predict the boundary, and confirm it with one run just below and one
/// just above, which may run side by side (`sideBySide`). A prediction far beyond the sizes
/// that held, by a line that places it too far (`CapacityModel.overreaches`), is scouted
/// first, at about two thirds of it: the nearer the sizes measured, the less a cost that
/// bends shifts the prediction, and a pair beyond the boundary would break twice, each at a
/// watchdog's cost (a scout held back short of that, to a doubling, has a bolder one beside
/// it). Any other prediction is confirmed at once: where that pair holds twice, it has
/// measured the cost next to the boundary, closer than a scout would have. When a
/// confirmation disagrees, the costs are fitted again with
/// the runs it added (now near the boundary) and predicted once more, and only the side not
/// yet bracketed within the precision is run again; a prediction at or beyond a size that
/// broke is confirmed by one run as far below that size as still brackets it. After
/// `rounds` predictions `CapacitySearch` bisects from every size tried, and the answer says
/// it searched.
///
/// Where the launches run out (beyond the first boundary, when the app still gets there
/// after kills) is predicted by the model and not run: its sizes are several times the
/// first boundary's, each rehearsed through every launch, which would cost many times the
/// answer itself. `--bisect` searches it.
///
/// Without a prediction (`predicts` false: the wall clock, or `--bisect`) this is
/// `CapacitySearch` alone.
struct PredictingSearch {
    private(set) var search: CapacitySearch
    let predicts: Bool
    let plan: Plan
    let options: RunOptions
    let fromVersion: Int

    /// Completed sizes measured before the first prediction, at least.
    static let measuredSizes = 3
    /// The measuring's first sizes, as multiples of the first: the first, and its second
    /// geometric step with half of it (in place of the first step), where the measuring
    /// ends for a boundary within a few steps, so that a line through the two largest spans
    /// a doubling, not a four-fold step: a cost that bends between them (a table outgrowing
    /// the page cache) tilts it far less. Side by side they take about the largest one's
    /// time, each rehearsal mostly its processes' starts.
    static let firstSizes = [1, 8, 16]
    /// The measuring goes on until a first launch takes this share of the watchdog.
    static let measuredShare = 0.25
    /// A confirming run lies this ratio below or above the predicted boundary, so that the
    /// two agreeing bracket it within `margin * margin`, inside `precision`.
    static let margin = 1.022
    /// The search's precision when it predicts: an agreeing pair of confirmations is narrowed
    /// by it, and a fallback bisects as closely.
    static let precision = 1.05
    /// Predictions per boundary before the search bisects.
    static let rounds = 3
    /// A prediction further than this ratio beyond the largest size that held is scouted
    /// first.
    static let reach = 1.8
    /// The scout's size, as a share of the prediction (and at most a doubling of the largest
    /// size that held).
    static let scoutShare = 0.69

    private(set) var points: [Int: CapacityPoint] = [:]
    private(set) var confirmations: [CapacityConfirmation] = []
    /// The last prediction of each boundary (nil value: held to the largest size by the model).
    private(set) var predicted: [CapacityBoundary: Int?] = [:]
    /// Boundaries left to the bisection.
    private(set) var searched: Set<CapacityBoundary> = []
    /// The model of the last prediction.
    private(set) var model: CapacityModel?
    private var pending: [(rows: Int, boundary: CapacityBoundary, predictedRows: Int, holds: Bool)] = []
    /// Confirming sizes handed out to run side by side: each is recorded as a confirmation
    /// whatever the others found.
    private var running: Set<Int> = []
    private var roundsTaken: [CapacityBoundary: Int] = [:]
    /// The scout `next()` answered, when it was held back from the share of the prediction,
    /// and the bolder scout to rehearse beside it.
    private var boldScout: (scout: Int, beside: Int)?

    init(request: CapacityRequest, fromVersion: Int) {
        predicts = request.bisectPercent == nil && request.options.clock == .device
        let precision = request.bisectPercent.map { 1 + $0 / 100 } ?? (predicts ? Self.precision : CapacitySearch.defaultPrecision)
        search = CapacitySearch(startRows: request.startRows, maxRows: request.maxRows, precision: precision)
        plan = request.plan
        options = request.options
        self.fromVersion = fromVersion
    }

    /// `predicted_and_confirmed` when a prediction settled every boundary narrowed.
    var method: CapacityAnswer.Method {
        predicts && searched.isEmpty && !confirmations.isEmpty ? .predictedAndConfirmed : .searched
    }

    mutating func next() -> CapacitySearch.Decision {
        if let confirming = pending.first { return .tryRows(confirming.rows) }
        boldScout = nil
        running.removeAll()
        let boundary = search.currentBoundary()
        let plain = search.next(boundary)
        guard predicts, !searched.contains(boundary), case .tryRows = plain else { return plain }
        let (held, broke) = search.bracket(boundary)
        if boundary == .reachesTarget {
            // Refitted with the sizes beyond the first boundary; the answer's line stays the
            // one its confirming runs checked.
            let refitted = CapacityModel(points: Array(points.values), plan: plan, options: options, fromVersion: fromVersion)
            predicted[.reachesTarget] = held.flatMap { held in
                (refitted ?? model)?.firstBreaking(.reachesTarget, above: held, below: broke, maxRows: search.maxRows)
            }
            return .narrowed
        }
        if broke == nil, let first = firstSizes.first(where: { search.tried[$0] == nil }) { return .tryRows(first) }
        let completed = points.values.filter { $0.outcome == .completed }.map(\.rows)
        if broke == nil && !measuredEnough(completed) { return plain }
        guard roundsTaken[boundary, default: 0] < Self.rounds, let held,
            let model = CapacityModel(points: Array(points.values), plan: plan, options: options, fromVersion: fromVersion)
        else { return bisect(boundary) }
        self.model = model
        guard let breaking = model.firstBreaking(boundary, above: held, below: broke, maxRows: search.maxRows) else {
            // Holds up to the largest size by the model: that size confirms it.
            predicted[boundary] = .some(nil)
            roundsTaken[boundary, default: 0] += 1
            return confirm([(search.maxRows, true)], boundary: boundary, predictedRows: search.maxRows, plain: plain)
        }
        // The model places the boundary at or beyond a size that broke: it lies below that size.
        let beyondBroke = broke.map { breaking >= $0 } ?? false
        let target = broke.map { min(breaking, $0) } ?? breaking
        if model.overreaches, Double(target) > Double(held) * Self.reach {
            let share = Int(Double(target) * Self.scoutShare)
            let scout = min(share, held * 2)
            if scout > held, scout < (broke ?? Int.max), search.tried[scout] == nil {
                // A scout held back from the share of the prediction has a bolder one beside
                // it, as far beyond it as a prediction is taken without a scout: if that one
                // breaks, the boundary is within reach of the scout; if it holds, the search
                // stands that much further on, in the time of one scout.
                let bold = min(share, Int(Double(scout) * Self.reach), search.maxRows)
                if bold > scout, bold < (broke ?? Int.max), search.tried[bold] == nil { boldScout = (scout, bold) }
                return .tryRows(scout)
            }
        }
        if beyondBroke {
            // Just below the size that broke, then: one run as far below it as still brackets
            // the boundary within the precision.
            predicted[boundary] = target
            roundsTaken[boundary, default: 0] += 1
            let below = Int((Double(target) / Self.precision).rounded(.up))
            return confirm([(below, true)].filter { $0.0 > held }, boundary: boundary, predictedRows: target, plain: plain)
        }
        predicted[boundary] = breaking
        roundsTaken[boundary, default: 0] += 1
        let above = min(Int((Double(breaking) * Self.margin).rounded(.up)), search.maxRows, (broke ?? Int.max) - 1)
        let below = max(held + 1, min(Int((Double(breaking) / Self.margin).rounded(.down)), breaking - 1))
        // A side already bracketed within the precision by a size tried needs no run.
        let needsBelow = Double(above) > Double(held) * Self.precision
        let needsAbove = broke.map { Double($0) > Double(below) * Self.precision } ?? true
        let runs = [(below, true, needsBelow), (above, false, needsAbove)]
            .filter { $0.2 && $0.0 > held && $0.0 < (broke ?? Int.max) && ($0.1 ? $0.0 < breaking : $0.0 >= breaking) }
            .map { ($0.0, $0.1) }
        return confirm(runs, boundary: boundary, predictedRows: breaking, plain: plain)
    }

    /// The sizes to rehearse at once, `rows` (what `next()` answered) first: with it, the
    /// other confirmations of the same prediction, up to `limit` in all, or a held-back
    /// scout's bolder one, or the rest of the first sizes, or the measuring's next step
    /// where the search would try it next anyway (`cheapSteps`). Their outcomes are
    /// recorded in this order.
    mutating func sideBySide(_ rows: Int, limit: Int) -> [Int] {
        if limit > 1, let boldScout, boldScout.scout == rows { return [rows, boldScout.beside] }
        guard pending.first?.rows == rows else { return limit > 1 ? cheapSteps(rows) : [rows] }
        let sizes = pending.prefix(max(1, limit)).map(\.rows)
        running.formUnion(sizes)
        return sizes
    }

    /// The first sizes together (whatever they cost), or a geometric step of the measuring
    /// with the one after it, where the search would try that one next anyway: a size whose
    /// first launch the largest so far says will take under the share of the watchdog the
    /// measuring stops at, so that the measuring goes on past it whenever it completes as
    /// said. Side by side, the smaller ones' rehearsals cost no time of their own. Only on
    /// the device clock, where runs side by side measure what each would alone.
    private func cheapSteps(_ rows: Int) -> [Int] {
        guard predicts, search.bracket(.completes).broke == nil else { return [rows] }
        if rows == search.startRows { return firstSizes.filter { search.tried[$0] == nil } }
        guard search.next(.completes) == .tryRows(rows) else { return [rows] }
        let next = min(rows * CapacitySearch.growth, search.maxRows)
        guard next > rows, search.tried[next] == nil else { return [rows] }
        let completed = points.values.filter { $0.outcome == .completed }
        guard let watchdogMs = options.watchdogMs, let largest = completed.max(by: { $0.rows < $1.rows }),
            let ms = largest.deviceMs, Double(ms * rows) / Double(largest.rows) < Double(watchdogMs) * Self.measuredShare
        else { return [rows] }
        return [rows, next]
    }

    /// `firstSizes` in rows, each once, up to the largest size allowed.
    private var firstSizes: [Int] {
        Set(Self.firstSizes.map { min($0 * search.startRows, search.maxRows) }).sorted()
    }

    /// Enough sizes completed, and the largest took a good part of the watchdog (any part
    /// without one).
    private func measuredEnough(_ completed: [Int]) -> Bool {
        guard completed.count >= Self.measuredSizes else { return false }
        guard let watchdogMs = options.watchdogMs, let largest = completed.max(), let ms = points[largest]?.deviceMs else {
            return true
        }
        return Double(ms) >= Double(watchdogMs) * Self.measuredShare
    }

    private mutating func confirm(
        _ runs: [(Int, Bool)], boundary: CapacityBoundary, predictedRows: Int, plain: CapacitySearch.Decision
    ) -> CapacitySearch.Decision {
        pending = runs.filter { search.tried[$0.0] == nil }.map { ($0.0, boundary, predictedRows, $0.1) }
        guard let first = pending.first else { return bisect(boundary) }
        return .tryRows(first.rows)
    }

    private mutating func bisect(_ boundary: CapacityBoundary) -> CapacitySearch.Decision {
        searched.insert(boundary)
        return search.next(boundary)
    }

    /// Records a size's outcome; `firstLaunch` is its first launch's device time and whether
    /// the watchdog cut it.
    mutating func record(_ point: CapacityPoint, firstLaunch: (deviceMs: Int?, killed: Bool)) {
        search.record(rows: point.rows, outcome: point.outcome)
        points[point.rows] = point
        guard let index = pending.firstIndex(where: { $0.rows == point.rows }) else { return }
        let confirming = pending.remove(at: index)
        running.remove(point.rows)
        // Sizes are monotone: once one confirming run disagrees, one not yet run has nothing
        // to tell.
        if confirming.boundary.holds(point.outcome) != confirming.holds { pending.removeAll { !running.contains($0.rows) } }
        let predictedMs = model.map { Int($0.launch.at(point.rows).rounded()) } ?? 0
        let error = firstLaunch.killed ? nil : firstLaunch.deviceMs.flatMap { measured in
            measured > 0 ? (Double(predictedMs - measured) / Double(measured) * 1000).rounded() / 10 : nil
        }
        confirmations.append(
            CapacityConfirmation(
                boundary: confirming.boundary, predictedRows: confirming.predictedRows, rows: point.rows,
                predictedToHold: confirming.holds, outcome: point.outcome, predictedMs: predictedMs,
                deviceMs: firstLaunch.deviceMs, errorPercent: error))
    }

    /// The answer's `prediction`; nil when none was made.
    var prediction: CapacityPrediction? {
        guard let model else { return nil }
        return CapacityPrediction(
            launchMs: model.launch, rows: predicted[.completes] ?? nil, reachesTargetRows: predicted[.reachesTarget] ?? nil,
            confirmations: confirmations)
    }
}
