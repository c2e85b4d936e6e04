import Foundation
import Glibc

/// A job's private directory: a random 128-bit id, mode 0700.
public struct JobDirectory: Sendable {
    public var id: String
    public var path: String

    /// Creates `parent/<id>`, making `parent` too when it is missing.
    public static func create(parent: String) throws -> JobDirectory {
        try FileManager.default.createDirectory(
            atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let id = JobID.make()
        let path = (parent as NSString).appendingPathComponent(id)
        guard mkdir(path, 0o700) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return JobDirectory(id: id, path: path)
    }
}
