import CMicroHTTPD
import Foundation
import MigrationCore
import Simulation

/// The upload of one `POST /v1/migrations`, from its admission (after the headers) to
/// the start of its job: the bytes go straight to `job_dir/<id>/input.db` (and
/// `input.db-wal`) as they arrive, so memory does not grow with the file. It holds the
/// job's scheduler ticket, which the service gives back once (`Service.discard` or the
/// job's slot).
///
/// Used only by the connection's own thread (libmicrohttpd runs a thread per
/// connection here), hence `@unchecked Sendable` for the hop into the handler.
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
    let admitted = ContinuousClock.now
    /// The plan and options as the headers left them.
    let spec: JobSpec

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

    init(
        directory: JobDirectory, ticket: JobScheduler.Ticket, bodyKind: BodyKind, keep: Bool, maxBytes: Int64,
        declaredBytes: Int64?, spec: JobSpec
    ) throws(HTTPError) {
        self.directory = directory
        self.ticket = ticket
        self.bodyKind = bodyKind
        self.keep = keep
        self.maxBytes = maxBytes
        self.spec = spec
        if bodyKind == .raw {
            database = try FileSink(path: databasePath, expectedBytes: declaredBytes)
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
        switch bodyKind {
        case .raw:
            try database?.write(bytes, count: count)
        case .multipart:
            guard let postProcessor else { throw .internal("the multipart parser is missing") }
            let accepted = MHD_post_process(postProcessor, bytes.assumingMemoryBound(to: CChar.self), count)
            if let partError { throw partError }
            if accepted != .YES { throw .badRequest("the multipart/form-data body is malformed") }
        }
    }

    /// The body is complete: flushes the last part and closes the files. An empty
    /// database is a fresh install (CONTRACT §1), not an error.
    func finishBody() throws(HTTPError) {
        if let postProcessor {
            self.postProcessor = nil
            let complete = MHD_destroy_post_processor(postProcessor)
            if let partError { throw partError }
            if complete != .YES { throw .badRequest("the multipart/form-data body is incomplete or malformed") }
        }
        try database?.close()
        try wal?.close()
        if bodyKind == .multipart, database == nil {
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
    }

    // MARK: - Multipart parts

    /// One piece of a part, in order (libmicrohttpd hands them over in ~16 KB pieces).
    fileprivate func part(_ name: String, data: UnsafeRawPointer?, size: Int) -> Bool {
        do {
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
            if partError == nil { partError = .internal("\(error)") }
            return false
        }
    }

    private func append(
        _ buffer: inout [UInt8]?, _ data: UnsafeRawPointer?, _ size: Int, limit: Int, what: String
    ) throws(HTTPError) {
        var bytes = buffer ?? []
        if bytes.count + size > limit {
            throw .badRequest("the \"\(what)\" part is larger than \(limit) bytes")
        }
        if let data, size > 0 { bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size)) }
        buffer = bytes
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
    return upload.part(String(cString: key), data: data.map { UnsafeRawPointer($0) }, size: size) ? .YES : .NO
}

/// A file written as its bytes arrive, with `O_EXCL` and mode 0600.
final class FileSink {
    private var descriptor: Int32

    /// `expectedBytes` reserves the blocks up front (the size stays 0 until written), so
    /// the file system allocates once instead of at every write-back.
    init(path: String, expectedBytes: Int64? = nil) throws(HTTPError) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .internal("cannot create \((path as NSString).lastPathComponent): \(String(cString: strerror(errno)))")
        }
        if let expectedBytes, expectedBytes > 0 {
            // A file system without fallocate simply skips this.
            _ = preflight_reserve_space(descriptor, expectedBytes)
        }
    }

    deinit { if descriptor >= 0 { Glibc.close(descriptor) } }

    func write(_ pointer: UnsafeRawPointer, count: Int) throws(HTTPError) {
        guard writeAll(descriptor, UnsafeRawBufferPointer(start: pointer, count: count)) else {
            throw .internal("cannot write the upload to disk: \(String(cString: strerror(errno)))")
        }
    }

    func close() throws(HTTPError) {
        guard descriptor >= 0 else { return }
        let result = Glibc.close(descriptor)
        descriptor = -1
        if result != 0 { throw .internal("cannot close the upload: \(String(cString: strerror(errno)))") }
    }
}
