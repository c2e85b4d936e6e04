import MigrationCore

/// Where a capacity answer predicted its boundaries from the device clock, and the direct
/// runs that confirmed (or contradicted) each prediction (`prediction` in the answer).
public struct CapacityPrediction: Sendable, Codable, Equatable {
    /// The first launch's device time against rows, fitted over the largest sizes that
    /// completed in one launch: the predicted line.
    public var launchMs: CostLine
    /// The last prediction of the first size that does not complete in one launch; nil when
    /// the model held up to the largest size allowed.
    @Nullable public var rows: Int?
    /// The last prediction of the first size at which the launches run out (the target is
    /// no longer reached at all); nil when no such prediction was made.
    @Nullable public var reachesTargetRows: Int?
    /// Every confirming run, in the order run.
    public var confirmations: [CapacityConfirmation]

    public init(launchMs: CostLine, rows: Int?, reachesTargetRows: Int?, confirmations: [CapacityConfirmation]) {
        self.launchMs = launchMs
        self.rows = rows
        self.reachesTargetRows = reachesTargetRows
        self.confirmations = confirmations
    }

    enum CodingKeys: String, CodingKey {
        case launchMs = "launch_ms", rows, reachesTargetRows = "reaches_target_rows", confirmations
    }
}

/// One direct run just below or just above a predicted boundary.
public struct CapacityConfirmation: Sendable, Codable, Equatable {
    public var boundary: CapacityBoundary
    /// The prediction it checks: the first size predicted not to hold.
    public var predictedRows: Int
    public var rows: Int
    /// Whether the prediction says this size holds (it lies below the predicted boundary).
    public var predictedToHold: Bool
    public var outcome: Outcome
    /// Whether the run held as predicted.
    public var agrees: Bool
    /// The model's first launch at this size, in device milliseconds.
    public var predictedMs: Int
    /// The measured first launch's device time.
    @Nullable public var deviceMs: Int?
    /// `(predicted - measured) / measured` in percent, one decimal; nil where the watchdog
    /// cut the first launch, whose measured time then stops at the deadline.
    @Nullable public var errorPercent: Double?

    public init(
        boundary: CapacityBoundary, predictedRows: Int, rows: Int, predictedToHold: Bool, outcome: Outcome,
        predictedMs: Int, deviceMs: Int?, errorPercent: Double?
    ) {
        self.boundary = boundary
        self.predictedRows = predictedRows
        self.rows = rows
        self.predictedToHold = predictedToHold
        self.outcome = outcome
        self.agrees = boundary.holds(outcome) == predictedToHold
        self.predictedMs = predictedMs
        self.deviceMs = deviceMs
        self.errorPercent = errorPercent
    }

    enum CodingKeys: String, CodingKey {
        case boundary, predictedRows = "predicted_rows", rows, predictedToHold = "predicted_to_hold", outcome, agrees
        case predictedMs = "predicted_ms", deviceMs = "device_ms", errorPercent = "error_percent"
    }
}
