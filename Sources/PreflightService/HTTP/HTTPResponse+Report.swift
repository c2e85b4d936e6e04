import Simulation
import MigrationCore

extension HTTPResponse {
    /// A job's report as `answer` (`ReportAnswer.choose`), with its outcome and id in headers;
    /// `plan` (the job's) lets JUnit say how far a killed step had come.
    static func report(_ report: Report, as answer: ReportAnswer, plan: Plan? = nil) -> HTTPResponse {
        let contentType: String
        let body: [UInt8]
        switch answer {
        case .rendered(let format):
            (contentType, body) = (format.contentType, ReportRendering.render(report, as: format, plan: plan))
        case .page:
            (contentType, body) = (ReportAnswer.pageContentType, Array(ReportPage.html(report).utf8))
        }
        var response = HTTPResponse(
            status: 200, contentType: contentType, body: .bytes(body),
            headers: [
                HTTPError.Header(name: "Preflight-Outcome", value: report.outcome.rawValue),
                HTTPError.Header(name: "Preflight-Job-Id", value: report.jobID),
            ])
        response.jobID = report.jobID
        response.outcome = report.outcome.rawValue
        return response
    }
}
