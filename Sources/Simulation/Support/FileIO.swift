import CProcess
import Foundation
import Glibc

/// Writes all of `bytes` to `descriptor`, going on after short writes and EINTR; false
/// on an error (errno says which).
@discardableResult
public func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var offset = 0
    while offset < bytes.count {
        let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return false }
        offset += written
    }
    return true
}

/// The size of the file at `path`, or nil when it cannot be read.
public func fileSize(_ path: String) -> Int64? {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : nil
}

/// Copies `path` to the new file `copy` with copy_file_range(2): the kernel moves the
/// bytes (or shares the extents, on a filesystem with reflinks) without a trip through
/// this process. Where the kernel cannot (an older one, across filesystems), the bytes
/// are read and written in pieces (`readPieces`). (Foundation's `copyItem` moves 4 KiB per
/// `sendfile` call, several times slower on a large file.)
///
/// `durable`: the copy is on the disk when this returns (fdatasync), its pages sent there
/// behind the copy as it goes (`WriteBehind`), so that the sync only waits for the tail.
public func copyFile(_ path: String, to copy: String, durable: Bool = false) throws(FileError) {
    let source = open(path, O_RDONLY | O_CLOEXEC)
    guard source >= 0 else { throw FileError("cannot open", path) }
    defer { close(source) }
    let destination = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard destination >= 0 else { throw FileError("cannot create", copy) }
    defer { close(destination) }
    let writeBehind = durable ? WriteBehind(destination) : nil
    defer { writeBehind?.stop() }
    try appendContents(of: source, path, to: destination, copy) { copied in writeBehind?.wrote(through: copied) }
    guard let writeBehind else { return }
    writeBehind.stop()
    guard fdatasync(destination) == 0 else { throw FileError("cannot write", copy) }
}

/// Puts the file at `path` on the disk (fdatasync).
func syncFile(_ path: String) throws(FileError) {
    let descriptor = open(path, O_RDWR | O_CLOEXEC)
    guard descriptor >= 0 else { throw FileError("cannot open", path) }
    defer { close(descriptor) }
    guard fdatasync(descriptor) == 0 else { throw FileError("cannot write", path) }
}

/// Appends what is left of `source` to `destination` (`copyFile`'s two ways), telling
/// `copied` the bytes appended so far after each piece.
private func appendContents(
    of source: Int32, _ path: String, to destination: Int32, _ copy: String, copied: (Int64) -> Void
) throws(FileError) {
    var total: Int64 = 0
    while true {
        // Pieces of 8 MiB, so that a write-behind can follow.
        let count = preflight_copy_file_range(source, destination, 8 << 20)
        if count > 0 {
            total += Int64(count)
            copied(total)
            continue
        }
        if count == 0 { return }
        if errno == EINTR { continue }
        guard total == 0, [ENOSYS, EXDEV, EOPNOTSUPP, EINVAL].contains(errno) else {
            throw FileError("cannot copy to", copy)
        }
        break
    }
    try readPieces(of: source, path: path) { (piece) throws(FileError) in
        guard writeAll(destination, piece) else { throw FileError("cannot write", copy) }
        total += Int64(piece.count)
        copied(total)
    }
}

/// Reads the open file `descriptor` (at `path`, for the error) from where it stands to
/// its end in 128 KiB pieces, handing each to `body`.
///
/// A piece small enough to stay in the core's own cache between the kernel copying it
/// in and `body` reading it: hashing in 1 MiB pieces cost a third more CPU.
func readPieces(
    of descriptor: Int32, path: String, _ body: (UnsafeRawBufferPointer) throws(FileError) -> Void
) throws(FileError) {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 128 << 10, alignment: 1)
    defer { buffer.deallocate() }
    while true {
        let count = read(descriptor, buffer.baseAddress, buffer.count)
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else { throw FileError("cannot read", path) }
        if count == 0 { return }
        try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }
}

/// A file that could not be read or written, with the system's reason.
public struct FileError: Error, CustomStringConvertible {
    public let description: String

    init(_ what: String, _ path: String) {
        description = "\(what) \((path as NSString).lastPathComponent): \(String(cString: strerror(errno)))"
    }
}

/// Moves the file at `path` to `destination`, replacing a file there (never a folder):
/// a rename when both are on one filesystem, so that no byte is copied and the file
/// need not be freed; across filesystems a copy (`copyFile`), the original left in place
/// for its owner to remove.
public func moveFile(_ path: String, to destination: String) throws(FileError) {
    if rename(path, destination) == 0 { return }
    guard errno == EXDEV else { throw FileError("cannot move the file to", destination) }
    guard unlink(destination) == 0 || errno == ENOENT else { throw FileError("cannot replace", destination) }
    try copyFile(path, to: destination)
}

/// Whether `path` and `other` name the same file (a link or another spelling included);
/// false when either does not exist.
public func isSameFile(_ path: String, _ other: String) -> Bool {
    var first = stat(), second = stat()
    guard stat(path, &first) == 0, stat(other, &second) == 0 else { return false }
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino
}
