import CMicroHTTPD
import Foundation
import MigrationCore

/// The libmicrohttpd daemon and its callbacks: a thin adapter that hands each piece of
/// a request to the service's step for it (`Service.begin`, `receive`, `finish`) and
/// keeps the request's state in an `Exchange`. Every exchange counts as in flight
/// (`Lifecycle`) from its headers to its end, so that a graceful shutdown waits for its
/// answer.
///
/// Threading: a thread per connection (`MHD_USE_THREAD_PER_CONNECTION` with an internal
/// poll thread for accepting). A job can take minutes; its connection's thread blocks
/// in the access handler's last call while the job runs on a thread of its own, and
/// watches its own socket (`poll` for `POLLRDHUP`) every 100 ms, so a client that goes
/// away cancels its job at once. Suspend/resume was the alternative: it frees the
/// thread, but a suspended connection cannot see its client leave, and every
/// suspended connection must be resumed before the daemon stops. Other requests are
/// never behind a job or an upload: each connection has its own thread, so `/healthz`
/// answers at once while jobs and uploads run.
///
/// Connections: a thread each is bounded by `max_connections` (libmicrohttpd's total
/// limit; past it libmicrohttpd closes new connections at once). A client that opens that
/// many connections from as many addresses (`per_ip_connection_limit` does not see it) and
/// sends half a request line on each fills that limit for the header timeout, and again
/// after, so `/healthz` and `/metrics` also answer on a second listener, the probe port
/// (`probe_port`): one polling thread (epoll) for all its connections, so idle ones cost
/// a descriptor and no thread, serving those two routes only, which never block. The
/// alternatives: a reserve under the one limit cannot tell a probe from an attacker before
/// its request line is in, nor can an accept policy, which sees only the address; a
/// polling thread pool for every connection would need suspend/resume around each job,
/// whose costs are said above.
final class Daemon: @unchecked Sendable {
    /// Connections the probe port holds at once. Each costs a descriptor and a little
    /// memory, no thread; the header timeout closes idle ones.
    static let probeConnectionLimit: UInt32 = 1024
    /// Memory per probe connection: requests without bodies, small answers.
    static let probeConnectionMemoryLimit = 32 * 1024
    /// Per-connection buffer: upload pieces of up to ~512 KiB per callback, which doubles
    /// the upload throughput of the 32 KiB default (fewer calls and writes). Pages are
    /// touched only as used, so idle connections stay small.
    static let connectionMemoryLimit = 1024 * 1024
    /// Idle time allowed before a request's headers are complete: a connection that opens
    /// and says nothing holds a thread and a place under the connection limit, so it gets
    /// less than `connection_timeout_s`, which applies once the headers are in.
    static let headerTimeoutSeconds = 10
    /// How long a refused upload's remaining body is read and dropped after the answer.
    static let lingerMilliseconds: Int32 = 2000

    let service: Service
    private var handle: OpaquePointer?
    private var probeHandle: OpaquePointer?
    /// The callbacks' contexts, alive as long as the daemons.
    private let main: Listener
    private let probes: Listener

    init(service: Service) {
        self.service = service
        main = Listener(service: service, probesOnly: false)
        probes = Listener(service: service, probesOnly: true)
    }

    /// Starts listening; answers the ports (the real ones when configured 0).
    func start() throws(ConfigurationError) -> (port: UInt16, probePort: UInt16) {
        let configuration = service.configuration
        let flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_POLL.rawValue
            | MHD_USE_ITC.rawValue
        let context = Unmanaged.passUnretained(main).toOpaque()
        let started = preflight_mhd_start(
            UInt32(flags), configuration.bind, UInt16(configuration.port), accessHandler, context, requestCompleted, context,
            UInt32(Daemon.headerTimeout(configuration)), UInt32(configuration.perIPConnectionLimit),
            UInt32(configuration.maxConnections), Daemon.connectionMemoryLimit)
        guard let started else {
            throw ConfigurationError(
                key: "bind, port", message: "cannot listen on \(configuration.bind):\(configuration.port): \(Daemon.startError)")
        }
        handle = started
        let probeFlags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ITC.rawValue
        let probeContext = Unmanaged.passUnretained(probes).toOpaque()
        let probeStarted = preflight_mhd_start(
            UInt32(probeFlags), configuration.bind, UInt16(configuration.probePort), accessHandler, probeContext,
            requestCompleted, probeContext, UInt32(Daemon.headerTimeout(configuration)),
            UInt32(configuration.perIPConnectionLimit), Daemon.probeConnectionLimit, Daemon.probeConnectionMemoryLimit)
        guard let probeStarted else {
            let reason = Daemon.startError
            stop()
            throw ConfigurationError(
                key: "bind, probe_port",
                message: "cannot listen on \(configuration.bind):\(configuration.probePort) for /healthz and /metrics: \(reason)")
        }
        probeHandle = probeStarted
        return (preflight_mhd_daemon_port(started), preflight_mhd_daemon_port(probeStarted))
    }

    private static var startError: String {
        errno == 0 ? "libmicrohttpd could not start" : String(cString: strerror(errno))
    }

    /// The timeout of the header phase: the shorter of `headerTimeoutSeconds` and the
    /// configured one (0 there means never, but not for the headers).
    static func headerTimeout(_ configuration: ServiceConfiguration) -> Int {
        configuration.connectionTimeoutS == 0 ? headerTimeoutSeconds : min(headerTimeoutSeconds, configuration.connectionTimeoutS)
    }

    /// Stops accepting new connections on the main port; open ones go on, and the probe
    /// port answers (`/healthz` says `draining`) until `stop`.
    func quiesce() {
        guard let handle else { return }
        let socket = MHD_quiesce_daemon(handle)
        if socket >= 0 { close(socket) }
    }

    /// Closes every connection and joins their threads: call only once no handler is
    /// blocked in a job (every job has ended).
    func stop() {
        if let probeHandle {
            self.probeHandle = nil
            MHD_stop_daemon(probeHandle)
        }
        guard let handle else { return }
        self.handle = nil
        MHD_stop_daemon(handle)
    }
}

/// What a daemon's callbacks get as their context: the service, and whether this is the
/// probe port, which answers `/healthz` and `/metrics` and nothing else.
private final class Listener: Sendable {
    let service: Service
    let probesOnly: Bool

    init(service: Service, probesOnly: Bool) {
        self.service = service
        self.probesOnly = probesOnly
    }

    /// What the headers decided: the service's answer, or 404 for anything but a probe on
    /// the probe port (nothing there may block its one thread).
    func begin(_ request: Request) -> Service.Begin {
        if probesOnly, request.route != .health, request.route != .metrics {
            return .respond(.error(.notFound("the probe port answers /healthz and /metrics only")))
        }
        return service.begin(request)
    }
}

// MARK: - Callbacks (global functions: libmicrohttpd calls them on its own threads)

/// Called after the headers (`*con_cls == NULL`), once per piece of body, and once more
/// with `*upload_data_size == 0` when the body is complete (or right away when there is
/// none). Hands each to the service's step for it.
private func accessHandler(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
    version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>?,
    conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let conCls, let uploadDataSize else { return .NO }
    let listener = Unmanaged<Listener>.fromOpaque(cls).takeUnretainedValue()
    let service = listener.service

    // > After the headers: the service decides everything that does not need the body.
    guard let pointer = conCls.pointee else {
        // The headers are in: from here the configured idle timeout applies.
        preflight_mhd_set_connection_timeout(connection, UInt32(service.configuration.connectionTimeoutS))
        let request = readRequest(connection, url: url, method: method)
        let exchange = Exchange(request: request)
        conCls.pointee = Unmanaged.passRetained(exchange).toOpaque()
        service.lifecycle.enter()
        switch listener.begin(request) {
        case .respond(let response) where request.hasBody:
            // Answered before the body is read; libmicrohttpd then closes the connection.
            return queue(response, on: connection, for: exchange)
        case .respond(let response):
            exchange.stage = .pending(response)
            return .YES
        case .upload(let upload):
            exchange.jobID = upload.id
            if upload.bodyKind == .multipart, !upload.attachPostProcessor(connection) {
                service.discard(upload)
                return queue(
                    .error(.badRequest("multipart/form-data needs a boundary parameter in Content-Type")), on: connection,
                    for: exchange)
            }
            exchange.stage = .uploading(upload)
            return .YES
        }
    }
    let exchange = Unmanaged<Exchange>.fromOpaque(pointer).takeUnretainedValue()

    // > A piece of the body: straight to disk.
    if uploadDataSize.pointee > 0 {
        let count = uploadDataSize.pointee
        uploadDataSize.pointee = 0
        exchange.bytesIn += Int64(count)
        guard case .uploading(let upload) = exchange.stage, let uploadData else { return .YES }
        do {
            try service.receive(upload, bytes: UnsafeRawPointer(uploadData), count: count)
            return .YES
        } catch {
            exchange.stage = .over
            answerMidBody(.error(error), on: connection, for: exchange)
            return .NO
        }
    }

    // > The body is complete.
    switch exchange.stage {
    case .over:
        return .YES
    case .pending(let response):
        exchange.stage = .over
        return queue(response, on: connection, for: exchange)
    case .uploading(let upload):
        // From here the service owns the upload. The job runs now, blocking this
        // connection's thread, which watches its own socket for the client leaving.
        exchange.stage = .over
        let socket = preflight_mhd_connection_fd(connection)
        let answer = service.finish(upload, request: exchange.request) {
            socket >= 0 && preflight_peer_closed(socket, 0) != 0
        }
        switch answer {
        case .response(let response):
            return queue(response, on: connection, for: exchange)
        case .clientGone:
            exchange.outcome = Metrics.cancelledOutcome
            return .NO
        }
    }
}

/// Called when a request ends: answered, or broken off by the client, a timeout or the
/// daemon stopping. Cleans up an upload that never finished, logs and counts.
private func requestCompleted(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    termination: MHD_RequestTerminationCode
) {
    guard let cls, let conCls, let pointer = conCls.pointee else { return }
    conCls.pointee = nil
    let service = Unmanaged<Listener>.fromOpaque(cls).takeUnretainedValue().service
    let exchange = Unmanaged<Exchange>.fromOpaque(pointer).takeRetainedValue()
    if case .uploading(let upload) = exchange.stage {
        // The client left (or the server stopped) in the middle of the upload.
        exchange.stage = .over
        service.discard(upload)
        exchange.outcome = Metrics.cancelledOutcome
    }
    service.lifecycle.leave()
    service.record(exchange.logEntry)
}

// MARK: - Reading and answering

/// The request's method, path, query arguments and headers.
private func readRequest(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?) -> Request {
    let headers = ValueCollector()
    let query = ValueCollector()
    _ = MHD_get_connection_values(connection, .HEADER_KIND, collectValue, Unmanaged.passUnretained(headers).toOpaque())
    _ = MHD_get_connection_values(
        connection, .GET_ARGUMENT_KIND, collectValue, Unmanaged.passUnretained(query).toOpaque())
    var headerValues: [String: String] = [:]
    for (name, value) in headers.values { headerValues[name.lowercased()] = value }
    var queryValues: [String: String] = [:]
    for (name, value) in query.values { queryValues[name] = value }
    return Request(
        method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
        query: queryValues, headers: headerValues)
}

private final class ValueCollector {
    var values: [(String, String)] = []
}

private func collectValue(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let collector = Unmanaged<ValueCollector>.fromOpaque(cls).takeUnretainedValue()
    collector.values.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
    return .YES
}

/// Queues `response` (possible right after the headers, or once the body is complete).
private func queue(_ response: HTTPResponse, on connection: OpaquePointer, for exchange: Exchange) -> MHD_Result {
    exchange.took(response)
    let handle: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
        handle = bytes.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(
                buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
        }
    case .file(let path, let size):
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return queue(.error(.notFound("the job's database is gone")), on: connection, for: exchange)
        }
        // libmicrohttpd owns the descriptor from here and closes it with the response.
        handle = MHD_create_response_from_fd64(UInt64(size), descriptor)
        if handle == nil { close(descriptor) }
    }
    guard let handle else { return .NO }
    for header in response.headers {
        _ = MHD_add_response_header(handle, header.name, header.value)
    }
    let result = MHD_queue_response(connection, UInt32(response.status), handle)
    MHD_destroy_response(handle)
    return result
}

/// Answers in the middle of a body (413, or a bad multipart part), which libmicrohttpd
/// cannot queue: written on the socket, then the connection closes.
private func answerMidBody(_ response: HTTPResponse, on connection: OpaquePointer, for exchange: Exchange) {
    exchange.took(response)
    let socket = preflight_mhd_connection_fd(connection)
    guard socket >= 0 else { return }
    let bytes = response.wireBytes
    bytes.withUnsafeBytes { buffer in
        preflight_answer_mid_body(
            socket, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), buffer.count, Daemon.lingerMilliseconds)
    }
}
