import Simulation
import MigrationCore

extension HTTPResponse {
    /// A job's report in the format `Accept` asks for, with its outcome and id in headers;
    /// `plan` (the job's) lets JUnit say how far a killed step had come.
    static func report(_ report: Report, accept: String?, plan: Plan? = nil) -> HTTPResponse {
        let format = ReportFormat.negotiate(accept: accept)
        var response = HTTPResponse(
            status: 200, contentType: format.contentType, body: .bytes(ReportRendering.render(report, as: format, plan: plan)),
            headers: [
                HTTPError.Header(name: "Preflight-Outcome", value: report.outcome.rawValue),
                HTTPError.Header(name: "Preflight-Job-Id", value: report.jobID),
            ])
        response.jobID = report.jobID
        response.outcome = report.outcome.rawValue
        return response
    }
}
