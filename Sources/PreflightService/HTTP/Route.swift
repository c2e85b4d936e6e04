/// The service's routes. Matching is pure (no socket), so it is tested on its own.
enum Route: Equatable, Sendable {
    case migrations
    case capacity
    case matrix
    case job(String)
    case jobDatabase(String)
    case plans
    case plan(String)
    case devices
    case health
    case metrics
    case openAPI
    case uploadPage

    /// Matches a path (without the query); nil when nothing lives there.
    init?(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard path.hasPrefix("/") else { return nil }
        if path == "/" {
            self = .uploadPage
            return
        }
        switch parts.count {
        case 1:
            switch parts[0] {
            case "healthz": self = .health
            case "metrics": self = .metrics
            case "openapi.json": self = .openAPI
            default: return nil
            }
        case 2 where parts[0] == "v1":
            switch parts[1] {
            case "migrations": self = .migrations
            case "capacity": self = .capacity
            case "matrix": self = .matrix
            case "plans": self = .plans
            case "devices": self = .devices
            default: return nil
            }
        case 3 where parts[0] == "v1" && !parts[2].isEmpty:
            switch parts[1] {
            case "jobs": self = .job(parts[2])
            case "plans": self = .plan(parts[2])
            default: return nil
            }
        case 4 where parts[0] == "v1" && parts[1] == "jobs" && !parts[2].isEmpty && parts[3] == "database":
            self = .jobDatabase(parts[2])
        default:
            return nil
        }
    }

    /// The route's template, the `route` label of metrics and the request log.
    var label: String {
        switch self {
        case .migrations: return "/v1/migrations"
        case .capacity: return "/v1/capacity"
        case .matrix: return "/v1/matrix"
        case .job: return "/v1/jobs/{id}"
        case .jobDatabase: return "/v1/jobs/{id}/database"
        case .plans: return "/v1/plans"
        case .plan: return "/v1/plans/{name}"
        case .devices: return "/v1/devices"
        case .health: return "/healthz"
        case .metrics: return "/metrics"
        case .openAPI: return "/openapi.json"
        case .uploadPage: return "/"
        }
    }

    /// The label of requests that match no route.
    static let unmatchedLabel = "unmatched"

    var allowedMethods: [String] { takesUpload ? ["POST"] : ["GET", "HEAD"] }

    /// The routes whose body is a database upload (`MigrationUpload`).
    var takesUpload: Bool { self == .migrations || self == .capacity || self == .matrix }

    /// `/v1/*` needs a token when tokens are configured; probes and docs stay open.
    var needsToken: Bool {
        switch self {
        case .health, .metrics, .openAPI: return false
        default: return true
        }
    }
}
