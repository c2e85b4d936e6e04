import MigrationCore

/// A request the service refuses, with the status it answers and the body
/// `{"error": {"code", "message"}}` (docs/CONTRACT.md §5). The codes are part of the API:
/// `/openapi.json` lists them.
///
/// A body never names a path, a job directory or a type of the server's: what went wrong
/// inside the server (`internal`) is said in the server's log, under the request id that
/// the body gives the client.
struct HTTPError: Error, Sendable, Equatable {
    var status: Int
    var code: String
    var message: String
    /// Extra headers, e.g. `Retry-After` on 503 or `Allow` on 405.
    var headers: [Header] = []
    /// An internal error's: what the client quotes to the operator, and what the log says
    /// under it.
    var fault: Fault?

    struct Fault: Sendable, Equatable {
        var requestID: String
        var detail: String

        /// A new request id for `detail`.
        init(detail: String) {
            requestID = String(UInt64.random(in: 0...UInt64.max), radix: 16)
            self.detail = detail
        }

        /// What the client is told: the server could not do `action`, and the id to quote.
        func message(couldNot action: String) -> String {
            "the server could not \(action); the fault is the server's, not the request's, and nothing of it was kept: send it again, and if this persists give the server's operator the request id \(requestID)"
        }
    }

    struct Header: Sendable, Equatable {
        var name: String
        var value: String
    }

    static func badRequest(_ message: String) -> HTTPError { HTTPError(status: 400, code: "bad_request", message: message) }
    static func invalidOption(_ message: String) -> HTTPError { HTTPError(status: 400, code: "invalid_option", message: message) }
    static func invalidPlan(_ message: String) -> HTTPError { HTTPError(status: 400, code: "invalid_plan", message: message) }
    static let unauthorized = HTTPError(
        status: 401, code: "unauthorized", message: "this endpoint needs an Authorization: Bearer <token> header with a valid token",
        headers: [Header(name: "WWW-Authenticate", value: "Bearer realm=\"preflight\"")])
    static func notFound(_ message: String) -> HTTPError { HTTPError(status: 404, code: "not_found", message: message) }
    static func unknownPlan(_ name: String, known: [String]) -> HTTPError {
        let list = known.isEmpty ? "no plans are registered" : "registered plans: " + known.joined(separator: ", ")
        return HTTPError(status: 404, code: "unknown_plan", message: "no plan named \"\(name)\" is registered; \(list)")
    }
    static func methodNotAllowed(_ method: String, allowed: [String]) -> HTTPError {
        HTTPError(
            status: 405, code: "method_not_allowed",
            message: "\(method) is not allowed here; use \(allowed.joined(separator: " or "))",
            headers: [Header(name: "Allow", value: allowed.joined(separator: ", "))])
    }
    static func payloadTooLarge(limit: Int64) -> HTTPError {
        HTTPError(
            status: 413, code: "payload_too_large",
            message: "the upload is larger than the server's limit of \(limit) bytes (max_upload_bytes)")
    }
    static func uploadOverTime(declaredBytes: Int64, allowedSeconds: Int, minimumBytesPerSecond: Int) -> HTTPError {
        HTTPError(
            status: 408, code: "upload_too_slow",
            message: "the upload of \(declaredBytes) bytes did not finish within its \(allowedSeconds) s (its length at the server's minimum of \(minimumBytesPerSecond) bytes/s, min_upload_bytes_per_s, plus its first seconds); send it again over a faster link")
    }
    static func uploadTooSlow(minimumBytesPerSecond: Int, graceSeconds: Int) -> HTTPError {
        HTTPError(
            status: 408, code: "upload_too_slow",
            message: "the upload came slower than the server's minimum of \(minimumBytesPerSecond) bytes/s after its first \(graceSeconds) s (min_upload_bytes_per_s); send it again over a faster link")
    }
    static func unsupportedMediaType(_ message: String) -> HTTPError {
        HTTPError(status: 415, code: "unsupported_media_type", message: message)
    }
    static func busy(retryAfter: Int) -> HTTPError {
        HTTPError(
            status: 503, code: "busy", message: "every job slot and queue place is taken; retry in \(retryAfter) s",
            headers: [Header(name: "Retry-After", value: String(retryAfter))])
    }
    /// The client already holds its share of the places (`key` names the setting); the
    /// other places stay open to other clients.
    static func overClientShare(_ what: String, key: String, retryAfter: Int) -> HTTPError {
        HTTPError(
            status: 429, code: "over_client_share",
            message: "this client already has \(what), its share (\(key)); retry in \(retryAfter) s, once one has finished",
            headers: [Header(name: "Retry-After", value: String(retryAfter))])
    }
    /// Every upload in flight together is at its limit (`key` names the setting).
    static func uploadsBusy(_ what: String, key: String, retryAfter: Int) -> HTTPError {
        HTTPError(
            status: 503, code: "busy", message: "\(what), the server's limit (\(key)); retry in \(retryAfter) s",
            headers: [Header(name: "Retry-After", value: String(retryAfter))])
    }
    static let shuttingDown = HTTPError(
        status: 503, code: "shutting_down", message: "the server is shutting down; retry on another instance",
        headers: [Header(name: "Retry-After", value: "5")])
    /// The server failed at `action` ("create the job's directory"); `detail` (the
    /// system's error, which may name the server's paths) goes to the log only.
    static func `internal`(_ action: String, detail: String) -> HTTPError {
        let fault = Fault(detail: detail)
        return HTTPError(status: 500, code: "internal", message: fault.message(couldNot: action), fault: fault)
    }

    /// `{"error": {"code": ..., "message": ...}}` (and `request_id` for an internal error)
    /// and a newline.
    var body: [UInt8] {
        var error: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
        if let fault { error["request_id"] = .string(fault.requestID) }
        return Array((JSONValue.object(["error": .object(error)]).canonicalText + "\n").utf8)
    }
}

extension Failure {
    /// A job's failure of kind `internal` says what the server could not do in words that
    /// may name the server's paths: the client's report gets a request id in their place,
    /// and the returned fault takes them to the log.
    mutating func withholdInternalDetail() -> HTTPError.Fault? {
        guard kind == .internal else { return nil }
        let fault = HTTPError.Fault(detail: message)
        message = fault.message(couldNot: "run the job to its end")
        return fault
    }
}
