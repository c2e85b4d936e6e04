import MigrationCore

/// The answer to one run (docs/CONTRACT.md §3, `report_version` 1).
///
/// Every top-level field is always present in the JSON, with `null` where it does not
/// apply, so that pipelines can read fields without checking for them first. A report
/// decodes from that JSON again, to the same value (encoding it again gives the same bytes).
public struct Report: Sendable, Codable {
    public static let reportVersion = 1

    /// Written into every report (`report_version`) so that a reader knows the shape it
    /// reads; decoding refuses any other.
    public let reportVersion = Report.reportVersion
    public var jobID: String
    public var outcome: Outcome
    @Nullable public var failure: Failure?
    /// The path the framework took on the first launch; null when it took neither (the
    /// file was refused, or already at the target).
    @Nullable public var firstLaunch: FirstLaunch?
    public var plan: PlanSummary
    public var options: RunOptions
    /// The SQLite the workers ran on beside the device's own version (null in reports
    /// written before it was named).
    @Nullable public var sqlite: SQLiteReport?
    public var input: InputSummary
    public var launches: [LaunchReport]
    public var steps: [StepReport]
    public var space: SpaceReport
    @Nullable public var final: FinalState?
    public var warnings: [Warning]
    public var timings: Timings
    /// Null unless the `kill_sweep` option asked for it.
    @Nullable public var killSweep: SweepReport?
    /// Null unless the `disk_full_sweep` option asked for it (Preflight's own field:
    /// docs/CONTRACT.md names only `kill_sweep`).
    @Nullable public var diskFullSweep: SweepReport?
    /// Null unless the `power_loss_sweep` option asked for it.
    @Nullable public var powerLossSweep: PowerLossSweepReport?

    public init(
        jobID: String, outcome: Outcome, failure: Failure?, plan: PlanSummary, options: RunOptions,
        sqlite: SQLiteReport? = nil, input: InputSummary, launches: [LaunchReport], steps: [StepReport], space: SpaceReport,
        final: FinalState?, warnings: [Warning], timings: Timings, killSweep: SweepReport? = nil,
        diskFullSweep: SweepReport? = nil, powerLossSweep: PowerLossSweepReport? = nil, firstLaunch: FirstLaunch? = nil
    ) {
        self.jobID = jobID
        self.outcome = outcome
        self.failure = failure
        self.firstLaunch = firstLaunch
        self.plan = plan
        self.options = options
        self.sqlite = sqlite
        self.input = input
        self.launches = launches
        self.steps = steps
        self.space = space
        self.final = final
        self.warnings = warnings
        self.timings = timings
        self.killSweep = killSweep
        self.diskFullSweep = diskFullSweep
        self.powerLossSweep = powerLossSweep
    }

    enum CodingKeys: String, CodingKey {
        case reportVersion = "report_version", jobID = "job_id", outcome, failure, firstLaunch = "first_launch", plan, options
        case sqlite, input
        case launches, steps, space, final, warnings, timings, killSweep = "kill_sweep", diskFullSweep = "disk_full_sweep"
        case powerLossSweep = "power_loss_sweep"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .reportVersion)
        guard version == Report.reportVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .reportVersion, in: container,
                debugDescription: "report_version \(version) is not \(Report.reportVersion), the one this build reads")
        }
        jobID = try container.decode(String.self, forKey: .jobID)
        outcome = try container.decode(Outcome.self, forKey: .outcome)
        failure = try container.decodeIfPresent(Failure.self, forKey: .failure)
        firstLaunch = try container.decodeIfPresent(FirstLaunch.self, forKey: .firstLaunch)
        plan = try container.decode(PlanSummary.self, forKey: .plan)
        options = try container.decode(RunOptions.self, forKey: .options)
        sqlite = try container.decodeIfPresent(SQLiteReport.self, forKey: .sqlite)
        input = try container.decode(InputSummary.self, forKey: .input)
        launches = try container.decode([LaunchReport].self, forKey: .launches)
        steps = try container.decode([StepReport].self, forKey: .steps)
        space = try container.decode(SpaceReport.self, forKey: .space)
        final = try container.decodeIfPresent(FinalState.self, forKey: .final)
        warnings = try container.decode([Warning].self, forKey: .warnings)
        timings = try container.decode(Timings.self, forKey: .timings)
        killSweep = try container.decodeIfPresent(SweepReport.self, forKey: .killSweep)
        diskFullSweep = try container.decodeIfPresent(SweepReport.self, forKey: .diskFullSweep)
        powerLossSweep = try container.decodeIfPresent(PowerLossSweepReport.self, forKey: .powerLossSweep)
    }
}

public struct PlanSummary: Sendable, Codable {
    public var name: String
    public var sha256: String
    public var targetVersion: Int
    /// How the app's migration framework ran the steps (the plan's `runner`).
    public var runner: Runner

    public init(name: String, sha256: String, targetVersion: Int, runner: Runner) {
        self.name = name
        self.sha256 = sha256
        self.targetVersion = targetVersion
        self.runner = runner
    }

    enum CodingKeys: String, CodingKey { case name, sha256, targetVersion = "target_version", runner }
}

/// The uploaded file as it was before anything ran.
public struct InputSummary: Sendable, Codable {
    public var bytes: Int64
    public var sha256: String
    @Nullable public var userVersion: Int?
    @Nullable public var applicationID: Int32?
    @Nullable public var journalMode: String?
    @Nullable public var pageSize: Int?
    public var sqliteHeaderValid: Bool
    @Nullable public var tables: [String: Int64]?
    /// Under `clock: device`, the device's time for the `PRAGMA quick_check` of the input
    /// before the first launch (`InputCheck`); null on the wall clock, and when no check ran.
    @Nullable public var quickCheckDeviceMs: Int?

    public init(
        bytes: Int64, sha256: String, userVersion: Int?, applicationID: Int32?, journalMode: String?,
        pageSize: Int?, sqliteHeaderValid: Bool, tables: [String: Int64]?, quickCheckDeviceMs: Int? = nil
    ) {
        self.bytes = bytes
        self.sha256 = sha256
        self.userVersion = userVersion
        self.applicationID = applicationID
        self.journalMode = journalMode
        self.pageSize = pageSize
        self.sqliteHeaderValid = sqliteHeaderValid
        self.tables = tables
        self.quickCheckDeviceMs = quickCheckDeviceMs
    }

    enum CodingKeys: String, CodingKey {
        case bytes, sha256, userVersion = "user_version", applicationID = "application_id"
        case journalMode = "journal_mode", pageSize = "page_size", sqliteHeaderValid = "sqlite_header_valid", tables
        case quickCheckDeviceMs = "quick_check_device_ms"
    }
}

/// One simulated launch of the app.
public struct LaunchReport: Sendable, Codable {
    public enum Ending: String, Sendable, Codable { case finished, killed, failed }

    public var launch: Int
    /// Where the launch found the file: its version (under GRDB, the position of the last
    /// applied step, whose identifier is `fromID`).
    @Nullable public var fromVersion: Int?
    @Nullable public var fromID: String?
    /// Where the launch left the file, as the next launch (or the final read) found it.
    @Nullable public var reachedVersion: Int?
    public var ended: Ending
    public var elapsedMs: Int
    /// Process start until the database was open: part of the watchdog budget.
    @Nullable public var startMs: Int?
    /// The launch was killed with work it had not committed, which the next open undid.
    public var rolledBack: Bool
    /// The launch's modelled time on the device, its start included (`clock: device`).
    @Nullable public var deviceMs: Int?
    /// When the launch's process started, on the clock of `space.samples` (this machine's):
    /// where the launch lies among the samples, so that the page can draw them on the
    /// launches' own clock. Below 0 for a first launch whose process started (ahead of its
    /// turn) before the sampling did.
    @Nullable public var atMs: Int?
    /// How far that time can be off, for the kind of work the launch did (`ModelBand`).
    @Nullable public var deviceBand: ModelBand?
    /// The launch ran to its end before the watchdog, but its band reaches the deadline: on
    /// the phone it may be killed.
    public var atRisk: Bool

    public init(
        launch: Int, fromVersion: Int?, fromID: String? = nil, reachedVersion: Int?, ended: Ending, elapsedMs: Int,
        startMs: Int?, rolledBack: Bool = false, deviceMs: Int? = nil, deviceBand: ModelBand? = nil, atRisk: Bool = false
    ) {
        self.launch = launch
        self.fromVersion = fromVersion
        self.fromID = fromID
        self.reachedVersion = reachedVersion
        self.ended = ended
        self.elapsedMs = elapsedMs
        self.startMs = startMs
        self.rolledBack = rolledBack
        self.deviceMs = deviceMs
        self.deviceBand = deviceBand
        self.atRisk = atRisk
    }

    enum CodingKeys: String, CodingKey {
        case launch, fromVersion = "from_version", fromID = "from_id", reachedVersion = "reached_version", ended
        case elapsedMs = "elapsed_ms", startMs = "start_ms", rolledBack = "rolled_back", deviceMs = "device_ms"
        case atMs = "at_ms"
        case deviceBand = "device_band", atRisk = "at_risk"
    }
}

public struct Warning: Sendable, Codable, Equatable {
    public var code: String
    @Nullable public var step: Int?
    public var message: String

    public init(code: String, step: Int?, message: String) {
        self.code = code
        self.step = step
        self.message = message
    }
}

public struct Timings: Sendable, Codable {
    public var totalMs: Int
    @Nullable public var uploadMs: Int?
    public var phases: PhaseTimings

    public init(totalMs: Int, uploadMs: Int?, phases: PhaseTimings = PhaseTimings()) {
        self.totalMs = totalMs
        self.uploadMs = uploadMs
        self.phases = phases
    }

    enum CodingKeys: String, CodingKey { case totalMs = "total_ms", uploadMs = "upload_ms", phases }
}

/// Where a run's time went, phase by phase (null: the run ended before that phase).
public struct PhaseTimings: Sendable, Codable, Equatable {
    /// SHA-256 of the upload (read from the page cache, after the copy).
    @Nullable public var hashMs: Int?
    /// The upload (and its WAL) copied to the work copy by the kernel (copy_file_range),
    /// until the copy is on the disk when a launch may write to it (`Job.launchesMayWrite`).
    @Nullable public var copyMs: Int?
    /// The inspecting worker: the header read by SQLite, the input's quick_check, the
    /// tables and their row counts.
    @Nullable public var countMs: Int?
    /// Of `countMs`, the input's `PRAGMA quick_check` (`InputCheck`).
    @Nullable public var checkMs: Int?
    /// Every migrating launch, and the reads of the file's state between and after them.
    @Nullable public var launchesMs: Int?
    /// The verifying worker on the target.
    @Nullable public var verifyMs: Int?
    /// Gathering the report (the space stats, the work copy's size).
    @Nullable public var reportMs: Int?

    public init(
        hashMs: Int? = nil, copyMs: Int? = nil, countMs: Int? = nil, checkMs: Int? = nil, launchesMs: Int? = nil,
        verifyMs: Int? = nil, reportMs: Int? = nil
    ) {
        self.hashMs = hashMs
        self.copyMs = copyMs
        self.countMs = countMs
        self.checkMs = checkMs
        self.launchesMs = launchesMs
        self.verifyMs = verifyMs
        self.reportMs = reportMs
    }

    enum CodingKeys: String, CodingKey {
        case hashMs = "hash_ms", copyMs = "copy_ms", countMs = "count_ms", checkMs = "check_ms", launchesMs = "launches_ms"
        case verifyMs = "verify_ms", reportMs = "report_ms"
    }
}
