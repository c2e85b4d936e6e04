import CMicroHTTPD
import Foundation

/// The answer to a `POST /v1/migrations` whose `Accept` names `text/event-stream`: the
/// job's progress as server-sent events while it runs, then its report. The upload page
/// asks for it, so that a person sees the work go on instead of a spinning browser.
///
///     event: progress
///     data: launch 1: step 2 "sync status" applied in 3 ms (index), 20 rows
///
///     event: report
///     data: <the report, in the form `format=` asks for (JSON by default), one data line per line>
///
/// `progress` carries the lines `preflight run` prints on stderr, one event each. The last
/// event is `report`, or `error` with the JSON error body (`{"error": {"code", "message"}}`)
/// when the job ended without one (a bad plan or option, the server shutting down); then
/// the stream ends. Errors found before the body is read keep their own status (413, 415,
/// 503): the stream's 200 is sent only once the upload is in.
///
/// libmicrohttpd pulls the body (`MHD_create_response_from_callback`, chunked): a pull that
/// finds nothing yet suspends the connection, and the next event resumes it (returning 0
/// instead would busy-wait). Suspending and resuming both happen under `lock`, so that a
/// resume never comes before its suspend. The job's thread writes; libmicrohttpd's polling
/// thread reads.
final class ProgressStream: @unchecked Sendable {
    static let mediaType = "text/event-stream"

    /// Whether `accept` asks for the stream (a `text/event-stream` item not refused with `q=0`).
    static func isAsked(accept: String?) -> Bool {
        guard let accept else { return false }
        return accept.split(separator: ",").contains { item in
            let fields = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard fields.first == mediaType else { return false }
            return !fields.dropFirst().contains { $0.hasPrefix("q=") && (Double($0.dropFirst(2)) ?? 0) == 0 }
        }
    }

    private let lock = NSLock()
    private var pending: [UInt8] = []
    private var ended = false
    private var suspended = false
    /// libmicrohttpd is done with the connection (the response was freed): nothing may
    /// touch it any more.
    private var closed = false
    private let connection: UInt
    private let socket: Int32
    /// Told +1 when the connection is suspended and -1 when it is resumed, so that the
    /// daemon stops only once none is left suspended.
    private let suspensions: @Sendable (Int) -> Void
    private var finalOutcome: String?

    /// The outcome of the report sent, for the request log.
    var outcome: String? { lock.withLock { finalOutcome } }

    init(connection: OpaquePointer, suspensions: @escaping @Sendable (Int) -> Void) {
        self.connection = UInt(bitPattern: connection)
        socket = preflight_mhd_connection_fd(connection)
        self.suspensions = suspensions
    }

    // MARK: - The job's side

    /// One `progress` event.
    func progress(_ line: String) { append(Self.event("progress", line), ending: false) }

    /// The last event: the report (`report`) or the error (`error`) that ends the job.
    func finish(with response: HTTPResponse) {
        let bytes: [UInt8]
        switch response.body {
        case .bytes(let body): bytes = body
        case .file: bytes = []
        }
        lock.withLock { finalOutcome = response.outcome }
        append(Self.event(response.status == 200 ? "report" : "error", String(decoding: bytes, as: UTF8.self)), ending: true)
    }

    /// Ends the stream with nothing more to say (the client left).
    func end() { append([], ending: true) }

    /// Whether the client has gone: the connection closed, or its peer hung up (seen on
    /// the socket only while libmicrohttpd still holds it open).
    var clientGone: Bool {
        lock.withLock { closed || (socket >= 0 && preflight_peer_closed(socket, 0) != 0) }
    }

    private func append(_ bytes: [UInt8], ending: Bool) {
        lock.withLock {
            guard !ended else { return }
            pending += bytes
            ended = ending
            if suspended, !closed {
                suspended = false
                MHD_resume_connection(OpaquePointer(bitPattern: connection))
                suspensions(-1)
            }
        }
    }

    // MARK: - libmicrohttpd's side

    /// Copies what is pending into `buffer`; at the end, `MHD_CONTENT_READER_END_OF_STREAM`.
    fileprivate func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        lock.withLock {
            if pending.isEmpty {
                if ended { return -1 }
                suspended = true
                suspensions(1)
                MHD_suspend_connection(OpaquePointer(bitPattern: connection))
                return 0
            }
            let count = min(max, pending.count)
            pending.withUnsafeBytes { source in
                UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress!, byteCount: count)
            }
            pending.removeFirst(count)
            return count
        }
    }

    fileprivate func connectionClosed() { lock.withLock { closed = true } }

    /// The response libmicrohttpd sends: 200, chunked, pulled from this stream, which it
    /// keeps alive until it frees the response.
    func response() -> OpaquePointer? {
        let context = Unmanaged.passRetained(self).toOpaque()
        guard let handle = MHD_create_response_from_callback(UInt64.max, 16 * 1024, readStream, context, freeStream) else {
            Unmanaged<ProgressStream>.fromOpaque(context).release()
            return nil
        }
        _ = MHD_add_response_header(handle, "Content-Type", Self.mediaType)
        _ = MHD_add_response_header(handle, "Cache-Control", "no-store")
        return handle
    }

    /// One event: its name, then its data, one `data:` line per line (the format has no
    /// way to escape a line break).
    static func event(_ name: String, _ data: String) -> [UInt8] {
        let lines = data.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false)
        return Array(("event: \(name)\n" + lines.map { "data: \($0)\n" }.joined() + "\n").utf8)
    }
}

private func readStream(cls: UnsafeMutableRawPointer?, position: UInt64, buffer: UnsafeMutablePointer<CChar>?, max: Int) -> Int {
    guard let cls, let buffer else { return -2 }
    return Unmanaged<ProgressStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
}

private func freeStream(cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    let stream = Unmanaged<ProgressStream>.fromOpaque(cls).takeRetainedValue()
    stream.connectionClosed()
}
