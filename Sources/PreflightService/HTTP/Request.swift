import Foundation

/// A request as the service reads it: the method, the path without the query, the
/// query arguments and the headers (names in lower case).
struct Request: Sendable {
    var method: String
    var path: String
    var query: [String: String] = [:]
    var headers: [String: String] = [:]

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
