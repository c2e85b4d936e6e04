import Foundation
import Simulation
import MigrationCore

/// `POST /v1/migrations`: admission after the headers, the body to disk, then the job.
extension Service {
    /// Media types that cannot be a database file: most likely a plan or a form sent by mistake.
    static func refusesMediaType(_ type: String) -> Bool {
        type == "application/json" || type.hasSuffix("+json") || type.hasPrefix("text/") || type == "application/xml"
            || type.hasSuffix("+xml") || (type.hasPrefix("multipart/") && type != "multipart/form-data")
    }

    // MARK: - After the headers

    /// Every check that does not need the body, then admission and the job directory.
    /// `capacity`: a `POST /v1/capacity`, whose database (the sample) is optional and whose
    /// query also holds the search's parameters. `matrix`: a `POST /v1/matrix`, whose
    /// multipart body holds any number of databases (`Service+Matrix`).
    func beginMigration(_ request: Request, capacity: Bool = false, matrix: Bool = false) throws(HTTPError) -> MigrationUpload {
        if lifecycle.isDraining { throw .shuttingDown }
        let mediaType = request.mediaType ?? ""
        let isMultipart = mediaType == "multipart/form-data"
        if Service.refusesMediaType(mediaType) {
            throw .unsupportedMediaType(
                "\(mediaType) cannot be a database: send the file as the raw body (any other type, e.g. "
                    + "application/octet-stream) or as the \"database\" part of multipart/form-data")
        }
        if matrix, !isMultipart {
            throw .unsupportedMediaType(
                "a matrix takes multipart/form-data: a \"database\" part per fixture (with its filename), a plan or plan=NAME, options")
        }
        // A matrix's body holds up to `max_matrix_files` databases.
        let maxBytes = matrix ? configuration.maxUploadBytes * Int64(configuration.maxMatrixFiles) : configuration.maxUploadBytes
        if let length = request.contentLength, length > maxBytes {
            throw .payloadTooLarge(limit: maxBytes)
        }
        let keep: Bool
        switch request.query["keep"]?.lowercased() {
        case nil, "0", "false", "no": keep = false
        case "", "1", "true", "yes": keep = true
        case let other?: throw .badRequest("keep must be 1 or 0, got \"\(other)\"")
        }
        if matrix, keep { throw .badRequest("keep=1 does not apply to /v1/matrix: every cell's report is in its answer") }
        var options = request.query
        options["plan"] = nil
        options["keep"] = nil
        options["format"] = nil
        // A wrong format= is said before the upload, not after the run.
        _ = try ReportAnswer.choose(accept: nil, format: request.query["format"])
        let capacityQuery = capacity ? try Service.capacityQuery(request.query, keep: keep) : nil
        for name in capacity ? CapacityQuery.names : [] { options[name] = nil }
        var registered: (name: String, plan: Plan)?
        if let name = request.query["plan"] {
            guard let plan = plans.plan(named: name) else { throw .unknownPlan(name, known: plans.names) }
            registered = (name, plan)
        }
        let spec: JobSpec
        if isMultipart {
            spec = .fromParts(registered: registered, queryOptions: options)
        } else if let registered {
            let (runOptions, device) = try resolve(options, plan: registered.plan)
            spec = .resolved(plan: registered.plan, options: runOptions, device: device)
        } else {
            throw .badRequest(
                "say which plan to run: plan=NAME in the query (see GET /v1/plans), or send multipart/form-data with a plan part")
        }
        let ticket = try beginUpload(request)
        let directory: JobDirectory
        do {
            directory = try JobDirectory.create(parent: configuration.jobDir)
        } catch {
            scheduler.withdraw(ticket)
            throw .internal("create the job's directory", detail: "cannot create a job directory: \(error)")
        }
        do {
            return try MigrationUpload(
                directory: directory, ticket: ticket, bodyKind: isMultipart ? .multipart : .raw,
                keep: keep, maxBytes: maxBytes,
                minBytesPerSecond: configuration.minUploadBytesPerS, graceSeconds: configuration.uploadGraceS,
                declaredBytes: request.contentLength, spec: spec,
                capacity: capacityQuery, matrix: matrix ? MatrixParts(maxFiles: configuration.maxMatrixFiles) : nil)
        } catch {
            scheduler.withdraw(ticket)
            removeDirectory(directory.path)
            throw error
        }
    }

    /// The request's upload in flight, within its client's share: the client is its token
    /// where tokens are configured (one pipeline may come from many addresses), else its address.
    private func beginUpload(_ request: Request) throws(HTTPError) -> JobScheduler.Ticket {
        let client = authenticator.tokenNumber(authorization: request.header("authorization")).map { "token \($0)" }
            ?? request.clientAddress
        do {
            return try scheduler.beginUpload(for: client)
        } catch {
            throw turnedAway(error)
        }
    }

    /// What a client the scheduler turned away is told.
    private func turnedAway(_ refusal: JobScheduler.Refusal) -> HTTPError {
        let retryAfter = scheduler.retryAfterSeconds
        switch refusal {
        case .full:
            return .busy(retryAfter: retryAfter)
        case .uploads(let limit):
            return .uploadsBusy("\(limit) uploads are arriving", key: "max_uploads_in_flight", retryAfter: retryAfter)
        case .uploadBytes(let limit):
            return .uploadsBusy(
                "the uploads arriving hold \(limit) bytes of disk", key: "max_upload_bytes_in_flight", retryAfter: retryAfter)
        case .clientUploads(let limit):
            return .overClientShare("\(limit) upload(s) arriving", key: "max_uploads_per_client", retryAfter: retryAfter)
        case .clientJobs(let limit):
            return .overClientShare("\(limit) job(s) waiting or running", key: "max_jobs_per_client", retryAfter: retryAfter)
        }
    }

    // MARK: - Body

    /// Takes a piece of an upload's body; on an error the upload is already discarded.
    /// Its bytes count against the budget of uploads in flight.
    func receive(_ upload: MigrationUpload, bytes: UnsafeRawPointer, count: Int) throws(HTTPError) {
        metrics.addUploadBytes(count)
        do throws(HTTPError) {
            do {
                try scheduler.take(count, for: upload.ticket)
            } catch {
                throw turnedAway(error)
            }
            try upload.receive(bytes, count: count)
        } catch {
            discard(upload)
            throw error
        }
    }

    /// Gives up an upload whose job will not run: files closed, directory removed, its
    /// bytes in flight given back.
    func discard(_ upload: MigrationUpload) {
        upload.abandon()
        removeDirectory(upload.directory.path)
        scheduler.withdraw(upload.ticket)
    }

    // MARK: - After the body

    /// Checks what only the body could tell, waits for a slot, decodes the plan and runs
    /// the job, and answers its report. Blocks the calling thread for as long as the job
    /// runs, polling `clientGone` every 100 ms. `shown` gets the job's progress lines (as
    /// `preflight run` prints them) as they come.
    func finish(
        _ upload: MigrationUpload, request: Request, clientGone: () -> Bool, shown: (@Sendable (String) -> Void)? = nil
    ) -> Answer {
        if let capacity = upload.capacity { return finishCapacity(upload, capacity, request: request, clientGone: clientGone) }
        if upload.matrix != nil { return finishMatrix(upload, request: request, clientGone: clientGone) }
        let answer: ReportAnswer
        switch answerForm(upload, request: request) {
        case .success(let form): answer = form
        case .failure(let error): return .response(.error(error))
        }
        shown?("upload received: \(ByteCount.text(upload.received)) in \(upload.uploadMs) ms; the job starts when a worker slot is free")
        // A job's progress goes to the log at debug level and to a client that streams it; unasked, it is not even decoded.
        let (log, jobID, runner) = (self.log, upload.id, self.runner)
        let logged: (@Sendable (String) -> Void)? =
            log.writesDebug ? { @Sendable line in log.write(.debug, line, [("job_id", .string(jobID))]) } : nil
        let progress: (@Sendable (String) -> Void)? = logged == nil && shown == nil ? nil : { @Sendable line in
            logged?(line)
            shown?(line)
        }
        let started = ContinuousClock.now
        var seconds: Double { (ContinuousClock.now - started) / .seconds(1) }
        let job: Job
        let result: JobResult
        do {
            (job, result) = try runInSlot(upload, clientGone: clientGone) { job, cancellation in
                runner.run(job, cancellation: cancellation, progress: progress)
            }
        } catch {
            removeDirectory(upload.directory.path)
            // A plan or options found invalid, or a job refused a place, ran nothing: not a
            // job the metrics count.
            switch error {
            case .invalid, .refused: break
            case .clientGone, .shuttingDown: metrics.recordJob(outcome: Metrics.cancelledOutcome, seconds: seconds)
            }
            return error.answer
        }
        metrics.recordJob(outcome: result.report.outcome.rawValue, seconds: seconds)
        var report = result.report
        let fault = report.failure?.withholdInternalDetail()
        var response = HTTPResponse.report(report, as: answer, plan: job.plan)
        response.fault = fault
        if upload.keep {
            kept.keep(
                KeptJobs.Entry(
                    id: upload.id, directory: upload.directory.path, report: report,
                    databasePath: result.migratedDatabasePath,
                    expires: ContinuousClock.now + .seconds(configuration.keepSeconds)))
            response.headers.append(HTTPError.Header(name: "Location", value: "/v1/jobs/\(upload.id)"))
        } else {
            removeDirectory(upload.directory.path)
        }
        return .response(response)
    }

    /// The plan and the effective options: as the headers resolved them for a raw body;
    /// from the query and the parts for a multipart one.
    func makeJob(_ upload: MigrationUpload) throws(HTTPError) -> Job {
        let plan: Plan
        let options: RunOptions
        let device: DeviceProfile
        switch upload.spec {
        case .resolved(let resolvedPlan, let resolvedOptions, let resolvedDevice):
            (plan, options, device) = (resolvedPlan, resolvedOptions, resolvedDevice)
        case .fromParts(let queryRegistered, let queryOptions):
            let (document, registered) = try planChoice(upload, queryRegistered: queryRegistered)
            if let document {
                do {
                    plan = try PlanDecoder.decode(document)
                } catch {
                    throw .invalidPlan(error.message)
                }
            } else if let registered {
                plan = registered.plan
            } else {
                throw .badRequest("say which plan to run: plan=NAME in the query, or a plan part holding the plan's JSON")
            }
            var values = try Service.partValues(upload, queryOptions: queryOptions)
            // A matrix's job carries its first device's options; each cell resolves its own.
            if upload.matrix != nil { values = try MatrixQuery(values).runOptionValues(values) }
            (options, device) = try resolve(values, plan: plan)
        }
        return Job(
            directory: upload.directory, plan: plan, options: options, device: device,
            uploadMs: upload.uploadMs, maxJobSeconds: configuration.maxJobSeconds)
    }

    /// Every option a multipart upload gives: the query's, the `options` part's over them,
    /// and the upload page's fields over both.
    static func partValues(_ upload: MigrationUpload, queryOptions: [String: String]) throws(HTTPError) -> [String: String] {
        var values = queryOptions
        if let document = upload.optionsPart {
            for (name, value) in try Service.optionValues(document) { values[name] = value }
        }
        // The upload page's fields; one left empty keeps its default.
        for (name, bytes) in upload.optionFields {
            let value = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !value.isEmpty { values[name] = value }
        }
        return values
    }

    /// The plan of a multipart upload: a document (the `plan` part, or the upload page's
    /// `plan_file`) or a registered plan (`plan=NAME` in the query, or a `plan` part that
    /// holds a name rather than a JSON document, as the upload page's list sends it). Empty
    /// parts are a form's fields left blank; giving two plans is an error.
    private func planChoice(_ upload: MigrationUpload, queryRegistered: (name: String, plan: Plan)?)
        throws(HTTPError) -> (document: [UInt8]?, registered: (name: String, plan: Plan)?)
    {
        var document: [UInt8]?
        var registered = queryRegistered
        var given: [String] = queryRegistered.map { ["plan=\($0.name) in the query"] } ?? []
        if let part = upload.planPart, let first = part.first(where: { !Self.isJSONSpace($0) }) {
            if first == UInt8(ascii: "{") {
                document = part
                given.append("a plan part")
            } else {
                let name = String(decoding: part, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                guard let plan = plans.plan(named: name) else { throw .unknownPlan(name, known: plans.names) }
                registered = (name, plan)
                given.append("plan \(name)")
            }
        }
        if let file = upload.planFilePart, !file.isEmpty {
            document = file
            given.append("a plan_file")
        }
        if given.count > 1 {
            throw .badRequest("give one plan, not \(given.joined(separator: " and "))")
        }
        return (document, registered)
    }

    private static func isJSONSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// The effective options of a request, from every option it gave.
    func resolve(_ values: [String: String], plan: Plan) throws(HTTPError) -> (RunOptions, DeviceProfile) {
        do {
            return try resolver.resolve(values, plan: plan)
        } catch {
            throw .invalidOption(error.message)
        }
    }

    /// The `options` part: a JSON object of option name to a string or number.
    static func optionValues(_ document: [UInt8]) throws(HTTPError) -> [String: String] {
        guard let object = JSONValue.parse(document)?.objectValue else {
            throw .invalidOption("the options part must be a JSON object such as {\"watchdog_ms\": 5000}")
        }
        var values: [String: String] = [:]
        for (name, value) in object {
            switch value {
            case .null: continue
            case .string(let text): values[name] = text
            case .number(let number):
                values[name] = value.integerValue.map { String($0) } ?? String(number)
            default:
                throw .invalidOption("option \"\(name)\" must be a string or a number, not \(value.typeName)")
            }
        }
        return values
    }

    // MARK: - The job

    /// The upload's body checked to its end and the answer's form chosen; a failure
    /// discards the upload.
    func answerForm(_ upload: MigrationUpload, request: Request) -> Result<ReportAnswer, HTTPError> {
        do {
            try upload.finishBody()
            return .success(try ReportAnswer.choose(accept: request.header("accept"), format: request.query["format"]))
        } catch {
            discard(upload)
            return .failure(error)
        }
    }

    /// Admits the upload's job, its body complete (a place, within its client's share:
    /// `Interruption.refused` when there is none), waits for its slot, then does `work`
    /// with its job in that slot, on a thread of its own, while this one watches the client
    /// every 100 ms. A client that leaves cancels it, as does the end of the shutdown's
    /// grace period (`Lifecycle.cancelAll`): both end in the interruption thrown.
    ///
    /// A plan sent in the upload is decoded (its statements split) on that thread too, in
    /// the slot: not on the waiting thread before the job exists, where a client
    /// that left could not stop it, and never more of them at once than jobs may run. A
    /// plan still waiting for its slot when its client leaves is never decoded; one being
    /// decoded then runs nothing after.
    func runInSlot<Outcome: Sendable>(
        _ upload: MigrationUpload, clientGone: () -> Bool,
        _ work: @escaping @Sendable (Job, JobCancellation) -> Outcome
    ) throws(Interruption) -> (Job, Outcome) {
        do {
            try scheduler.admit(upload.ticket)
        } catch {
            throw .refused(turnedAway(error))
        }
        return try scheduler.run(
            upload.ticket,
            checking: { () throws(Interruption) in
                if lifecycle.isDraining { throw .shuttingDown }
                if clientGone() { throw .clientGone }
            },
            { () throws(Interruption) in
                let cancellation = JobCancellation()
                lifecycle.register(cancellation, id: upload.id)
                defer { lifecycle.unregister(id: upload.id) }
                var interruption: Interruption?
                let done = JobThread.run(
                    watch: {
                        if interruption == nil, clientGone() {
                            interruption = .clientGone
                            cancellation.cancel()
                        }
                    },
                    { [self] () -> JobWork<Outcome> in
                        let job: Job
                        switch Result(catching: { () throws(HTTPError) in try makeJob(upload) }) {
                        case .success(let made): job = made
                        case .failure(let error): return .invalid(error)
                        }
                        if cancellation.isCancelled { return .cancelled }
                        return .ran(job, work(job, cancellation))
                    })
                if interruption == nil, cancellation.isCancelled { interruption = .shuttingDown }
                switch done {
                case .invalid(let error) where interruption == nil: throw .invalid(error)
                case .ran(let job, let outcome) where interruption == nil: return (job, outcome)
                default: throw interruption ?? .shuttingDown
                }
            })
    }
}

/// What a job's thread did: decoded the plan and did the work (a migration's run, or a
/// capacity search), found the plan or options invalid, or was cancelled between the two.
private enum JobWork<Outcome: Sendable>: Sendable {
    case ran(Job, Outcome)
    case invalid(HTTPError)
    case cancelled
}

/// Why a job ends without its report.
enum Interruption: Error {
    /// The client went away: nothing is sent.
    case clientGone
    /// The server is stopping: 503 `shutting_down`.
    case shuttingDown
    /// The plan or the options, decoded on the job's thread, are not valid: 400.
    case invalid(HTTPError)
    /// The complete upload's job found no place (503), or its client's share taken (429).
    case refused(HTTPError)
}

extension Interruption {
    /// What the client gets.
    var answer: Answer {
        switch self {
        case .clientGone: .clientGone
        case .shuttingDown: .response(.error(.shuttingDown))
        case .invalid(let error), .refused(let error): .response(.error(error))
        }
    }
}
