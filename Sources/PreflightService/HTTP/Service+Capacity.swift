import Foundation
import MigrationCore
import Simulation

/// The search's own parameters of `POST /v1/capacity?plan=NAME&...` (the rest of the
/// query are run options, as for migrations).
struct CapacityQuery: Sendable {
    static let names = ["from", "table", "max_rows", "max_seconds"]

    var fromVersion: Int?
    var table: String?
    var maxRows: Int
    var maxSeconds: Int
}

/// `POST /v1/capacity`: the upload (an optional sample database) goes through the same
/// admission, job directory and slot as a migration; the search then runs in that slot,
/// with every synthesis and rehearsal in sandboxed workers confined to the job directory,
/// and all of it bounded by `max_job_seconds`.
extension Service {
    static func capacityQuery(_ query: [String: String], keep: Bool) throws(HTTPError) -> CapacityQuery {
        if keep { throw .badRequest("keep=1 does not apply to /v1/capacity: its answer is the whole result") }
        func integer(_ name: String, range: ClosedRange<Int>) throws(HTTPError) -> Int? {
            guard let text = query[name] else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw .invalidOption("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
            }
            return value
        }
        if query["format"] == "junit" { throw .badRequest("a capacity answer is json, text or html, not junit") }
        return CapacityQuery(
            fromVersion: try integer("from", range: 1...Int(Int32.max)), table: query["table"],
            maxRows: try integer("max_rows", range: 1...Int(Int32.max)) ?? CapacityRequest.defaultMaxRows,
            maxSeconds: try integer("max_seconds", range: 1...86_400) ?? CapacityRequest.defaultMaxSeconds)
    }

    func finishCapacity(_ upload: MigrationUpload, _ query: CapacityQuery, request: Request, clientGone: () -> Bool) -> Answer {
        let answer: ReportAnswer
        switch answerForm(upload, request: request) {
        case .success(let form): answer = form
        case .failure(let error): return .response(.error(error))
        }
        // The upload's directory is the search's: its input (when one came) is the sample.
        defer { removeDirectory(upload.directory.path) }
        let job: Job
        let result: Result<CapacityAnswer, CapacityError>
        do {
            let (log, id, rehearsal) = (self.log, upload.id, CapacityRehearsal(runner: runner))
            let (maxJobSeconds, synthesisCache) = (configuration.maxJobSeconds, configuration.synthesisCache)
            (job, result) = try runInSlot(upload, clientGone: clientGone) { job, cancellation in
                var request = CapacityRequest(
                    plan: job.plan, options: job.options, device: job.device, fromVersion: query.fromVersion,
                    table: query.table, maxRows: query.maxRows, maxSeconds: min(query.maxSeconds, maxJobSeconds))
                request.synthesisCache = synthesisCache
                return Result { () throws(CapacityError) in
                    try rehearsal.run(request, directory: job.directory, cancellation: cancellation) {
                        line in log.write(.debug, line, [("job_id", .string(id))])
                    }
                }
            }
        } catch {
            return error.answer
        }
        switch result {
        case .failure(let error):
            let internalCodes = ["internal", "worker_crashed"]
            return .response(.error(HTTPError(
                status: internalCodes.contains(error.code) ? 500 : 400, code: error.code, message: error.message)))
        case .success(let capacity):
            let (contentType, body): (String, [UInt8])
            switch answer {
            case .page:
                (contentType, body) = (
                    ReportAnswer.pageContentType, Array(CapacityPage.html(capacity, plan: job.plan, options: job.options).utf8)
                )
            case .rendered(.text):
                (contentType, body) = (ReportFormat.text.contentType, Array(CapacityRendering.text(capacity, plan: job.plan).utf8))
            case .rendered:
                (contentType, body) = (ReportFormat.json.contentType, CapacityRendering.json(capacity))
            }
            return .response(HTTPResponse(status: 200, contentType: contentType, body: .bytes(body)))
        }
    }
}
