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
        let id = randomID()
        let path = (parent as NSString).appendingPathComponent(id)
        guard mkdir(path, 0o700) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return JobDirectory(id: id, path: path)
    }

    /// 128 random bits as 32 hex digits.
    public static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let text = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }.joined()
    }
}
