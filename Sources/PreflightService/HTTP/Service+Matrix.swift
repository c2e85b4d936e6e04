import Foundation
import MigrationCore
import Simulation

/// The matrix's own parameters of `POST /v1/matrix` (docs/CONTRACT.md §11), from the query, the
/// `options` part or a form's fields, like the run options beside them.
struct MatrixQuery: Sendable {
    static let names = ["devices", "from", "rows", "max_seconds"]

    var devices: [String]
    var fromVersion: Int?
    var rows: [String: Int]
    var maxSeconds: Int?

    init(_ values: [String: String]) throws(HTTPError) {
        let names = (values["devices"] ?? values["device"] ?? "default").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let twice = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            throw .invalidOption("devices names \(twice) twice")
        }
        devices = names.isEmpty ? ["default"] : names
        func integer(_ name: String, range: ClosedRange<Int>) throws(HTTPError) -> Int? {
            guard let text = values[name] else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw .invalidOption("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
            }
            return value
        }
        fromVersion = try integer("from", range: 0...Int(Int32.max))
        maxSeconds = try integer("max_seconds", range: 1...7 * 86_400)
        do throws(UsageError) {
            rows = try values["rows"].map { text throws(UsageError) in try SynthesizeCommand.tableRows(text) } ?? [:]
        } catch {
            throw .invalidOption("rows takes TABLE=N[,TABLE=N...] (rows per table of the synthesized files): \(error.message)")
        }
    }

    /// The run options of `device` (the first device's when nil): `values` without the
    /// matrix's own parameters.
    func runOptionValues(_ values: [String: String], device: String? = nil) -> [String: String] {
        var options = values
        for name in Self.names { options[name] = nil }
        options["device"] = device ?? devices[0]
        return options
    }
}

/// `POST /v1/matrix`: the fixtures stream to the job directory as any upload does, under
/// the same admission; the matrix then runs in the upload's slot, its cells beyond the
/// first in slots the scheduler lends it while no other job waits (`SchedulerSlots`), all
/// of it bounded by `max_job_seconds`.
extension Service {
    func finishMatrix(_ upload: MigrationUpload, request: Request, clientGone: () -> Bool) -> Answer {
        let form: ReportAnswer
        switch answerForm(upload, request: request) {
        case .success(let chosen): form = chosen
        case .failure(let error): return .response(.error(error))
        }
        defer { removeDirectory(upload.directory.path) }
        guard let parts = upload.matrix, case .fromParts(_, let queryOptions) = upload.spec else {
            return .response(.error(.internal("read the matrix upload", detail: "a matrix upload without its parts")))
        }
        let (log, id, runner, slots) = (self.log, upload.id, self.runner, SchedulerSlots(scheduler: scheduler))
        let (maxJobSeconds, parallelism, synthesisCache) = (
            configuration.maxJobSeconds, configuration.maxConcurrentJobs, configuration.synthesisCache)
        let result: Result<MatrixAnswer, HTTPError>
        do throws(Interruption) {
            (_, result) = try runInSlot(upload, clientGone: clientGone) { [self] job, cancellation in
                Result { () throws(HTTPError) in
                    let values = try Service.partValues(upload, queryOptions: queryOptions)
                    let query = try MatrixQuery(values)
                    var devices: [MatrixDevice] = []
                    for name in query.devices {
                        let (options, profile) = try resolve(query.runOptionValues(values, device: name), plan: job.plan)
                        devices.append(MatrixDevice(options: options, profile: profile))
                    }
                    let target = devices[0].options.target ?? job.plan.newestVersion
                    let from = query.fromVersion ?? 1
                    guard from < max(1, target) else {
                        throw .invalidOption("from must be below the target (v\(target)), got \(from)")
                    }
                    let matrix = MatrixRequest(
                        plan: job.plan, devices: devices, fromVersion: from, fixtures: parts.fixtures, rows: query.rows,
                        sample: parts.samplePath, maxSeconds: min(query.maxSeconds ?? maxJobSeconds, maxJobSeconds),
                        parallelism: parallelism, synthesisCache: synthesisCache)
                    return MatrixRehearsal(runner: runner).run(
                        matrix, directory: job.directory, cancellation: cancellation, slots: slots
                    ) { line in log.write(.debug, line, [("job_id", .string(id))]) }
                }
            }
        } catch {
            return error.answer
        }
        switch result {
        case .failure(let error):
            return .response(.error(error))
        case .success(var answer):
            let faults = answer.withholdInternalDetails()
            for fault in faults.dropFirst() {
                log.write(.error, "a matrix cell's internal failure", [
                    ("job_id", .string(id)), ("request_id", .string(fault.requestID)), ("detail", .string(fault.detail))])
            }
            let (contentType, body): (String, [UInt8])
            switch form {
            case .page: (contentType, body) = (ReportAnswer.pageContentType, Array(MatrixPage.html(answer).utf8))
            case .rendered(let format): (contentType, body) = (format.contentType, MatrixRendering.render(answer, as: format))
            }
            var response = HTTPResponse(status: 200, contentType: contentType, body: .bytes(body))
            response.fault = faults.first
            if let worst = answer.summary.worstOutcome {
                response.headers.append(HTTPError.Header(name: "Preflight-Outcome", value: worst.rawValue))
            }
            return .response(response)
        }
    }
}

extension MatrixAnswer {
    /// A cell's internal failure, and its report's, may name the server's paths as a run's
    /// may (`Failure.withholdInternalDetail`): each gets a request id in their place, and
    /// the faults answered go to the log.
    mutating func withholdInternalDetails() -> [HTTPError.Fault] {
        var faults: [HTTPError.Fault] = []
        for row in rows.indices {
            for device in rows[row].cells.keys {
                if let fault = rows[row].cells[device]?.failure?.withholdInternalDetail() { faults.append(fault) }
                if let fault = rows[row].cells[device]?.report?.failure?.withholdInternalDetail() { faults.append(fault) }
            }
        }
        return faults
    }
}

/// The service's job slots as a matrix borrows them for its cells beyond the first.
struct SchedulerSlots: MatrixSlots {
    let scheduler: JobScheduler

    func borrow() -> Bool { scheduler.borrowSlot() }
    func giveBack() { scheduler.returnSlot() }
}
