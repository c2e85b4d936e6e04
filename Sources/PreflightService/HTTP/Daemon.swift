import CMicroHTTPD
import Foundation
import MigrationCore
import Synchronization

/// The libmicrohttpd daemon and its callbacks: a thin adapter that hands each piece of
/// a request to the service's step for it (`Service.begin`, `receive`, `finish`) and
/// keeps the request's state in an `Exchange`. Every exchange counts as in flight
/// (`Lifecycle`) from its headers to its end, so that a graceful shutdown waits for its
/// answer.
///
/// Threading: a small pool of polling threads (`MHD_USE_EPOLL_INTERNAL_THREAD` with
/// `MHD_OPTION_THREAD_POOL_SIZE`) serves every connection, so an idle or half-sent
/// connection costs a descriptor and a little memory, never a thread: many thousands of
/// them leave the port serving (thread-per-connection, before, let a few hundred take
/// every thread the connection limit allowed). Nothing on a polling thread may block, or
/// every connection it serves waits: a request whose job runs (for minutes) is suspended
/// (`MHD_suspend_connection`) once its body is in, a thread of its own waits for the job
/// and watches the connection's socket (`poll` for `POLLRDHUP`) every 100 ms, so that a
/// client that goes away cancels its job at once (libmicrohttpd cannot see that while a
/// connection is suspended), and the connection is resumed with the answer. An answer
/// given in the middle of a body lingers on the dispatch queue of `LingeringClose`, not
/// here. Those threads are bounded by the admission places (`JobScheduler`); every
/// suspended connection is resumed before the daemon stops (libmicrohttpd requires it).
///
/// Connections: idle ones are cheap, so `max_connections` is large; the header timeout
/// closes a connection whose request has not arrived in time, and `per_ip_connection_limit`
/// bounds one address. `/healthz` and `/metrics` also answer on a second listener, the
/// probe port (`probe_port`), serving those two routes only, which never block: for
/// probes that must not share a port with the public, and should the main port's limit
/// ever fill.
final class Daemon: @unchecked Sendable {
    /// Connections the probe port holds at once. Each costs a descriptor and a little
    /// memory, no thread; the header timeout closes idle ones.
    static let probeConnectionLimit: UInt32 = 1024
    /// Memory per probe connection: requests without bodies, small answers.
    static let probeConnectionMemoryLimit = 32 * 1024
    /// Per-connection buffer: upload pieces of up to ~512 KiB per callback, which doubles
    /// the upload throughput of the 32 KiB default (fewer calls and writes). libmicrohttpd
    /// maps it without touching it: pages are touched only as used, so idle connections
    /// stay small.
    static let connectionMemoryLimit = 1024 * 1024
    /// Polling threads of the main port: more than one, so that an upload's piece being
    /// written to disk on one does not hold up every other connection.
    static let pollingThreads: UInt32 = 4
    /// Idle time allowed before a request's headers are complete: a connection that opens
    /// and says nothing holds a place under the connection limit, so it gets less than
    /// `connection_timeout_s`, which applies once the headers are in.
    static let headerTimeoutSeconds = 10
    /// Descriptors kept free beyond `max_connections`: the probe port, jobs' files, workers' pipes.
    static let spareDescriptors = 2048
    /// How long a refused upload's remaining body is read and dropped after the answer.
    static let lingerMilliseconds = 2000

    let service: Service
    private var handle: OpaquePointer?
    private var probeHandle: OpaquePointer?
    /// The callbacks' contexts, alive as long as the daemons.
    private let main: Listener
    private let probes: Listener

    /// Connections suspended while their job runs: `stop` waits for none to be left.
    var suspendedConnections: Int { main.suspended.load(ordering: .acquiring) }

    init(service: Service) {
        self.service = service
        main = Listener(service: service, probesOnly: false)
        probes = Listener(service: service, probesOnly: true)
    }

    /// Starts listening; answers the ports (the real ones when configured 0).
    func start() throws(ConfigurationError) -> (port: UInt16, probePort: UInt16) {
        let configuration = service.configuration
        // Each connection holds a descriptor: the usual soft limit of 1024 would refuse
        // connections long before `max_connections`.
        preflight_raise_descriptor_limit(UInt(configuration.maxConnections + Daemon.spareDescriptors))
        let flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        let context = Unmanaged.passUnretained(main).toOpaque()
        let started = preflight_mhd_start(
            UInt32(flags), configuration.bind, UInt16(configuration.port), accessHandler, context, requestCompleted, context,
            UInt32(Daemon.headerTimeout(configuration)), UInt32(configuration.perIPConnectionLimit),
            UInt32(configuration.maxConnections), Daemon.connectionMemoryLimit, Daemon.pollingThreads)
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
            UInt32(configuration.perIPConnectionLimit), Daemon.probeConnectionLimit, Daemon.probeConnectionMemoryLimit, 0)
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

    /// Closes every connection and joins the polling threads: call once every job has
    /// ended. Waits (at most `timeout`) for the suspended connections to be resumed with
    /// their answers; libmicrohttpd aborts the process when one is left suspended, so
    /// should one still be (a job that would not end), the main daemon is left to the
    /// process's exit.
    func stop(timeout: Duration = .seconds(10)) {
        if let probeHandle {
            self.probeHandle = nil
            MHD_stop_daemon(probeHandle)
        }
        guard let handle else { return }
        let deadline = ContinuousClock.now + timeout
        while suspendedConnections > 0, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        guard suspendedConnections == 0 else { return }
        self.handle = nil
        MHD_stop_daemon(handle)
    }
}

/// What a daemon's callbacks get as their context: the service, and whether this is the
/// probe port, which answers `/healthz` and `/metrics` and nothing else.
private final class Listener: Sendable {
    let service: Service
    let probesOnly: Bool
    /// Connections suspended while their job runs, not yet resumed.
    let suspended = Atomic<Int>(0)

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
            // A client that left mid-body: libmicrohttpd's epoll mode may not see it
            // (`preflight_body_cut_short`); closing now discards the upload.
            if let declared = exchange.request.contentLength,
                preflight_body_cut_short(preflight_mhd_connection_fd(connection), declared - exchange.bytesIn) != 0
            {
                return .NO
            }
            // A body that goes quiet is closed by the end of its time at the latest.
            if let left = upload.secondsLeft {
                let configured = service.configuration.connectionTimeoutS
                preflight_mhd_set_connection_timeout(connection, UInt32(configured == 0 ? left : min(configured, left)))
            }
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
        // From here the service owns the upload. The job may run for minutes: the
        // connection is suspended, and a thread of its own waits for the job, watching
        // the socket for the client leaving, then resumes it with the answer.
        exchange.stage = .waiting
        if ProgressStream.isAsked(accept: exchange.request.header("accept")) {
            return stream(upload, exchange: exchange, on: connection, listener: listener)
        }
        wait(for: upload, exchange: exchange, on: connection, listener: listener)
        return .YES
    case .waiting, .streaming:
        // Not called while suspended, nor once a response is queued.
        return .YES
    case .answered(.response(let response)):
        exchange.stage = .over
        return queue(response, on: connection, for: exchange)
    case .answered(.clientGone):
        exchange.stage = .over
        exchange.outcome = Metrics.cancelledOutcome
        return .NO
    }
}

/// Suspends the connection and finishes the upload's job on a thread of its own, which
/// resumes the connection with the answer in `exchange` (libmicrohttpd then calls the
/// handler again, which queues it: a response can be queued only from there).
private func wait(for upload: MigrationUpload, exchange: Exchange, on connection: OpaquePointer, listener: Listener) {
    let service = listener.service
    let socket = preflight_mhd_connection_fd(connection)
    let connectionBits = UInt(bitPattern: connection)
    listener.suspended.add(1, ordering: .acquiringAndReleasing)
    MHD_suspend_connection(connection)
    Thread.detachNewThread {
        let answer = service.finish(upload, request: exchange.request) {
            socket >= 0 && preflight_peer_closed(socket, 0) != 0
        }
        exchange.stage = .answered(answer)
        MHD_resume_connection(OpaquePointer(bitPattern: connectionBits))
        listener.suspended.subtract(1, ordering: .acquiringAndReleasing)
    }
}

/// Answers the upload's job as a stream of its progress (`ProgressStream`): queued at
/// once, fed by the job on a thread of its own, which watches for the client leaving.
private func stream(_ upload: MigrationUpload, exchange: Exchange, on connection: OpaquePointer, listener: Listener) -> MHD_Result {
    let service = listener.service
    let stream = ProgressStream(connection: connection) { change in
        listener.suspended.add(change, ordering: .acquiringAndReleasing)
    }
    guard let handle = stream.response() else {
        // Closed unanswered: `requestCompleted` discards the upload.
        exchange.stage = .uploading(upload)
        return .NO
    }
    let queued = MHD_queue_response(connection, 200, handle)
    MHD_destroy_response(handle)
    guard queued == .YES else {
        exchange.stage = .uploading(upload)
        return .NO
    }
    exchange.stage = .streaming(stream)
    exchange.took(HTTPResponse(status: 200, contentType: ProgressStream.mediaType, body: .bytes([])))
    Thread.detachNewThread {
        let answer = service.finish(upload, request: exchange.request, clientGone: { stream.clientGone }) { line in
            stream.progress(line)
        }
        switch answer {
        case .response(let response):
            // The log line, written once the stream ends, has an internal error's detail.
            exchange.fault = response.fault
            stream.finish(with: response)
        case .clientGone: stream.end()
        }
    }
    return .YES
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
    if case .streaming(let stream) = exchange.stage {
        exchange.outcome = stream.outcome ?? Metrics.cancelledOutcome
    }
    service.lifecycle.leave()
    service.record(exchange.logEntry)
}

// MARK: - Reading and answering

/// The request's method, path, query arguments and headers.
private func readRequest(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?) -> Request {
    var address = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    preflight_mhd_client_address(connection, &address, address.count)
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
        query: queryValues, headers: headerValues, clientAddress: String(cString: address))
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

/// Answers in the middle of a body (413, 408, or a bad multipart part), which
/// libmicrohttpd cannot queue: written on the socket, then the connection closes, and
/// what the client still sends is drained off this thread (`LingeringClose`).
private func answerMidBody(_ response: HTTPResponse, on connection: OpaquePointer, for exchange: Exchange) {
    exchange.took(response)
    let socket = preflight_mhd_connection_fd(connection)
    guard socket >= 0 else { return }
    let bytes = response.wireBytes
    let lingering = bytes.withUnsafeBytes { buffer in
        preflight_answer_mid_body(socket, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), buffer.count)
    }
    if lingering >= 0 { LingeringClose.drain(lingering, milliseconds: Daemon.lingerMilliseconds) }
}
