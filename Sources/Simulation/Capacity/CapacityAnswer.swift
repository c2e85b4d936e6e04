import MigrationCore

/// The answer of `preflight capacity` and `POST /v1/capacity` (docs/CONTRACT.md §8,
/// `capacity_version: 1`): every size tried, the first size that no longer completed in
/// one launch, and each step's cost per row fitted over the sizes tried.
public struct CapacityAnswer: Sendable, Codable, Equatable {
    public static let version = 1

    public var capacityVersion = CapacityAnswer.version
    /// The plan's name.
    public var plan: String
    public var device: String
    public var runner: Runner
    public var fromVersion: Int
    /// The table that grows from point to point.
    public var table: String
    /// Every size tried, smallest first.
    public var points: [CapacityPoint]
    /// Nil when the largest size tried still completed in one launch.
    @Nullable public var limit: CapacityLimit?
    public var fit: [StepFit]
    /// How the boundaries were found.
    public var method: Method
    /// The prediction and its confirming runs; nil when none was made.
    @Nullable public var prediction: CapacityPrediction?
    /// The whole search's time on this machine.
    public var wallMs: Int
    /// Why the search stopped before it narrowed a boundary, when it did (not a field of
    /// the answer: with a limit, its `reason` says it; without one, the verdict does).
    public var stoppedBy: StopCause? = nil

    public enum Method: String, Sendable, Codable {
        /// Predicted from the device clock's costs of small sizes, confirmed by a direct run
        /// either side of each boundary.
        case predictedAndConfirmed = "predicted_and_confirmed"
        /// Bisected: off the device clock, with `--bisect`, or where a confirmation disagreed.
        case searched
    }

    public enum StopCause: String, Sendable, Codable {
        case maxRows = "max_rows"
        case maxSeconds = "max_seconds"
    }

    public init(
        plan: String, device: String, runner: Runner, fromVersion: Int, table: String, points: [CapacityPoint],
        limit: CapacityLimit?, fit: [StepFit], method: Method = .searched, prediction: CapacityPrediction? = nil,
        wallMs: Int = 0
    ) {
        self.plan = plan
        self.device = device
        self.runner = runner
        self.fromVersion = fromVersion
        self.table = table
        self.points = points
        self.limit = limit
        self.fit = fit
        self.method = method
        self.prediction = prediction
        self.wallMs = wallMs
    }

    enum CodingKeys: String, CodingKey {
        case capacityVersion = "capacity_version", plan, device, runner, fromVersion = "from_version", table, points
        case limit, fit, method, prediction, wallMs = "wall_ms"
    }
}

/// One size tried: a synthesized database of `rows` rows in the growing table, rehearsed
/// as `preflight run` rehearses a file.
public struct CapacityPoint: Sendable, Codable, Equatable {
    public var rows: Int
    /// The synthesized file's size before the migration.
    public var bytes: Int64
    public var outcome: Outcome
    /// How many launches the run took.
    public var launches: Int
    /// The launches' time together (this machine's time).
    public var elapsedMs: Int
    /// The launches' modelled time on the device together (`clock: device`).
    @Nullable public var deviceMs: Int?
    @Nullable public var peakBytes: Int64?
    public var steps: [StepCost]
    /// Whether the size's file came from the synthesis cache (false: made for this search).
    @Nullable public var cached: Bool?
    /// The step that broke first at this size (not a field of the answer: the limit's
    /// `step` says it for the size that matters).
    public var brokenStep: Int? = nil

    public init(
        rows: Int, bytes: Int64, outcome: Outcome, launches: Int, elapsedMs: Int, peakBytes: Int64?, steps: [StepCost]
    ) {
        self.rows = rows
        self.bytes = bytes
        self.outcome = outcome
        self.launches = launches
        self.elapsedMs = elapsedMs
        self.peakBytes = peakBytes
        self.steps = steps
    }

    /// What one step cost at this size.
    public struct StepCost: Sendable, Codable, Equatable {
        public var version: Int
        @Nullable public var elapsedMs: Int?
        /// The step's modelled time on the device (`clock: device`).
        @Nullable public var deviceMs: Int?
        @Nullable public var peakBytes: Int64?

        public init(version: Int, elapsedMs: Int?, deviceMs: Int? = nil, peakBytes: Int64?) {
            self.version = version
            self.elapsedMs = elapsedMs
            self.deviceMs = deviceMs
            self.peakBytes = peakBytes
        }

        /// The time the watchdog counted: the device's, else this machine's.
        public var watchdogMs: Int? { deviceMs ?? elapsedMs }

        enum CodingKeys: String, CodingKey {
            case version, elapsedMs = "elapsed_ms", deviceMs = "device_ms", peakBytes = "peak_bytes"
        }
    }

    enum CodingKeys: String, CodingKey {
        case rows, bytes, outcome, launches, elapsedMs = "elapsed_ms", deviceMs = "device_ms", peakBytes = "peak_bytes"
        case steps, cached
    }
}

/// The first size tried that no longer completed in one launch.
public struct CapacityLimit: Sendable, Codable, Equatable {
    public var rows: Int
    public var bytes: Int64
    /// Its outcome (`completed_after_kills`, `crash_loop`, `disk_full`, ...).
    public var outcomeBeyond: Outcome
    /// The step that broke first there: the one the watchdog cut, or the one that failed.
    @Nullable public var step: Int?
    /// How far the boundary was narrowed: `Reason`.
    public var reason: Reason

    public init(rows: Int, bytes: Int64, outcomeBeyond: Outcome, step: Int?, reason: Reason) {
        self.rows = rows
        self.bytes = bytes
        self.outcomeBeyond = outcomeBeyond
        self.step = step
        self.reason = reason
    }

    public enum Reason: String, Sendable, Codable {
        /// The largest size that completed is within 10% below `rows`.
        case narrowed
        /// `--max-seconds` ran out before the boundary was narrowed to 10%.
        case maxSeconds = "max_seconds"
        /// Even the smallest size tried did not complete.
        case smallestSize = "smallest_size"
    }

    enum CodingKeys: String, CodingKey {
        case rows, bytes, outcomeBeyond = "outcome_beyond", step, reason
    }
}

/// A step's cost per row of the growing table, fitted by least squares over the sizes
/// that completed in one launch; nil where fewer than one such size ran the step.
public struct StepFit: Sendable, Codable, Equatable {
    public var version: Int
    @Nullable public var msPerRow: Double?
    /// Growth of the database's files during the step, per row: the free space it needs.
    @Nullable public var bytesPerRow: Double?

    public init(version: Int, msPerRow: Double?, bytesPerRow: Double?) {
        self.version = version
        self.msPerRow = msPerRow
        self.bytesPerRow = bytesPerRow
    }

    enum CodingKeys: String, CodingKey { case version, msPerRow = "ms_per_row", bytesPerRow = "bytes_per_row" }
}
