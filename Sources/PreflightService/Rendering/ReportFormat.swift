/// How a report is rendered: JSON, a summary for a terminal, or JUnit XML for CI.
/// `preflight run --format` names it; over HTTP, `Accept` chooses it.
enum ReportFormat: String, Sendable {
    case json, text, junit

    /// JSON unless the client asks for `text/plain` or `application/xml`.
    static func negotiate(accept: String?) -> ReportFormat {
        guard let accept else { return .json }
        for item in accept.split(separator: ",") {
            let type = item.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            switch type {
            case "application/json", "*/*", "application/*": return .json
            case "text/plain": return .text
            case "application/xml", "text/xml", "application/junit+xml": return .junit
            default: continue
            }
        }
        return .json
    }

    var contentType: String {
        switch self {
        case .json: return "application/json"
        case .text: return "text/plain; charset=utf-8"
        case .junit: return "application/xml; charset=utf-8"
        }
    }
}
