import Foundation
import Glibc
import MigrationCore

/// The database's files as one moment of the disk holds them: each file's bytes, or no
/// entry for a file that is not there.
struct DiskImage: Sendable, Equatable {
    var files: [DatabaseFile: [UInt8]]

    /// The files as they are on this machine's disk now.
    static func read(_ database: DatabaseFiles) throws -> DiskImage {
        var files: [DatabaseFile: [UInt8]] = [:]
        for file in DatabaseFile.allCases where FileManager.default.fileExists(atPath: file.path(in: database)) {
            files[file] = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file.path(in: database))))
        }
        return DiskImage(files: files)
    }

    /// Puts these files where `database` names them, removes those it lacks and the
    /// `-shm` (a power cut never leaves a wal-index SQLite trusts: the next open rebuilds it).
    func write(to database: DatabaseFiles) throws {
        let manager = FileManager.default
        if manager.fileExists(atPath: database.shm) { try manager.removeItem(atPath: database.shm) }
        for file in DatabaseFile.allCases {
            let path = file.path(in: database)
            if let bytes = files[file] {
                let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else { throw FileError("cannot create", path) }
                defer { close(descriptor) }
                guard bytes.withUnsafeBytes({ writeAll(descriptor, $0) }) else { throw FileError("cannot write", path) }
            } else if manager.fileExists(atPath: path) {
                try manager.removeItem(atPath: path)
            }
        }
    }

    /// A SHA-256 of every file, to know two crash states that left the same disk.
    var sha256: String {
        var hasher = SHA256()
        for file in DatabaseFile.allCases {
            guard let bytes = files[file] else { continue }
            hasher.update([UInt8(file.rawValue)] + withUnsafeBytes(of: UInt64(bytes.count).littleEndian, Array.init))
            hasher.update(bytes)
        }
        return hasher.finalizeHex()
    }

    /// Does what `operation` did, as the disk would once it reached the medium. A write or
    /// truncate of a file without an entry is lost with it.
    mutating func apply(_ operation: OperationLog.Operation, from log: OperationLog) {
        switch operation.kind {
        case .write(let offset, let bytes):
            change(operation.file) { $0.overwrite(at: offset, with: log.bytes(bytes)) }
        case .truncate(let size):
            change(operation.file) { content in
                if size < content.count { content.removeLast(content.count - size) } else { content.grow(to: size) }
            }
        case .create:
            if files[operation.file] == nil { files[operation.file] = [] }
        case .delete:
            files[operation.file] = nil
        case .sync, .commit:
            break
        }
    }

    /// Changes a file's bytes in place (out of the dictionary while changed, so not copied).
    mutating func change(_ file: DatabaseFile, _ body: (inout [UInt8]) -> Void) {
        guard var content = files.removeValue(forKey: file) else { return }
        body(&content)
        files[file] = content
    }
}

extension Array where Element == UInt8 {
    /// Zeroes up to `size` bytes, as a write past the end or a growing truncate leaves them.
    mutating func grow(to size: Int) {
        if size > count { append(contentsOf: repeatElement(0, count: size - count)) }
    }

    /// Writes `bytes` at `offset`, growing the file as a write past its end does.
    mutating func overwrite<Bytes: Collection>(at offset: Int, with bytes: Bytes) where Bytes.Element == UInt8 {
        grow(to: offset + bytes.count)
        replaceSubrange(offset..<(offset + bytes.count), with: bytes)
    }
}
