import Foundation
import MigrationCore
import Simulation
import Synchronization

/// Runs a job to its end: `JobRunner` in the server, a stand-in in tests.
protocol JobExecuting: Sendable {
    func run(_ job: Job, cancellation: JobCancellation) -> JobResult
}

/// The real runner, behind the protocol (its progress lines are not needed here).
struct WorkerJobExecutor: JobExecuting {
    let runner: JobRunner

    func run(_ job: Job, cancellation: JobCancellation) -> JobResult {
        runner.run(job, cancellation: cancellation)
    }
}

/// What the service does with requests, apart from the socket: routing, auth,
/// validation, admission, the upload's checks, running the job, and the read-only
/// endpoints. `Daemon` feeds it from libmicrohttpd's callbacks; tests can call it
/// directly.
final class Service: Sendable {
    let configuration: ServiceConfiguration
    let plans: PlanCatalog
    let devices: DeviceCatalog
    let resolver: OptionResolver
    let runner: any JobExecuting
    let scheduler: JobScheduler
    let metrics = Metrics()
    let kept = KeptJobs()
    let lifecycle = Lifecycle()
    let authenticator: BearerAuthenticator
    let log: RequestLog

    init(
        configuration: ServiceConfiguration, plans: PlanCatalog, devices: DeviceCatalog,
        runner: any JobExecuting, log: RequestLog = RequestLog()
    ) {
        self.configuration = configuration
        self.plans = plans
        self.devices = devices
        self.resolver = OptionResolver(devices: devices)
        self.runner = runner
        self.scheduler = JobScheduler(maxRunning: configuration.maxConcurrentJobs, queueLength: configuration.queueLength)
        self.authenticator = BearerAuthenticator(tokens: configuration.tokens)
        self.log = log
    }

    /// Loads the catalogs the configuration names; a problem stops the start.
    convenience init(configuration: ServiceConfiguration, runner: any JobExecuting, log: RequestLog = RequestLog())
        throws(ConfigurationError)
    {
        let plansDir = configuration.plansDir
        let devicesDir = configuration.devicesDir
        func exists(_ path: String) -> Bool {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        let plans: PlanCatalog
        if exists(plansDir) {
            plans = try PlanCatalog(directory: plansDir)
        } else if configuration.allowsMissingCatalogs {
            plans = PlanCatalog(plans: [:])
        } else {
            throw ConfigurationError(key: "plans_dir", message: "\(plansDir) is not a directory")
        }
        let devices: DeviceCatalog
        if exists(devicesDir) {
            do {
                devices = try DeviceCatalog(directory: devicesDir)
            } catch {
                throw ConfigurationError(key: "devices_dir: \(error.key)", message: error.message)
            }
        } else if configuration.allowsMissingCatalogs {
            devices = DeviceCatalog(profiles: [])
        } else {
            throw ConfigurationError(key: "devices_dir", message: "\(devicesDir) is not a directory")
        }
        self.init(
            configuration: configuration, plans: plans, devices: devices, runner: runner, log: log)
    }

    // MARK: - After the headers

    enum Begin {
        /// Answer now: everything but an accepted upload.
        case respond(HTTPResponse)
        /// Read the body into the job directory.
        case upload(MigrationUpload)
    }

    /// Decides what to do with a request as soon as its headers are in, before any body is read.
    func begin(_ request: Request) -> Begin {
        guard let route = Route(path: request.path) else {
            return .respond(.error(.notFound("nothing lives at \(request.path); see /openapi.json")))
        }
        if route.needsToken, !authenticator.allows(authorization: request.header("authorization")) {
            return .respond(.error(.unauthorized))
        }
        guard route.allowedMethods.contains(request.method) else {
            return .respond(.error(.methodNotAllowed(request.method, allowed: route.allowedMethods)))
        }
        if route == .migrations {
            do {
                return .upload(try beginMigration(request))
            } catch {
                return .respond(.error(error))
            }
        }
        if request.hasBody {
            return .respond(.error(.badRequest("\(request.method) \(route.label) takes no request body")))
        }
        return .respond(respond(to: request, route: route))
    }

    /// Media types that cannot be a database file: most likely a plan or a form sent by mistake.
    static func refusesMediaType(_ type: String) -> Bool {
        type == "application/json" || type.hasSuffix("+json") || type.hasPrefix("text/") || type == "application/xml"
            || type.hasSuffix("+xml") || (type.hasPrefix("multipart/") && type != "multipart/form-data")
    }

    /// Every check that does not need the body, then admission and the job directory.
    func beginMigration(_ request: Request) throws(HTTPError) -> MigrationUpload {
        if lifecycle.isDraining { throw .shuttingDown }
        let mediaType = request.mediaType ?? ""
        let isMultipart = mediaType == "multipart/form-data"
        if Service.refusesMediaType(mediaType) {
            throw .unsupportedMediaType(
                "\(mediaType) cannot be a database: send the file as the raw body (any other type, e.g. "
                    + "application/octet-stream) or as the \"database\" part of multipart/form-data")
        }
        if let length = request.contentLength, length > configuration.maxUploadBytes {
            throw .payloadTooLarge(limit: configuration.maxUploadBytes)
        }
        let keep: Bool
        switch request.query["keep"]?.lowercased() {
        case nil, "0", "false", "no": keep = false
        case "", "1", "true", "yes": keep = true
        case let other?: throw .badRequest("keep must be 1 or 0, got \"\(other)\"")
        }
        var options = request.query
        options["plan"] = nil
        options["keep"] = nil
        var registered: (name: String, plan: Plan)?
        if let name = request.query["plan"] {
            guard let plan = plans.plan(named: name) else { throw .unknownPlan(name, known: plans.names) }
            registered = (name, plan)
            do {
                _ = try resolver.resolve(options, plan: plan)
            } catch {
                throw .invalidOption(error.message)
            }
        } else if !isMultipart {
            throw .badRequest(
                "say which plan to run: plan=NAME in the query (see GET /v1/plans), or send multipart/form-data with a plan part")
        }
        guard let ticket = scheduler.admit() else { throw .busy(retryAfter: scheduler.retryAfterSeconds) }
        let directory: JobDirectory
        do {
            directory = try JobDirectory.create(parent: configuration.jobDir)
        } catch {
            scheduler.finish(ticket)
            throw .internal("cannot create the job directory: \(error)")
        }
        do {
            let upload = try MigrationUpload(
                directory: directory, ticket: ticket, bodyKind: isMultipart ? .multipart : .raw,
                keep: keep, maxBytes: configuration.maxUploadBytes, declaredBytes: request.contentLength,
                registeredPlan: registered, queryOptions: options)
            lifecycle.enter()
            return upload
        } catch {
            scheduler.finish(ticket)
            removeDirectory(directory.path)
            throw error
        }
    }

    // MARK: - Body

    /// Takes a piece of an upload's body; on an error the upload is already discarded.
    func receive(_ upload: MigrationUpload, bytes: UnsafeRawPointer, count: Int) throws(HTTPError) {
        metrics.addUploadBytes(count)
        do {
            try upload.receive(bytes, count: count)
        } catch {
            discard(upload)
            throw error
        }
    }

    /// Gives up an upload or a job that will not run: files closed, directory removed, place freed.
    func discard(_ upload: MigrationUpload) {
        upload.abandon()
        removeDirectory(upload.directory.path)
        scheduler.finish(upload.ticket)
    }

    // MARK: - After the body

    /// Checks what only the body could tell, waits for a slot, runs the job, and answers
    /// its report; `.clientGone` (status 499) when the client went away (the job was
    /// cancelled and removed).
    /// Blocks the connection's thread for as long as the job runs, watching `peerGone`.
    func finishMigration(_ upload: MigrationUpload, request: Request, peerGone: () -> Bool) -> HTTPResponse {
        let job: Job
        do {
            try upload.finishBody()
            job = try makeJob(upload)
        } catch {
            discard(upload)
            return .error(error)
        }
        var clientGone = false
        let mayRun = scheduler.waitForSlot(upload.ticket) {
            if lifecycle.isDraining { return true }
            if peerGone() { clientGone = true }
            return clientGone
        }
        guard mayRun else {
            discard(upload)
            return clientGone ? .clientGone(jobID: upload.id) : .error(.shuttingDown)
        }
        let cancellation = JobCancellation()
        lifecycle.register(cancellation, id: upload.id)
        let started = ContinuousClock.now
        let result = run(job, cancellation: cancellation) {
            if !clientGone, peerGone() {
                clientGone = true
                cancellation.cancel()
            }
        }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        lifecycle.unregister(id: upload.id)
        scheduler.finish(upload.ticket)
        if clientGone || cancellation.isCancelled {
            discard(upload)
            metrics.recordJob(outcome: Metrics.cancelledOutcome, seconds: seconds)
            return clientGone ? .clientGone(jobID: upload.id) : .error(.shuttingDown)
        }
        metrics.recordJob(outcome: result.report.outcome.rawValue, seconds: seconds)
        var response = reportResponse(result.report, accept: request.header("accept"))
        if upload.keep {
            kept.keep(
                KeptJobs.Entry(
                    id: upload.id, directory: upload.directory.path, report: result.report,
                    databasePath: result.migratedDatabasePath,
                    expires: ContinuousClock.now + .seconds(configuration.keepSeconds)))
            response.headers.append(HTTPError.Header(name: "Location", value: "/v1/jobs/\(upload.id)"))
        } else {
            removeDirectory(upload.directory.path)
        }
        return response
    }

    /// The plan and the effective options, from the query and the multipart parts.
    private func makeJob(_ upload: MigrationUpload) throws(HTTPError) -> Job {
        let plan: Plan
        if let document = upload.planPart {
            if let registered = upload.registeredPlan {
                throw .badRequest("give either plan=\(registered.name) in the query or a plan part, not both")
            }
            do {
                plan = try PlanDecoder.decode(document)
            } catch {
                throw .invalidPlan(error.message)
            }
        } else if let registered = upload.registeredPlan {
            plan = registered.plan
        } else {
            throw .badRequest("say which plan to run: plan=NAME in the query, or a plan part holding the plan's JSON")
        }
        var values = upload.queryOptions
        if let document = upload.optionsPart {
            for (name, value) in try Service.optionValues(document) { values[name] = value }
        }
        let resolved: (RunOptions, DeviceProfile)
        do {
            resolved = try resolver.resolve(values, plan: plan)
        } catch {
            throw .invalidOption(error.message)
        }
        return Job(
            directory: upload.directory, plan: plan, options: resolved.0, device: resolved.1,
            uploadMs: upload.uploadMs)
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

    /// Runs the job on its own thread while this one watches the client every 100 ms.
    private func run(_ job: Job, cancellation: JobCancellation, watch: () -> Void) -> JobResult {
        let box = ResultBox()
        let runner = self.runner
        let thread = Thread {
            box.set(runner.run(job, cancellation: cancellation))
        }
        thread.stackSize = 8 << 20
        thread.start()
        while true {
            if let result = box.wait(milliseconds: 100) { return result }
            watch()
        }
    }

    func reportResponse(_ report: Report, accept: String?) -> HTTPResponse {
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

    // MARK: - Read-only endpoints

    func respond(to request: Request, route: Route) -> HTTPResponse {
        switch route {
        case .migrations:
            return .error(.methodNotAllowed(request.method, allowed: ["POST"]))
        case .health:
            let load = scheduler.load
            let draining = lifecycle.isDraining
            let document = JSONValue.object([
                "status": .string(draining ? "draining" : "ok"),
                "jobs": .object([
                    "running": .number(Double(load.running)), "queued": .number(Double(load.queued)),
                    "uploading": .number(Double(load.uploading)), "kept": .number(Double(kept.count)),
                ]),
            ])
            return .json(Array((document.canonicalText + "\n").utf8), status: draining ? 503 : 200)
        case .metrics:
            return HTTPResponse(
                status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
                body: .bytes(Array(metrics.render(load: scheduler.load).utf8)))
        case .openAPI:
            return .json(OpenAPIDocument.bytes)
        case .plans:
            let items = plans.names.compactMap { name -> JSONValue? in
                guard let plan = plans.plan(named: name) else { return nil }
                return .object([
                    "name": .string(name), "description": plan.description.map(JSONValue.string) ?? .null,
                    "newest_version": .number(Double(plan.newestVersion)), "steps": .number(Double(plan.steps.count)),
                    "sha256": .string(plan.sha256),
                ])
            }
            return .json(Array((JSONValue.object(["plans": .array(items)]).canonicalText + "\n").utf8))
        case .plan(let name):
            // The document as its file holds it, byte for byte.
            guard let plan = plans.plan(named: name) else { return .error(.unknownPlan(name, known: plans.names)) }
            return .json(plan.document)
        case .devices:
            let items = devices.sorted.map { device -> JSONValue in
                var connection: [String: JSONValue] = [:]
                connection["secure_delete"] = device.connection.secureDelete.map(JSONValue.bool) ?? .null
                connection["journal_mode"] = device.connection.journalMode.map(JSONValue.string) ?? .null
                connection["synchronous"] = device.connection.synchronous.map(JSONValue.string) ?? .null
                return .object([
                    "name": .string(device.name), "description": .string(device.description),
                    "watchdog_ms": device.watchdogMs.map { .number(Double($0)) } ?? .null,
                    "free_bytes": device.freeBytes.map { .number(Double($0)) } ?? .null,
                    "launches": .number(Double(device.launches)),
                    "min_sqlite_version": device.minSQLiteVersion.map(JSONValue.string) ?? .null,
                    "connection": .object(connection),
                ])
            }
            return .json(Array((JSONValue.object(["devices": .array(items)]).canonicalText + "\n").utf8))
        case .job(let id):
            guard JobID.isWellFormed(id), let entry = kept.entry(id) else { return .error(unknownJob(id)) }
            return reportResponse(entry.report, accept: request.header("accept"))
        case .jobDatabase(let id):
            guard JobID.isWellFormed(id), let entry = kept.entry(id) else { return .error(unknownJob(id)) }
            guard let path = entry.databasePath, let size = fileSize(path) else {
                return .error(.notFound("job \(id) has no migrated database (its input was not a database)"))
            }
            var response = HTTPResponse(
                status: 200, contentType: "application/vnd.sqlite3", body: .file(path: path, size: size),
                headers: [
                    HTTPError.Header(name: "Content-Disposition", value: "attachment; filename=\"\(id).db\""),
                    HTTPError.Header(name: "Preflight-Outcome", value: entry.report.outcome.rawValue),
                ])
            response.jobID = id
            return response
        }
    }

    private func unknownJob(_ id: String) -> HTTPError {
        .notFound("no job \(id): it was not run with keep=1, or its \(configuration.keepSeconds) s are over")
    }

    // MARK: - After the answer

    /// Logs a finished exchange and counts it.
    func record(_ entry: RequestLog.Entry) {
        metrics.recordRequest(route: entry.route, status: entry.status)
        log.write(entry)
    }
}

extension HTTPResponse {
    /// Not sent: the client is gone. Logged with nginx's 499 ("client closed request").
    static func clientGone(jobID: String) -> HTTPResponse {
        var response = HTTPResponse(status: 499, contentType: "application/json", body: .bytes([]))
        response.jobID = jobID
        response.outcome = Metrics.cancelledOutcome
        return response
    }
}

/// The result of a job, handed from the job's thread to the connection's.
final class ResultBox: Sendable {
    private let value = Mutex<JobResult?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func set(_ result: JobResult) {
        value.withLock { $0 = result }
        done.signal()
    }

    /// The result once it is there, or nil after `milliseconds`.
    func wait(milliseconds: Int) -> JobResult? {
        guard done.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else { return nil }
        done.signal()
        return value.withLock { $0 }
    }
}
