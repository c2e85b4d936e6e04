import Foundation

/// A directory of its own for one test, removed when the value goes away.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "test") {
        let base = NSTemporaryDirectory() + "preflight-\(label)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ name: String) -> String { path + "/" + name }
}
