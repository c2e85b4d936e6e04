import Foundation

/// What the service answers: status, headers and a body held in memory or read from a file.
struct HTTPResponse: Sendable {
    enum Body: Sendable {
        case bytes([UInt8])
        /// A file streamed from disk (`MHD_create_response_from_fd`), never read into memory.
        case file(path: String, size: Int64)

        var count: Int64 {
            switch self {
            case .bytes(let bytes): return Int64(bytes.count)
            case .file(_, let size): return size
            }
        }
    }

    var status: Int
    var headers: [HTTPError.Header]
    var body: Body
    /// For the request log and metrics.
    var jobID: String?
    var outcome: String?
    /// An internal error's request id and detail, for the log alone.
    var fault: HTTPError.Fault?

    init(status: Int, contentType: String, body: Body, headers: [HTTPError.Header] = []) {
        self.status = status
        self.headers = [HTTPError.Header(name: "Content-Type", value: contentType)] + headers
        self.body = body
    }

    static func json(_ bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: .bytes(bytes))
    }

    static func error(_ error: HTTPError) -> HTTPResponse {
        var response = HTTPResponse(
            status: error.status, contentType: "application/json", body: .bytes(error.body), headers: error.headers)
        response.fault = error.fault
        return response
    }

    /// The complete response as bytes on the wire (for answers written straight to the
    /// socket in the middle of a request body, which libmicrohttpd cannot queue).
    var wireBytes: [UInt8] {
        guard case .bytes(let bytes) = body else { return [] }
        var head = "HTTP/1.1 \(status) \(HTTPResponse.reason(status))\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        head += "Content-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + bytes
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 413: return "Payload Too Large"
        case 415: return "Unsupported Media Type"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Status \(status)"
        }
    }
}
