import Simulation
import MigrationCore

extension HTTPResponse {
    /// A job's report in the format `Accept` asks for, with its outcome and id in headers.
    static func report(_ report: Report, accept: String?) -> HTTPResponse {
        let format = ReportFormat.negotiate(accept: accept)
        var response = HTTPResponse(
            status: 200, contentType: format.contentType, body: .bytes(ReportRendering.render(report, as: format)),
            headers: [
                HTTPError.Header(name: "Preflight-Outcome", value: report.outcome.rawValue),
                HTTPError.Header(name: "Preflight-Job-Id", value: report.jobID),
            ])
        response.jobID = report.jobID
        response.outcome = report.outcome.rawValue
        return response
    }
}
