import Simulation
import MigrationCore

extension HTTPResponse {
    /// A job's report as `answer` (`ReportAnswer.choose`), with its outcome and id in headers;
    /// `plan` (the job's) lets JUnit say how far a killed step had come.
    static func report(_ report: Report, as answer: ReportAnswer, plan: Plan? = nil) -> HTTPResponse {
        var response = HTTPResponse(
            status: 200, contentType: answer.contentType, body: .bytes(ReportRendering.render(report, as: answer, plan: plan)),
            headers: [
                HTTPError.Header(name: "Preflight-Outcome", value: report.outcome.rawValue),
                HTTPError.Header(name: "Preflight-Job-Id", value: report.jobID),
            ])
        response.jobID = report.jobID
        response.outcome = report.outcome.rawValue
        return response
    }
}
