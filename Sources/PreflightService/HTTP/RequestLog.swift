import Foundation
import MigrationCore
import Simulation
import Synchronization

/// One JSON line per request on stderr:
/// `{"method","route","status","bytes_in","bytes_out","ms","job_id","outcome"}`.
final class RequestLog: Sendable {
    struct Entry: Sendable {
        var method: String
        var route: String
        var status: Int
        var bytesIn: Int64
        var bytesOut: Int64
        var ms: Int
        var jobID: String?
        var outcome: String?
    }

    /// The status logged and counted for a request that got no answer because the client
    /// went away: nginx's 499 ("client closed request"). It never goes on the wire.
    static let clientClosedStatus = 499

    private let lock = Mutex(())
    private let enabled: Bool

    init(enabled: Bool = true) { self.enabled = enabled }

    func write(_ entry: Entry) {
        guard enabled else { return }
        let line = RequestLog.line(entry)
        lock.withLock { _ in
            _ = Array(line.utf8).withUnsafeBytes { writeAll(2, $0) }
        }
    }

    static func line(_ entry: Entry) -> String {
        let fields: [(String, JSONValue)] = [
            ("method", .string(entry.method)), ("route", .string(entry.route)), ("status", .number(Double(entry.status))),
            ("bytes_in", .number(Double(entry.bytesIn))), ("bytes_out", .number(Double(entry.bytesOut))),
            ("ms", .number(Double(entry.ms))), ("job_id", entry.jobID.map(JSONValue.string) ?? .null),
            ("outcome", entry.outcome.map(JSONValue.string) ?? .null),
        ]
        return "{" + fields.map { JSONValue.string($0.0).canonicalText + ":" + $0.1.canonicalText }.joined(separator: ",") + "}\n"
    }
}
