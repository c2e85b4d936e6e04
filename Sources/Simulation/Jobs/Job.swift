import Foundation
import MigrationCore

/// One rehearsal: a device's database, a private directory to rehearse in, a plan and options.
///
/// The runner never changes the input's files and works on copies in the directory.
public struct Job: Sendable {
    public var directory: JobDirectory
    /// The device's files: an upload in the directory, or where they lie for `preflight run`.
    public var input: JobInput
    public var plan: Plan
    public var options: RunOptions
    public var device: DeviceProfile
    /// How long the upload took, for the report's `timings.upload_ms`.
    public var uploadMs: Int?
    /// Wall-clock limit of the whole job, every worker included (`max_job_seconds`); nil for none.
    public var maxJobSeconds: Int?

    /// - Parameter input: the directory's `input.db` (and its `-wal`) when nil, as uploads have it.
    public init(
        directory: JobDirectory, input: JobInput? = nil, plan: Plan, options: RunOptions, device: DeviceProfile,
        uploadMs: Int? = nil, maxJobSeconds: Int? = nil
    ) {
        self.directory = directory
        self.input = input ?? JobInput(database: directory.input.path, wal: directory.input.wal)
        self.plan = plan
        self.options = options
        self.device = device
        self.uploadMs = uploadMs
        self.maxJobSeconds = maxJobSeconds
    }

    public var id: String { directory.id }
}

/// The database a job rehearses on, and its WAL. Read by the runner (its header, its hash,
/// the copies it makes) and, without a WAL, by the inspecting worker, whose sandbox lets it
/// read this one file and which opens it immutable: nothing that opens it with SQLite may
/// ever write to the device's file, nor beside it.
public struct JobInput: Sendable {
    public var database: String
    /// Where its WAL is, when one came with it (a path that does not exist means none did).
    public var wal: String?
    /// The database's SHA-256 when whoever made the input hashed it already (a matrix hashes
    /// each row's file once for all its devices); nil: the run hashes it.
    public var sha256: String?

    public init(database: String, wal: String?, sha256: String? = nil) {
        self.database = database
        self.wal = wal
        self.sha256 = sha256
    }

    /// The WAL, when there is one.
    var existingWAL: String? { wal.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil } }

    /// Copies the database and its WAL to the new files `copy`, inside the kernel; when
    /// `durable` (`copyFile`), on the disk when this returns: the device's file is on its
    /// disk before the app starts, and a copy still in the page cache was written by the
    /// first launch's first sync, inside that launch's watchdog budget.
    func copy(to copy: DatabaseFiles, durable: Bool = true) throws(FileError) {
        try copyFile(database, to: copy.path, durable: durable)
        if let wal = existingWAL { try copyFile(wal, to: copy.wal, durable: durable) }
    }

    /// Whether a launch may write to the work copy of this input, whose header is
    /// `header`, running `plan` to `target`: whether the copy must be durable. Not when the
    /// header shows the file at the target already, under a runner that keeps its version
    /// there, with no WAL that could hold a newer one: then no step runs, a launch on an
    /// existing file keeps its journal mode, and no launch syncs; the sync would only
    /// keep the rehearsal waiting. (Unless the file holds
    /// Preflight's own unfinished work, which only SQL can see: the runner syncs the copy
    /// when the inspection finds some.)
    func launchesMayWrite(header: HeaderReading, plan: Plan, target: Int) -> Bool {
        guard case .database(let fields) = header, existingWAL == nil, plan.runner.keepsUserVersion else { return true }
        return Int(fields.userVersion) != target
    }
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
