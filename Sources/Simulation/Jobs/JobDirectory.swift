import Foundation
import Glibc
import MigrationCore

/// A job's private directory (a random 128-bit id, mode 0700) and every file in it.
///
///     input.db, input.db-wal    an HTTP job's upload; never changed (`preflight run` reads its
///                               --db where it lies: `Job.input`)
///     work.db (-wal, -shm, -journal)  the copy the launches migrate
///     space.stats               the space VFS's counters: mmapped by workers, read by the parent
///     operations.log            a power-loss sweep's record of the run's writes and syncs
///     job.json                  the worker's instructions
///     fresh-install.db          the verifier's fresh install, built and removed again
///     check.stats               the shim VFS's counters of the input's check (`clock: device`)
///
/// Every path of a job comes from here, so that the parent and its workers agree.
public struct JobDirectory: Sendable, Equatable {
    public let id: String
    public let path: String

    /// Names the job directory at `path`, which exists already (a worker is handed it).
    public init(existingAt path: String) {
        self.path = path
        id = (path as NSString).lastPathComponent
    }

    /// Creates `parent/<new id>`, making `parent` too when it is missing: the one way a
    /// job directory comes to be.
    public static func create(parent: String) throws(CreationError) -> JobDirectory {
        do {
            try FileManager.default.createDirectory(
                atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CreationError(reason: "\(parent): \(error.localizedDescription)")
        }
        let directory = JobDirectory(existingAt: (parent as NSString).appendingPathComponent(JobID.make()))
        guard mkdir(directory.path, 0o700) == 0 else { throw CreationError(reason: String(cString: strerror(errno))) }
        return directory
    }

    /// Why a job directory could not be created, as the system said it.
    public struct CreationError: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// The upload, and its WAL when one came with it.
    public var input: DatabaseFiles { DatabaseFiles(file("input.db")) }
    /// The migrated copy (checkpointed into one file once the job ran).
    public var work: DatabaseFiles { DatabaseFiles(file("work.db")) }
    /// The space VFS's counters, which outlive a killed worker.
    public var spaceStats: String { file("space.stats") }
    /// What the parent hands its workers (`WorkerInstructions`).
    public var workerInstructions: String { file("job.json") }
    /// The shim VFS's counters while the inspection checks the input (`InputCheck`), which
    /// the device clock charges.
    public var checkStats: String { file("check.stats") }
    /// What a power-loss sweep's recording replay did to the database's files
    /// (`StorageFault.recordOperations`, `OperationLog`).
    public var operationLog: String { file("operations.log") }
    /// Where the verifier builds its fresh install for the schema comparison.
    public var freshInstall: String { file("fresh-install.db") }

    private func file(_ name: String) -> String { path + "/" + name }
}
