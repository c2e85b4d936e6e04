import MigrationCore

/// One rehearsal: an uploaded database in its private directory, a plan and options.
///
/// The directory holds the upload as its `input` (with the WAL when one came with it);
/// the runner never changes those files and works on copies beside them.
public struct Job: Sendable {
    public var directory: JobDirectory
    public var plan: Plan
    public var options: RunOptions
    public var device: DeviceProfile
    /// How long the upload took, for the report's `timings.upload_ms`.
    public var uploadMs: Int?
    /// Wall-clock limit of the whole job, every worker included (`max_job_seconds`); nil for none.
    public var maxJobSeconds: Int?

    public init(
        directory: JobDirectory, plan: Plan, options: RunOptions, device: DeviceProfile, uploadMs: Int? = nil,
        maxJobSeconds: Int? = nil
    ) {
        self.directory = directory
        self.plan = plan
        self.options = options
        self.device = device
        self.uploadMs = uploadMs
        self.maxJobSeconds = maxJobSeconds
    }

    public var id: String { directory.id }
}

/// The result of a job: its report, and the migrated database in the job directory.
public struct JobResult: Sendable {
    public var report: Report
    /// The migrated database (one file, checkpointed); nil when the input was not a database.
    public var migratedDatabasePath: String?

    public init(report: Report, migratedDatabasePath: String?) {
        self.report = report
        self.migratedDatabasePath = migratedDatabasePath
    }
}
