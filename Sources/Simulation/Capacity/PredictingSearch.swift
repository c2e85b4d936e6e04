import MigrationCore

/// Which size to try next when the device clock makes a size's cost a function of the file
/// alone (issue 32): measure a few sizes (the search's own geometric steps, until a first
/// launch takes a good part of the watchdog, and one at half that size, so that the line
/// goes through sizes where the rows' cost outweighs what a launch costs anyway), fit the
/// costs (`CapacityModel`), predict the boundary, and confirm it with one run just below
/// and one just above. A prediction still far beyond the sizes measured is scouted first
/// at a quarter of it, so that the line is extrapolated a short way. When a confirmation
/// disagrees, the costs are fitted again with the runs it added (now near the boundary) and
/// predicted once more; when that disagrees too, `CapacitySearch` bisects from every size
/// tried, and the answer says it searched.
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
    /// The measuring goes on until a first launch takes this share of the watchdog.
    static let measuredShare = 0.25
    /// A confirming run lies this ratio below or above the predicted boundary, so that the
    /// two agreeing bracket it within `margin * margin`.
    static let margin = 1.02
    /// The search's precision when it predicts: an agreeing pair of confirmations is narrowed
    /// by it, and a fallback bisects as closely.
    static let precision = 1.05
    /// Predictions per boundary before the search bisects.
    static let rounds = 2
    /// A prediction further than this ratio beyond the largest completed size is scouted.
    static let reach = 8

    private(set) var points: [Int: CapacityPoint] = [:]
    private(set) var confirmations: [CapacityConfirmation] = []
    /// The last prediction of each boundary (nil value: held to the largest size by the model).
    private(set) var predicted: [CapacityBoundary: Int?] = [:]
    /// Boundaries left to the bisection.
    private(set) var searched: Set<CapacityBoundary> = []
    /// The model of the last prediction.
    private(set) var model: CapacityModel?
    private var pending: [(rows: Int, boundary: CapacityBoundary, predictedRows: Int, holds: Bool)] = []
    private var roundsTaken: [CapacityBoundary: Int] = [:]

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
        let completed = points.values.filter { $0.outcome == .completed }.map(\.rows)
        if broke == nil && !measuredEnough(completed) { return plain }
        if predicted.isEmpty, let largest = completed.max(), largest / 2 > search.startRows, search.tried[largest / 2] == nil {
            return .tryRows(largest / 2)
        }
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
        // The model places no boundary inside what the runs bracketed: it has nothing to add.
        if let broke, breaking >= broke { return bisect(boundary) }
        if broke == nil, let largest = completed.max(), breaking > largest * Self.reach, search.tried[breaking / 4] == nil {
            return .tryRows(breaking / 4)
        }
        predicted[boundary] = breaking
        roundsTaken[boundary, default: 0] += 1
        let below = Int((Double(breaking) / Self.margin).rounded(.down))
        let above = Int((Double(breaking) * Self.margin).rounded(.up))
        let runs = [(max(held + 1, min(below, breaking - 1)), true), (min(above, search.maxRows, (broke ?? Int.max) - 1), false)]
            .filter { $0.0 > held && $0.0 < (broke ?? Int.max) && ($0.1 ? $0.0 < breaking : $0.0 >= breaking) }
        return confirm(runs, boundary: boundary, predictedRows: breaking, plain: plain)
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
        // Sizes are monotone: once one confirming run disagrees, the other has nothing to tell.
        if confirming.boundary.holds(point.outcome) != confirming.holds { pending.removeAll() }
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
