import CSQLite
import CSpaceVFS
import Foundation

/// What the shim VFS recorded of one replay of the run (`StorageFault.recordOperations`):
/// every write, truncate, sync, creation and deletion of the database's files in the
/// order they happened, across launches, and the versions the app committed between them.
struct OperationLog: Sendable {
    /// One recorded operation.
    struct Operation: Sendable, Equatable {
        enum Kind: Sendable, Equatable {
            /// `bytes` are the written bytes' place in `OperationLog.data`.
            case write(offset: Int, bytes: Range<Int>)
            case truncate(size: Int)
            /// `full`: the sync asked for SQLITE_SYNC_FULL (F_FULLFSYNC).
            case sync(full: Bool)
            case create
            /// `directorySynced`: the directory was synced after the unlink (`synchronous=EXTRA`).
            case delete(directorySynced: Bool)
            /// The app committed `version` (after the operations before it).
            case commit(version: Int)
        }

        var kind: Kind
        var file: DatabaseFile

        /// Whether it changes a directory entry rather than a file's bytes.
        var changesDirectory: Bool {
            switch kind {
            case .create, .delete: return true
            default: return false
            }
        }
    }

    /// The log file's bytes: the written data that operations point into.
    let data: [UInt8]
    let operations: [Operation]

    /// A log that ends inside a record, or names an operation this code does not know:
    /// the shim wrote something else than what is read here, or the disk filled.
    struct Unreadable: Error, CustomStringConvertible {
        let path: String
        let offset: Int
        var description: String { "the operation log \(path) cannot be read past byte \(offset)" }
    }

    init(path: String) throws {
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let header = MemoryLayout<spacevfs_record>.size
        var operations: [Operation] = []
        var at = 0
        while at < data.count {
            guard at + header <= data.count else { throw Unreadable(path: path, offset: at) }
            let record = data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: spacevfs_record.self) }
            let start = at + header
            let file = DatabaseFile(vfsClass: Int(record.file_class))
            let kind: Operation.Kind
            switch Int(record.op) {
            case SPACEVFS_OP_WRITE:
                let end = start + Int(record.length)
                guard record.length >= 0, end <= data.count else { throw Unreadable(path: path, offset: at) }
                kind = .write(offset: Int(record.offset), bytes: start..<end)
                at = end
            case SPACEVFS_OP_TRUNCATE: kind = .truncate(size: Int(record.offset)); at = start
            case SPACEVFS_OP_SYNC: kind = .sync(full: Int32(record.flags) & 0x0F == SQLITE_SYNC_FULL); at = start
            case SPACEVFS_OP_CREATE: kind = .create; at = start
            case SPACEVFS_OP_DELETE: kind = .delete(directorySynced: record.flags != 0); at = start
            case SPACEVFS_OP_MARK: kind = .commit(version: Int(record.offset)); at = start
            default: throw Unreadable(path: path, offset: at)
            }
            // A deleted temp file is logged by its name's class: not a file a power cut matters to.
            guard let file else { continue }
            operations.append(Operation(kind: kind, file: file))
        }
        self.data = data
        self.operations = operations
    }

    /// The bytes a write wrote.
    func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> { data[range] }
}
