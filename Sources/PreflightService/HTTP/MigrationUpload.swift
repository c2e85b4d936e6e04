import CMicroHTTPD
import Foundation
import MigrationCore
import Simulation

/// The upload of one `POST /v1/migrations`, from its admission (after the headers) to
/// the start of its job: the bytes go straight to `job_dir/<id>/input.db` (and
/// `input.db-wal`) as they arrive, so memory does not grow with the file. It holds the
/// scheduler's ticket (its bytes in flight, then its job's place), which the service gives
/// back once (`Service.discard` or the job's slot).
///
/// Used by one thread at a time: libmicrohttpd's polling thread that serves the connection
/// while the body arrives, then the job's, which decodes its plan while the connection is
/// suspended; hence `@unchecked Sendable`.
final class MigrationUpload: @unchecked Sendable {
    enum BodyKind: Sendable {
        /// The body is the database (`curl --data-binary @app.db`).
        case raw
        /// `multipart/form-data` with `database`, `wal`, `plan` and `options` parts.
        case multipart
    }

    /// Inline parts larger than these are refused: a plan or options document is text
    /// a person wrote, not data.
    static let maxPlanPartBytes = 4 << 20
    static let maxOptionsPartBytes = 64 << 10
    let directory: JobDirectory
    let ticket: JobScheduler.Ticket
    let bodyKind: BodyKind
    let keep: Bool
    let maxBytes: Int64
    /// `min_upload_bytes_per_s`: the least average rate after the grace time; 0 for none.
    let minBytesPerSecond: Int
    /// `upload_grace_s`: how long the upload may start slowly before that rate applies.
    let graceSeconds: Int
    let admitted = ContinuousClock.now
    /// The length the headers declared (`maxBytes` for a chunked body), and the time the
    /// whole body gets: that length at `minBytesPerSecond`, plus the grace time. Nil
    /// without a minimum rate.
    let declaredBytes: Int64
    let allowedSeconds: Int?
    /// The plan and options as the headers left them.
    let spec: JobSpec
    /// For `POST /v1/capacity`: the search's own parameters; its database (the sample) is optional.
    let capacity: CapacityQuery?
    /// For `POST /v1/matrix`: any number of `database` parts (and `wal` parts named after
    /// them), each kept under its filename, and a `like` part (`MatrixParts`).
    let matrix: MatrixParts?

    private(set) var received: Int64 = 0
    private(set) var database: FileSink?
    private(set) var wal: FileSink?
    private(set) var planPart: [UInt8]?
    private(set) var optionsPart: [UInt8]?
    /// The upload page's fields (`GET /`): a plain form sends each option as a part of its
    /// own (`watchdog_ms`, `device`, ...) and a plan file as `plan_file`.
    private(set) var planFilePart: [UInt8]?
    private(set) var optionFields: [String: [UInt8]] = [:]
    /// The first problem found inside a multipart body.
    private(set) var partError: HTTPError?
    private var postProcessor: OpaquePointer?
    /// The part the post processor is in and the bytes of it so far, and the parts before
    /// it: how a second part of a name is told from the next piece of the first.
    private var currentPart: (name: String, bytes: UInt64)?
    private var earlierParts: Set<String> = []

    init(
        directory: JobDirectory, ticket: JobScheduler.Ticket, bodyKind: BodyKind, keep: Bool, maxBytes: Int64,
        minBytesPerSecond: Int, graceSeconds: Int, declaredBytes: Int64?, spec: JobSpec, capacity: CapacityQuery? = nil,
        matrix: MatrixParts? = nil
    ) throws(HTTPError) {
        self.directory = directory
        self.declaredBytes = min(declaredBytes ?? maxBytes, maxBytes)
        allowedSeconds =
            minBytesPerSecond > 0
            ? graceSeconds + Int((self.declaredBytes + Int64(minBytesPerSecond) - 1) / Int64(minBytesPerSecond))
            : nil
        self.ticket = ticket
        self.bodyKind = bodyKind
        self.keep = keep
        self.maxBytes = maxBytes
        self.minBytesPerSecond = minBytesPerSecond
        self.graceSeconds = graceSeconds
        self.spec = spec
        self.capacity = capacity
        self.matrix = matrix
        if bodyKind == .raw {
            database = try FileSink(path: databasePath)
        }
    }

    deinit {
        if let postProcessor { _ = MHD_destroy_post_processor(postProcessor) }
    }

    var id: String { directory.id }
    var databasePath: String { directory.input.path }
    var walPath: String { directory.input.wal }
    var uploadMs: Int { milliseconds(ContinuousClock.now - admitted) }

    /// Parses multipart bodies with libmicrohttpd's post processor; false when the
    /// request's `Content-Type` has no boundary.
    func attachPostProcessor(_ connection: OpaquePointer) -> Bool {
        let context = Unmanaged.passUnretained(self).toOpaque()
        postProcessor = MHD_create_post_processor(connection, 64 * 1024, multipartPartIterator, context)
        return postProcessor != nil
    }

    /// Takes one piece of the body; an error ends the upload at once.
    func receive(_ bytes: UnsafeRawPointer, count: Int) throws(HTTPError) {
        received += Int64(count)
        if received > maxBytes { throw .payloadTooLarge(limit: maxBytes) }
        try checkRate()
        switch bodyKind {
        case .raw:
            try database?.write(bytes, count: count)
        case .multipart:
            guard let postProcessor else { throw .internal("read the multipart body", detail: "the multipart parser is missing") }
            let accepted = MHD_post_process(postProcessor, bytes.assumingMemoryBound(to: CChar.self), count)
            if let partError { throw partError }
            if accepted != .YES { throw .badRequest("the multipart/form-data body is malformed") }
        }
    }

    /// Whole seconds until the body's time is up (at least 1), nil without a bound: the
    /// idle timeout `Daemon` gives the connection, so that one that goes quiet is closed
    /// by then at the latest.
    var secondsLeft: Int? {
        allowedSeconds.map { max(1, $0 - Int((ContinuousClock.now - admitted) / .seconds(1))) }
    }

    /// A client that trickles its body holds a connection and disk: past the grace time, an average
    /// below the minimum ends the upload, and so does a body still arriving after its
    /// `allowedSeconds`. (One that sends nothing at all is closed by its idle timeout.)
    private func checkRate() throws(HTTPError) {
        guard minBytesPerSecond > 0 else { return }
        let seconds = Double((ContinuousClock.now - admitted) / .milliseconds(1)) / 1000
        if let allowedSeconds, seconds > Double(allowedSeconds) {
            throw .uploadOverTime(
                declaredBytes: declaredBytes, allowedSeconds: allowedSeconds, minimumBytesPerSecond: minBytesPerSecond)
        }
        guard seconds > Double(graceSeconds) else { return }
        if Double(received) < Double(minBytesPerSecond) * seconds {
            throw .uploadTooSlow(minimumBytesPerSecond: minBytesPerSecond, graceSeconds: graceSeconds)
        }
    }

    /// The body is complete: flushes the last part and closes the files. An empty
    /// database is a fresh install (docs/CONTRACT.md §1), not an error.
    func finishBody() throws(HTTPError) {
        if let postProcessor {
            self.postProcessor = nil
            let complete = MHD_destroy_post_processor(postProcessor)
            if let partError { throw partError }
            if complete != .YES { throw .badRequest("the multipart/form-data body is incomplete or malformed") }
        }
        try database?.close()
        try wal?.close()
        try matrix?.close()
        if bodyKind == .multipart, database == nil, capacity == nil, matrix == nil {
            throw .badRequest("the multipart/form-data body has no \"database\" part")
        }
    }

    /// Closes what is open; the caller removes the directory.
    func abandon() {
        if let postProcessor {
            self.postProcessor = nil
            _ = MHD_destroy_post_processor(postProcessor)
        }
        try? database?.close()
        try? wal?.close()
        try? matrix?.close()
    }

    // MARK: - Multipart parts

    /// One piece of a part, in order (libmicrohttpd hands them over in ~16 KB pieces, at
    /// increasing `offset`s within the part).
    fileprivate func part(_ name: String, filename: String?, data: UnsafeRawPointer?, size: Int, offset: UInt64) -> Bool {
        do {
            if let matrix, MatrixParts.names.contains(name) {
                try matrix.piece(name, filename: filename, data: data, size: size, offset: offset, in: directory)
                return true
            }
            try checkSinglePart(name, offset: offset, size: size)
            switch name {
            case "database":
                if database == nil { database = try FileSink(path: databasePath) }
                if let data, size > 0 { try database?.write(data, count: size) }
            case "wal":
                if wal == nil { wal = try FileSink(path: walPath) }
                if let data, size > 0 { try wal?.write(data, count: size) }
            case "plan":
                try append(&planPart, data, size, limit: Self.maxPlanPartBytes, what: "plan")
            case "options":
                try append(&optionsPart, data, size, limit: Self.maxOptionsPartBytes, what: "options")
            case "plan_file":
                try append(&planFilePart, data, size, limit: Self.maxPlanPartBytes, what: "plan_file")
            case let option where OptionResolver.names.contains(option):
                try append(&optionFields[option], data, size, limit: Self.maxOptionsPartBytes, what: option)
            default:
                throw HTTPError.badRequest(
                    "unknown multipart part \"\(name)\"; parts are database (required), wal, plan and options "
                        + "(or, as the upload page sends them, plan_file and one part per option)")
            }
            return true
        } catch let error as HTTPError {
            if partError == nil { partError = error }
            return false
        } catch {
            if partError == nil { partError = .internal("read a part of the multipart body", detail: "\(error)") }
            return false
        }
    }

    /// One answer per input: a part whose name came before is refused, rather than its
    /// bytes being added to the first one's. libmicrohttpd says nothing when a part ends:
    /// a new part shows as another name, or as the same name starting again at offset 0.
    private func checkSinglePart(_ name: String, offset: UInt64, size: Int) throws(HTTPError) {
        if let current = currentPart, current.name != name {
            earlierParts.insert(current.name)
            currentPart = nil
        }
        let startsAgain = offset == 0 && (currentPart?.bytes ?? 0) > 0
        if earlierParts.contains(name) || startsAgain {
            throw .badRequest(
                "the multipart/form-data body has more than one \"\(name)\" part; send each of database, wal, plan and options at most once")
        }
        currentPart = (name, (currentPart?.bytes ?? 0) + UInt64(size))
    }

    private func append(
        _ buffer: inout [UInt8]?, _ data: UnsafeRawPointer?, _ size: Int, limit: Int, what: String
    ) throws(HTTPError) {
        if (buffer?.count ?? 0) + size > limit {
            throw .badRequest("the \"\(what)\" part is larger than \(limit) bytes")
        }
        // In place: a copy of the part so far for each ~16 KB piece would make a 4 MB plan
        // part cost 256 copies of up to 4 MB.
        if buffer == nil { buffer = [] }
        if let data, size > 0 { buffer?.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size)) }
    }

}

/// libmicrohttpd's post-processor callback: a global function, with the upload as `cls`.
private func multipartPartIterator(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, filename: UnsafePointer<CChar>?,
    contentType: UnsafePointer<CChar>?, transferEncoding: UnsafePointer<CChar>?, data: UnsafePointer<CChar>?,
    offset: UInt64, size: Int
) -> MHD_Result {
    guard let cls, let key else { return .NO }
    let upload = Unmanaged<MigrationUpload>.fromOpaque(cls).takeUnretainedValue()
    return upload.part(
        String(cString: key), filename: filename.map { String(cString: $0) }, data: data.map { UnsafeRawPointer($0) }, size: size,
        offset: offset)
        ? .YES : .NO
}

/// A file written as its bytes arrive, with `O_EXCL` and mode 0600.
///
/// Disk is taken only as bytes are written, never reserved from a declared
/// `Content-Length`: a client may declare gigabytes and send six bytes, and a few such
/// requests must not fill the job directory's disk for everyone.
final class FileSink {
    private var descriptor: Int32

    init(path: String) throws(HTTPError) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .internal("store the upload", detail: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { if descriptor >= 0 { Glibc.close(descriptor) } }

    func write(_ pointer: UnsafeRawPointer, count: Int) throws(HTTPError) {
        guard writeAll(descriptor, UnsafeRawBufferPointer(start: pointer, count: count)) else {
            throw .internal("store the upload", detail: "cannot write the upload to disk: \(String(cString: strerror(errno)))")
        }
    }

    func close() throws(HTTPError) {
        guard descriptor >= 0 else { return }
        let result = Glibc.close(descriptor)
        descriptor = -1
        if result != 0 { throw .internal("store the upload", detail: "cannot close the upload: \(String(cString: strerror(errno)))") }
    }
}
