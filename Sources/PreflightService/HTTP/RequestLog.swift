import Foundation
import Glibc
import MigrationCore
import Simulation
import Synchronization

/// The server's log on stderr: every line is one JSON object,
/// `{"time", "level", "msg", ...fields}`, `time` in RFC 3339 with milliseconds in UTC.
/// A request's line carries `method, route, status, bytes_in, bytes_out, ms, job_id,
/// outcome`; start-up and shutdown have lines of their own (`listening on http://...`).
/// Debug lines (a job's progress) are written only at `log_level` `debug`.
/// Under `preflight serve`, lines go to the real stderr that `StderrRelay` saved, and what
/// others write on fd 2 (the workers) comes back through the relay as lines of this log.
final class RequestLog: Sendable {
    typealias Level = LogLevel

    struct Entry: Sendable {
        var method: String
        var route: String
        var status: Int
        var bytesIn: Int64
        var bytesOut: Int64
        var ms: Int
        var jobID: String?
        var outcome: String?
        /// An internal error's: its request id (in the answer's body too) and what went wrong.
        var fault: HTTPError.Fault?
        /// The same time as `ms`, unrounded: what the request-duration histogram observes.
        var seconds: Double = 0
    }

    /// The status logged and counted for a request that got no answer because the client
    /// went away: nginx's 499 ("client closed request"). It never goes on the wire.
    static let clientClosedStatus = 499

    private let lock = Mutex(())
    private let enabled: Bool
    /// The least level written.
    let level: Level
    /// Where lines go: stderr, or the real stderr saved by `StderrRelay` once fd 2 is its pipe.
    private let descriptor: Int32

    init(enabled: Bool = true, level: Level = .info, descriptor: Int32 = 2) {
        self.enabled = enabled
        self.level = level
        self.descriptor = descriptor
    }

    var writesDebug: Bool { enabled && level <= .debug }

    /// A finished request.
    func write(_ entry: Entry) {
        let fields: [(String, JSONValue)] = [
            ("method", .string(entry.method)), ("route", .string(entry.route)), ("status", .number(Double(entry.status))),
            ("bytes_in", .number(Double(entry.bytesIn))), ("bytes_out", .number(Double(entry.bytesOut))),
            ("ms", .number(Double(entry.ms))), ("job_id", entry.jobID.map(JSONValue.string) ?? .null),
            ("outcome", entry.outcome.map(JSONValue.string) ?? .null),
        ] + (entry.fault.map { [("request_id", .string($0.requestID)), ("detail", .string($0.detail))] } ?? [])
        write(entry.fault == nil ? .info : .error, "\(entry.method) \(entry.route) \(entry.status)", fields)
    }

    /// Any other line: start-up, shutdown, a job's progress.
    func write(_ level: Level, _ message: String, _ fields: [(String, JSONValue)] = []) {
        guard enabled, level >= self.level else { return }
        let line = RequestLog.line(time: Date(), level: level, message: message, fields: fields)
        lock.withLock { _ in
            _ = Array(line.utf8).withUnsafeBytes { writeAll(descriptor, $0) }
        }
    }

    static func line(time: Date, level: Level, message: String, fields: [(String, JSONValue)]) -> String {
        let all = [("time", JSONValue.string(timestamp(time))), ("level", .string(level.rawValue)), ("msg", .string(message))] + fields
        return "{" + all.map { JSONValue.string($0.0).canonicalText + ":" + $0.1.canonicalText }.joined(separator: ",") + "}\n"
    }

    /// RFC 3339 in UTC with milliseconds: `2025-05-01T09:30:12.345Z`.
    static func timestamp(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        let milliseconds = min(999, Int((interval - Double(seconds)) * 1000))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), milliseconds)
    }
}
