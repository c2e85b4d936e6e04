import Foundation
import MigrationCore
import Simulation

/// What the service does with requests, apart from the socket: routing, auth,
/// validation, admission, the upload's checks, running the job, and the read-only
/// endpoints.
///
/// An exchange has three steps, since libmicrohttpd hands a request over in pieces:
/// `begin` once the headers are in, `receive` for each piece of an upload's body, and
/// `finish` once the body is complete. `Daemon` calls them from libmicrohttpd's
/// callbacks; `respond(to:body:clientGone:)` calls them in a row, for tests and anyone
/// else without a socket.
final class Service: Sendable {
    let configuration: ServiceConfiguration
    let plans: PlanCatalog
    let devices: DeviceCatalog
    let resolver: OptionResolver
    let runner: JobRunner
    let scheduler: JobScheduler
    let metrics = Metrics()
    let kept = KeptJobs()
    let lifecycle = Lifecycle()
    let authenticator: BearerAuthenticator
    let log: RequestLog

    init(
        configuration: ServiceConfiguration, plans: PlanCatalog, devices: DeviceCatalog, runner: JobRunner,
        log: RequestLog = RequestLog()
    ) {
        self.configuration = configuration
        self.plans = plans
        self.devices = devices
        self.resolver = OptionResolver(devices: devices)
        self.runner = runner
        self.scheduler = JobScheduler(
            maxRunning: configuration.maxConcurrentJobs, queueLength: configuration.queueLength,
            share: JobScheduler.Share(uploads: configuration.maxUploadsPerClient, jobs: configuration.maxJobsPerClient),
            uploadBudget: JobScheduler.UploadBudget(
                uploads: configuration.maxUploadsInFlight, bytes: configuration.maxUploadBytesInFlight))
        self.authenticator = BearerAuthenticator(tokens: configuration.tokens)
        self.log = log
    }

    /// Loads the catalogs the configuration names; a problem stops the start.
    convenience init(configuration: ServiceConfiguration, runner: JobRunner, log: RequestLog = RequestLog())
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
        self.init(configuration: configuration, plans: plans, devices: devices, runner: runner, log: log)
    }

    // MARK: - In process

    /// One whole exchange without a socket, through the same three steps as `Daemon`:
    /// the headers, `body` (raw: a multipart body needs libmicrohttpd's parser, which
    /// reads the connection), the end. `clientGone` stands for the client's socket.
    func respond(to request: Request, body: [UInt8] = [], clientGone: () -> Bool = { false }) -> Answer {
        switch begin(request) {
        case .respond(let response):
            return .response(response)
        case .upload(let upload):
            let received = body.withUnsafeBytes { buffer in
                Result { () throws(HTTPError) in
                    guard let bytes = buffer.baseAddress else { return }
                    try receive(upload, bytes: bytes, count: buffer.count)
                }
            }
            if case .failure(let error) = received { return .response(.error(error)) }
            return finish(upload, request: request, clientGone: clientGone)
        }
    }

    // MARK: - After the headers

    enum Begin {
        /// Answer now: everything but an accepted upload.
        case respond(HTTPResponse)
        /// Read the body into the job directory, then `finish`.
        case upload(MigrationUpload)
    }

    /// Decides what to do with a request as soon as its headers are in, before any body is read.
    func begin(_ request: Request) -> Begin {
        guard let route = request.route else {
            return .respond(.error(.notFound("nothing lives at \(request.path); see /openapi.json")))
        }
        if route.needsToken, !authenticator.allows(authorization: request.header("authorization")) {
            return .respond(.error(.unauthorized))
        }
        guard route.allowedMethods.contains(request.method) else {
            return .respond(.error(.methodNotAllowed(request.method, allowed: route.allowedMethods)))
        }
        if !route.takesUpload, request.hasBody {
            return .respond(.error(.badRequest("\(request.method) \(route.label) takes no request body")))
        }
        switch route {
        case .migrations, .capacity, .matrix:
            do {
                return .upload(try beginMigration(request, capacity: route == .capacity, matrix: route == .matrix))
            } catch {
                return .respond(.error(error))
            }
        case .health: return .respond(health())
        case .metrics: return .respond(metricsText())
        case .openAPI: return .respond(openAPIDocument())
        case .plans: return .respond(planList())
        case .plan(let name): return .respond(planDocument(name))
        case .devices: return .respond(deviceList())
        case .job(let id): return .respond(keptReport(id, accept: request.header("accept"), format: request.query["format"]))
        case .uploadPage: return .respond(uploadPage())
        case .jobDatabase(let id): return .respond(keptDatabase(id))
        }
    }

    // MARK: - After the answer

    /// Logs a finished exchange and counts it.
    func record(_ entry: RequestLog.Entry) {
        metrics.recordRequest(route: entry.route, status: entry.status, seconds: entry.seconds)
        log.write(entry)
    }
}
