/// How a report is rendered: JSON, a summary for a terminal, or JUnit XML for CI.
/// `preflight run --format` names it; over HTTP, `Accept` chooses it.
enum ReportFormat: String, Sendable {
    case json, text, junit

    var contentType: String {
        switch self {
        case .json: return "application/json"
        case .text: return "text/plain; charset=utf-8"
        case .junit: return "application/xml; charset=utf-8"
        }
    }
}

/// What a report is answered as: one of the formats, or the page (docs/CONTRACT.md §10), which
/// a browser asks the service for and `preflight run --format html` writes.
enum ReportAnswer: Equatable, Sendable {
    case rendered(ReportFormat)
    case page

    static let pageContentType = "text/html; charset=utf-8"

    /// The answer a `format` name asks for: `json`, `text`, `junit` or `html`; nil for any other.
    init?(format: String) {
        if format == "html" {
            self = .page
        } else if let rendered = ReportFormat(rawValue: format) {
            self = .rendered(rendered)
        } else {
            return nil
        }
    }

    var contentType: String {
        switch self {
        case .rendered(let format): return format.contentType
        case .page: return Self.pageContentType
        }
    }

    /// `format=` in the query, when given, wins over `Accept`: an HTML form cannot set
    /// headers, so the upload page posts to `/v1/migrations?format=html`. Its values are
    /// `json`, `text`, `junit` (as `preflight run --format`) and `html`.
    static func choose(accept: String?, format: String?) throws(HTTPError) -> ReportAnswer {
        guard let format else { return negotiate(accept: accept) }
        guard let answer = ReportAnswer(format: format) else {
            throw .badRequest("format must be json, text, junit or html, got \"\(format)\"")
        }
        return answer
    }

    /// `Accept` negotiated with q-values (RFC 9110 §12.5.1): the type with the highest q
    /// that a report can be; on a tie the first listed; `q=0` means "not this". JSON when
    /// `Accept` is absent or names nothing a report can be.
    static func negotiate(accept: String?) -> ReportAnswer {
        guard let accept else { return .rendered(.json) }
        var best: (answer: ReportAnswer, quality: Double)?
        for item in accept.split(separator: ",") {
            let fields = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = fields.first, let answer = answer(for: type) else { continue }
            var quality = 1.0
            for parameter in fields.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            if quality > 0, quality > (best?.quality ?? 0) { best = (answer, quality) }
        }
        return best?.answer ?? .rendered(.json)
    }

    private static func answer(for mediaType: String) -> ReportAnswer? {
        switch mediaType {
        case "application/json", "*/*", "application/*": return .rendered(.json)
        case "text/plain": return .rendered(.text)
        case "application/xml", "text/xml", "application/junit+xml": return .rendered(.junit)
        case "text/html", "application/xhtml+xml": return .page
        default: return nil
        }
    }
}
