import CSpaceVFS
import Glibc

/// A fault a sweep injects into the storage of one replay of a run, through the shim
/// VFS: a real SIGKILL just before a durable sync or a write of the main file, or
/// SQLITE_FULL at a write. Ordinals count from 1 across the replay's launches (the stats
/// file keeps the counters), but for the main file's writes (see `killAtMainWrite`). The
/// parent passes it to a `migrate` worker as command-line flags (`arguments`).
public enum StorageFault: Sendable, Equatable {
    /// The worker raises SIGKILL just before the run's N-th sync of its main file,
    /// journal or WAL.
    case killBeforeSync(Int)
    /// The run's N-th write fails with SQLITE_FULL, and the disk stays full after it.
    case fullAtWrite(Int)
    /// The worker raises SIGKILL just before its N-th write of the main database file:
    /// in WAL mode, inside a checkpoint. N counts in each launch, and the fault fires in
    /// the first launch that reaches it, never again in the run.
    case killAtMainWrite(Int)
    /// Not a fault: the worker's shim VFS logs every operation a power cut could undo
    /// (`JobDirectory.operationLog`), for the power-loss sweep to build its crash states from.
    case recordOperations

    /// The worker flags (`preflight worker migrate ... --kill-before-sync N`).
    public static let killFlag = "kill-before-sync"
    public static let fullFlag = "full-at-write"
    public static let mainWriteFlag = "kill-at-main-write"
    public static let recordFlag = "record-operations"

    var arguments: [String] {
        switch self {
        case .killBeforeSync(let point): return ["--" + Self.killFlag, String(point)]
        case .fullAtWrite(let point): return ["--" + Self.fullFlag, String(point)]
        case .killAtMainWrite(let point): return ["--" + Self.mainWriteFlag, String(point)]
        case .recordOperations: return ["--" + Self.recordFlag]
        }
    }

    /// Arms the fault in this process's shim VFS (a `migrate` worker of the job in
    /// `directory`, before it opens the file).
    func arm(_ directory: JobDirectory) throws(RecordingError) {
        switch self {
        case .killBeforeSync(let point): spacevfs_inject_fault(Int32(SPACEVFS_FAULT_KILL_BEFORE_SYNC), Int64(point))
        case .fullAtWrite(let point): spacevfs_inject_fault(Int32(SPACEVFS_FAULT_FULL_AT_WRITE), Int64(point))
        case .killAtMainWrite(let point): spacevfs_inject_fault(Int32(SPACEVFS_FAULT_KILL_AT_MAIN_WRITE), Int64(point))
        case .recordOperations:
            let error = spacevfs_record_operations(directory.operationLog)
            guard error == 0 else { throw RecordingError(path: directory.operationLog, errno: error) }
        }
    }

    /// The operation log cannot be opened: the sweep would have nothing to build from.
    struct RecordingError: Error, CustomStringConvertible {
        let path: String
        let errno: Int32
        var description: String { "cannot open the operation log \(path): \(String(cString: strerror(errno)))" }
    }
}
