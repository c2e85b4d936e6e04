import Foundation

/// A request as the service reads it: the method, the path without the query, the
/// query arguments and the headers (names in lower case), and the route its path
/// matches, read once here.
struct Request: Sendable {
    let method: String
    let path: String
    let query: [String: String]
    let headers: [String: String]
    /// Nil when nothing lives at the path.
    let route: Route?
    /// The client's address as the socket says (`127.0.0.1`, `::1`): who holds a share of
    /// the places when no tokens are configured. `local` for a request without a socket.
    let clientAddress: String

    init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        clientAddress: String = "local"
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.clientAddress = clientAddress
        route = Route(path: path)
    }

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The declared body length, when there is one.
    var contentLength: Int64? { header("content-length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } }

    var isChunked: Bool { header("transfer-encoding")?.lowercased().contains("chunked") ?? false }

    /// Whether a body follows the headers.
    var hasBody: Bool { isChunked || (contentLength ?? 0) > 0 }

    /// The media type of `Content-Type` in lower case, without parameters.
    var mediaType: String? {
        header("content-type").map {
            $0.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        }
    }
}
