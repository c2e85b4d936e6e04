import MigrationCore

/// The answer of a matrix (docs/CONTRACT.md §11, `matrix_version: 1`): one row per starting
/// version (and per fixture that could not be one), one cell per row and device, each an
/// ordinary rehearsal whose report it carries.
///
/// A shard's partial answer has the same shape, with `shard` set and only its own cells;
/// `MatrixMerge` joins the partial answers into the whole one.
public struct MatrixAnswer: Sendable, Codable {
    public static let matrixVersion = 1

    public var matrixVersion = MatrixAnswer.matrixVersion
    public var plan: String
    public var devices: [String]
    public var fromVersion: Int
    public var targetVersion: Int
    public var rows: [MatrixRow]
    /// Whether every row that reached the target ended with the fresh install's schema
    /// (and so with every other such row's); null when none reached it.
    @Nullable public var schemasAgree: Bool?
    public var summary: MatrixSummary
    /// What the answer was computed from, by hashes: how a merge tells shards of one
    /// matrix from those of another.
    public var identity: MatrixIdentity
    /// The share of the cells this answer holds; null for a whole matrix.
    @Nullable public var shard: MatrixShard?

    public init(
        plan: String, devices: [String], fromVersion: Int, targetVersion: Int, rows: [MatrixRow], identity: MatrixIdentity,
        shard: MatrixShard?
    ) {
        self.plan = plan
        self.devices = devices
        self.fromVersion = fromVersion
        self.targetVersion = targetVersion
        self.rows = rows
        self.identity = identity
        self.shard = shard
        summary = MatrixSummary(worstOutcome: nil, marginMs: [:])
        summarize()
    }

    enum CodingKeys: String, CodingKey {
        case matrixVersion = "matrix_version", plan, devices, fromVersion = "from_version", targetVersion = "target_version"
        case rows, schemasAgree = "schemas_agree", summary, identity, shard
    }

    /// Every cell, in the matrix's canonical order: rows as listed, devices as given.
    public var cells: [(row: MatrixRow, device: String, cell: MatrixCell)] {
        rows.flatMap { row in devices.compactMap { device in row.cells[device].map { (row, device, $0) } } }
    }

    /// Whether every cell completed: what the command's exit status says.
    public var allCompleted: Bool { cells.allSatisfy { $0.cell.outcome == .completed } }

    /// Computes `schemas_agree` and `summary` from the cells.
    mutating func summarize() {
        let reached = cells.compactMap { $0.cell.report?.final }.filter { $0.userVersion == targetVersion }
        schemasAgree = reached.isEmpty ? nil : reached.allSatisfy { $0.schemaMatchesFreshInstall != false }
        let outcomes = cells.map(\.cell.outcome)
        var margins: [String: Int?] = [:]
        for device in devices {
            let cellsOfDevice = rows.compactMap { $0.cells[device] }
            let watchdog = cellsOfDevice.compactMap { $0.report?.options.watchdogMs }.first
            let slowest = cellsOfDevice.compactMap(\.slowestLaunchMs).max()
            margins[device] = watchdog.flatMap { watchdog in slowest.map { watchdog - $0 } }
        }
        summary = MatrixSummary(worstOutcome: outcomes.max { $0.severity < $1.severity }, marginMs: margins)
    }
}

/// One starting point: a fixture, a synthesized file, or the fresh install (an empty file).
public struct MatrixRow: Sendable, Codable {
    public enum Source: String, Sendable, Codable {
        case fixture, synthesized
        case freshInstall = "fresh_install"
    }

    /// The version the file stands at; null for a fixture whose version cannot be read (not
    /// a database, a WAL without its main file).
    @Nullable public var fromVersion: Int?
    public var source: Source
    /// The fixture's file name; null for the rows Preflight made.
    @Nullable public var file: String?
    /// The file's size, and its tables' rows (a synthesized file's as written, a
    /// fixture's as its first cell's report read them).
    @Nullable public var bytes: Int64?
    @Nullable public var tables: [String: Int64]?
    /// The file's hash (a fixture's; its WAL's after a `+`); null for the rows Preflight made.
    @Nullable public var sha256: String?
    /// A synthesized row's file: true when it came from the synthesis cache, false when it
    /// was made for this matrix; null for the other rows (and a file not made).
    @Nullable public var cached: Bool?
    /// By device name.
    public var cells: [String: MatrixCell]

    public init(fromVersion: Int?, source: Source, file: String?, bytes: Int64?, tables: [String: Int64]?, sha256: String?) {
        self.fromVersion = fromVersion
        self.source = source
        self.file = file
        self.bytes = bytes
        self.tables = tables
        self.sha256 = sha256
        cells = [:]
    }

    enum CodingKeys: String, CodingKey {
        case fromVersion = "from_version", source, file, bytes, tables, sha256, cached, cells
    }

    /// How a test case, a progress line and the page name this row: `from v3`, with the
    /// file's name where the version alone does not say which row it is.
    public func label(unique: Bool) -> String {
        let version = fromVersion.map { "from v\($0)" } ?? "from an unknown version"
        guard let file, !unique || fromVersion == nil else { return version }
        return "\(version) (\(file))"
    }
}

/// One rehearsal of the matrix: a row's file on one device.
public struct MatrixCell: Sendable, Codable {
    public var outcome: Outcome
    @Nullable public var failure: Failure?
    /// How many launches it took.
    public var launches: Int
    /// The launches' modelled time on the device together (`clock: device`).
    @Nullable public var deviceMs: Int?
    /// The launches' time together, as this machine measured it.
    public var elapsedMs: Int
    @Nullable public var peakBytes: Int64?
    @Nullable public var minFreeBytes: Int64?
    /// The cell's full report; null for a cell that never ran (its row's file missing, or
    /// the matrix's time up before its turn).
    @Nullable public var report: Report?

    /// A launch of the cell ran to its end with a band that reaches the watchdog
    /// (`LaunchReport.atRisk`): its verdict is not certain.
    public var atRisk: Bool { report?.launches.contains { $0.atRisk } ?? false }

    public init(report: Report) {
        outcome = report.outcome
        failure = report.failure
        launches = report.launches.count
        let deviceTimes = report.launches.compactMap(\.deviceMs)
        deviceMs = report.options.clock == .device && !deviceTimes.isEmpty ? deviceTimes.reduce(0, +) : nil
        elapsedMs = report.launches.map(\.elapsedMs).reduce(0, +)
        peakBytes = report.space.peakBytes
        minFreeBytes = report.space.minFreeBytes
        self.report = report
    }

    /// A cell that did not run.
    public init(notRun outcome: Outcome, failure: Failure) {
        self.outcome = outcome
        self.failure = failure
        launches = 0
        elapsedMs = 0
    }

    enum CodingKeys: String, CodingKey {
        case outcome, failure, launches, deviceMs = "device_ms", elapsedMs = "elapsed_ms", peakBytes = "peak_bytes"
        case minFreeBytes = "min_free_bytes", report
    }

    /// The longest launch, on the clock its watchdog counted (the device's, or this
    /// machine's scaled by the profile's `time_scale`).
    var slowestLaunchMs: Int? {
        guard let report else { return nil }
        if report.options.clock == .device { return report.launches.compactMap(\.deviceMs).max() }
        return report.launches.map { Int((Double($0.elapsedMs) * report.options.timeScale).rounded()) }.max()
    }
}

public struct MatrixSummary: Sendable, Codable, Equatable {
    /// The worst outcome of any cell (`Outcome.severity`); null for a matrix with no cell.
    @Nullable public var worstOutcome: Outcome?
    /// Per device: its watchdog less the slowest launch of any of its cells; negative when
    /// a launch was killed past it, null without a watchdog or a launch.
    public var marginMs: [String: Int?]

    public init(worstOutcome: Outcome?, marginMs: [String: Int?]) {
        self.worstOutcome = worstOutcome
        self.marginMs = marginMs
    }

    enum CodingKeys: String, CodingKey { case worstOutcome = "worst_outcome", marginMs = "margin_ms" }
}

/// What a matrix was computed from: the plan, the options and every input, by hash.
public struct MatrixIdentity: Sendable, Codable, Equatable {
    public var planSHA256: String
    /// A hash of the devices' effective options, `from`, the synthesized size and the sample.
    public var optionsSHA256: String
    /// Each fixture's `name:sha256` (its WAL's after a `+`), in the rows' order.
    public var inputs: [String]

    enum CodingKeys: String, CodingKey { case planSHA256 = "plan_sha256", optionsSHA256 = "options_sha256", inputs }
}

extension Outcome {
    /// How bad an outcome is for the users who meet it, for the matrix's `worst_outcome`:
    /// a file the app refuses or cannot read hurts only that file's user; an erased database
    /// takes every such user's data, though the app opens; a step that fails or a crash loop
    /// locks every user on that version out.
    public var severity: Int {
        switch self {
        case .completed: return 0
        case .completedAfterKills: return 1
        case .refused: return 2
        case .invalidDatabase: return 3
        case .watchdogKilled: return 4
        case .diskFull: return 5
        case .verificationFailed: return 6
        case .dataErased: return 7
        case .failed: return 8
        case .crashLoop: return 9
        }
    }
}
