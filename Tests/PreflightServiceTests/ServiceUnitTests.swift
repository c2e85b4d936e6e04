import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

@testable import PreflightService

/// The HTTP layer's parts without a socket: routing, configuration, auth, admission,
/// formats and rendering.
@Suite struct RouterTests {
    @Test func routesMatchTheirPaths() {
        #expect(Route(path: "/v1/migrations") == .migrations)
        #expect(Route(path: "/v1/jobs/abc") == .job("abc"))
        #expect(Route(path: "/v1/jobs/abc/database") == .jobDatabase("abc"))
        #expect(Route(path: "/v1/plans") == .plans)
        #expect(Route(path: "/v1/plans/notes") == .plan("notes"))
        #expect(Route(path: "/v1/devices") == .devices)
        #expect(Route(path: "/healthz") == .health)
        #expect(Route(path: "/metrics") == .metrics)
        #expect(Route(path: "/openapi.json") == .openAPI)
        for path in ["/", "", "/v1", "/v1/", "/v1/jobs/", "/v1/jobs/a/b", "/v2/plans", "/healthz/x", "/v1/plans/"] {
            #expect(Route(path: path) == nil, "\(path)")
        }
    }

    @Test func labelsAndProtection() {
        #expect(Route.job("x").label == "/v1/jobs/{id}")
        #expect(Route.migrations.allowedMethods == ["POST"])
        #expect(Route.plans.allowedMethods == ["GET", "HEAD"])
        #expect(Route.health.needsToken == false)
        #expect(Route.metrics.needsToken == false)
        #expect(Route.openAPI.needsToken == false)
        #expect(Route.devices.needsToken)
        #expect(Route.jobDatabase("x").needsToken)
    }

    @Test func reportFormatFollowsAccept() {
        #expect(ReportFormat.negotiate(accept: nil) == .json)
        #expect(ReportFormat.negotiate(accept: "*/*") == .json)
        #expect(ReportFormat.negotiate(accept: "text/plain") == .text)
        #expect(ReportFormat.negotiate(accept: "application/xml") == .junit)
        #expect(ReportFormat.negotiate(accept: "text/html, application/xml;q=0.9") == .junit)
        #expect(ReportFormat.negotiate(accept: "image/png") == .json)
    }

    @Test func refusedMediaTypes() {
        for type in ["application/json", "application/problem+json", "text/plain", "text/csv", "application/xml", "multipart/mixed"] {
            #expect(Service.refusesMediaType(type), "\(type)")
        }
        for type in ["", "application/octet-stream", "application/x-www-form-urlencoded", "application/vnd.sqlite3", "multipart/form-data"] {
            #expect(!Service.refusesMediaType(type), "\(type)")
        }
    }

    @Test func errorBodies() throws {
        let body = HTTPError.badRequest("say \"why\"").body
        let object = try #require(JSONValue.parse(body)?.objectValue?["error"]?.objectValue)
        #expect(object["code"] == .string("bad_request"))
        #expect(object["message"] == .string("say \"why\""))
        let wire = String(decoding: HTTPResponse.error(.payloadTooLarge(limit: 10)).wireBytes, as: UTF8.self)
        #expect(wire.hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"))
        #expect(wire.contains("Connection: close\r\n"))
        #expect(wire.hasSuffix("\r\n\r\n" + String(decoding: HTTPError.payloadTooLarge(limit: 10).body, as: UTF8.self)))
    }

    @Test func optionsPartValues() throws {
        let values = try Service.optionValues(Array(#"{"watchdog_ms": 5000, "device": "phone", "free_bytes": "50MB", "target": null}"#.utf8))
        #expect(values == ["watchdog_ms": "5000", "device": "phone", "free_bytes": "50MB"])
        #expect(throws: HTTPError.self) { try Service.optionValues(Array("[1]".utf8)) }
        #expect(throws: HTTPError.self) { try Service.optionValues(Array(#"{"launches": [1]}"#.utf8)) }
    }

    @Test func jobIDsAreRandom128BitHex() {
        let ids = (0..<100).map { _ in JobID.make() }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy(JobID.isWellFormed))
        #expect(!JobID.isWellFormed("../../etc/passwd"))
        #expect(!JobID.isWellFormed(String(repeating: "A", count: 32)))
    }
}

@Suite struct AuthTests {
    @Test func bearerTokens() {
        let auth = BearerAuthenticator(tokens: ["alpha", "beta-token"])
        #expect(auth.allows(authorization: "Bearer alpha"))
        #expect(auth.allows(authorization: "bearer beta-token"))
        #expect(!auth.allows(authorization: nil))
        #expect(!auth.allows(authorization: "Bearer alph"))
        #expect(!auth.allows(authorization: "Bearer alphaa"))
        #expect(!auth.allows(authorization: "Basic alpha"))
        #expect(!auth.allows(authorization: "alpha"))
        let open = BearerAuthenticator(tokens: [])
        #expect(open.isOpen)
        #expect(open.allows(authorization: nil))
    }
}

@Suite struct SchedulerTests {
    @Test func admitsUpToSlotsPlusQueue() {
        let scheduler = JobScheduler(maxRunning: 1, queueLength: 1)
        let first = scheduler.admit()
        let second = scheduler.admit()
        #expect(first != nil && second != nil)
        #expect(scheduler.admit() == nil)
        #expect(scheduler.load == JobScheduler.Load(running: 0, queued: 2, uploading: 2))
        #expect(scheduler.waitForSlot(first!) { false })
        #expect(scheduler.load == JobScheduler.Load(running: 1, queued: 1, uploading: 1))
        // The second waits while the first runs, and gives up when told to.
        var polls = 0
        #expect(!scheduler.waitForSlot(second!) { polls += 1; return polls > 2 })
        #expect(scheduler.load == JobScheduler.Load(running: 1, queued: 0, uploading: 0))
        scheduler.finish(first!)
        scheduler.finish(first!)
        #expect(scheduler.load == JobScheduler.Load(running: 0, queued: 0, uploading: 0))
        #expect(scheduler.admit() != nil)
    }

    @Test func waitingJobStartsWhenASlotFrees() {
        let scheduler = JobScheduler(maxRunning: 1, queueLength: 1)
        let first = scheduler.admit()!
        let second = scheduler.admit()!
        #expect(scheduler.waitForSlot(first) { false })
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { scheduler.finish(first) }
        #expect(scheduler.waitForSlot(second) { false })
        #expect(scheduler.load.running == 1)
    }
}

@Suite struct ConfigurationTests {
    /// Removed when the test's instance of the suite goes away.
    private let temporary = TemporaryDirectory("config")
    var directory: String { temporary.path }

    @Test func embeddedDefaultIsTheRepositoryFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let file = try #require(FileManager.default.contents(atPath: root + "/Config/preflight.json"))
        #expect(JSONValue.parse([UInt8](file)) == JSONValue.parse(Array(ServiceConfiguration.embeddedDefault.utf8)))
        let fromFile = try ServiceConfiguration.load(path: root + "/Config/preflight.json", environment: [:])
        #expect(fromFile.plansDir == root + "/Config/plans")
        #expect(fromFile.port == 8080)
        #expect(fromFile.maxUploadBytes == 2 << 30)
        #expect(!fromFile.allowsMissingCatalogs)
    }

    @Test func embeddedDefaultResolvesAgainstTheCurrentDirectory() throws {
        let configuration = try ServiceConfiguration.load(path: nil, environment: [:], currentDirectory: "/srv/app")
        #expect(configuration.plansDir == "/srv/app/Config/plans")
        #expect(configuration.devicesDir == "/srv/app/Config/devices")
        #expect(configuration.bind == "0.0.0.0")
        #expect(configuration.jobDir.hasSuffix("/preflight-jobs"))
        #expect(configuration.tokens.isEmpty)
        #expect(configuration.allowsMissingCatalogs)
    }

    @Test func environmentOverridesEveryKey() throws {
        let environment = [
            "PREFLIGHT_BIND": "127.0.0.1", "PREFLIGHT_PORT": "9000", "PREFLIGHT_MAX_UPLOAD_BYTES": "1000",
            "PREFLIGHT_MAX_CONCURRENT_JOBS": "3", "PREFLIGHT_QUEUE_LENGTH": "0", "PREFLIGHT_CONNECTION_TIMEOUT_S": "5",
            "PREFLIGHT_PER_IP_CONNECTION_LIMIT": "0", "PREFLIGHT_JOB_DIR": "jobs", "PREFLIGHT_KEEP_SECONDS": "7",
            "PREFLIGHT_TOKENS": "a, b", "PREFLIGHT_PLANS_DIR": "/p", "PREFLIGHT_DEVICES_DIR": "d",
            "PREFLIGHT_SHUTDOWN_GRACE_S": "1",
        ]
        let configuration = try ServiceConfiguration.load(path: nil, environment: environment, currentDirectory: "/here")
        #expect(configuration.bind == "127.0.0.1")
        #expect(configuration.port == 9000)
        #expect(configuration.maxUploadBytes == 1000)
        #expect(configuration.maxConcurrentJobs == 3)
        #expect(configuration.queueLength == 0)
        #expect(configuration.connectionTimeoutS == 5)
        #expect(configuration.perIPConnectionLimit == 0)
        #expect(configuration.jobDir == "/here/jobs")
        #expect(configuration.keepSeconds == 7)
        #expect(configuration.tokens == ["a", "b"])
        #expect(configuration.plansDir == "/p")
        #expect(configuration.devicesDir == "/here/d")
        #expect(configuration.shutdownGraceS == 1)
        #expect(!configuration.allowsMissingCatalogs)
    }

    @Test func badValuesNameTheirKey() throws {
        let cases: [([String: String], String)] = [
            (["PREFLIGHT_PORT": "eighty"], "port (PREFLIGHT_PORT)"),
            (["PREFLIGHT_PORT": "70000"], "port (PREFLIGHT_PORT)"),
            (["PREFLIGHT_MAX_CONCURRENT_JOBS": "0"], "max_concurrent_jobs (PREFLIGHT_MAX_CONCURRENT_JOBS)"),
            (["PREFLIGHT_MAX_UPLOAD_BYTES": "-1"], "max_upload_bytes (PREFLIGHT_MAX_UPLOAD_BYTES)"),
            (["PREFLIGHT_BIND": "localhost"], "bind"),
        ]
        for (environment, key) in cases {
            #expect(throws: ConfigurationError.self) { try ServiceConfiguration.load(path: nil, environment: environment) }
            do {
                _ = try ServiceConfiguration.load(path: nil, environment: environment)
            } catch {
                #expect(error.key == key)
            }
        }
        let file = directory + "/bad.json"
        for (text, key) in [
            (#"{"port": "x"}"#, "port"), (#"{"colour": 1}"#, "colour"), (#"{"tokens": [1]}"#, "tokens"),
            (#"{"queue_length": 1.5}"#, "queue_length"), (#"{"keep_seconds": true}"#, "keep_seconds"),
        ] {
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            do {
                _ = try ServiceConfiguration.load(path: file, environment: [:])
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.key == key, "\(text)")
            }
        }
        #expect(throws: ConfigurationError.self) {
            try ServiceConfiguration.load(path: directory + "/missing.json", environment: [:])
        }
    }

    @Test func missingCatalogDirectoriesStopAConfiguredStart() throws {
        var configuration = ServiceConfiguration()
        configuration.plansDir = directory + "/no-plans"
        configuration.devicesDir = directory
        #expect(throws: ConfigurationError.self) {
            try Service(configuration: configuration, runner: StubRunner())
        }
        configuration.allowsMissingCatalogs = true
        let service = try Service(configuration: configuration, runner: StubRunner())
        #expect(service.plans.names.isEmpty)
    }
}

@Suite struct RenderingTests {
    @Test func jsonIsStableAndComplete() throws {
        let report = sampleReport(outcome: .completed)
        let first = ReportRendering.json(report)
        #expect(first == ReportRendering.json(report))
        let object = try #require(JSONValue.parse(first)?.objectValue)
        #expect(
            Set(object.keys) == [
                "report_version", "job_id", "outcome", "failure", "plan", "options", "input", "launches", "steps", "space",
                "final", "warnings", "timings",
            ])
        #expect(object["failure"] == .null)
    }

    @Test func textSummary() {
        let text = ReportRendering.text(sampleReport(outcome: .failed))
        let lines = text.split(separator: "\n")
        #expect(lines.first == "failed: a step failed and rolled back")
        #expect(text.contains("failure sql_error (step 2): no such column: x"))
        #expect(lines.contains { $0.contains("v1") && $0.contains("create notes") && $0.contains("applied") && $0.contains("12 ms") && $0.contains("peak 8.0 KiB") })
        #expect(lines.contains { $0.contains("v2") && $0.contains("failed") })
    }

    @Test func junitCarriesTheOutcome() {
        let xml = ReportRendering.junit(sampleReport(outcome: .failed))
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"))
        #expect(xml.contains("<testsuite name=\"preflight.notes\" id=\"job-1\" tests=\"3\" failures=\"2\""))
        #expect(xml.contains("<testcase classname=\"preflight.notes\" name=\"v1 create notes\" time=\"0.012\"/>"))
        #expect(xml.contains("<failure type=\"failed\" message=\"no such column: x\">"))
        #expect(xml.contains("name=\"outcome\""))
        let completed = ReportRendering.junit(sampleReport(outcome: .completed, failedStep: false))
        #expect(!completed.contains("<failure"))
        #expect(ReportRendering.xml("a<b & \"c\"\u{1}") == "a&lt;b &amp; &quot;c&quot;")
    }

    private func sampleReport(outcome: Outcome, failedStep: Bool = true) -> Report {
        var first = StepReport(version: 1, name: "create notes", kind: .sql, status: .applied)
        first.elapsedMs = 12
        first.peakBytes = 8192
        var second = StepReport(version: 2, name: "sync status", kind: .sql, status: failedStep ? .failed : .applied)
        second.elapsedMs = 3
        let failure = outcome == .completed ? nil : Failure(kind: "sql_error", step: 2, message: "no such column: x")
        return Report(
            jobID: "job-1", outcome: outcome, failure: failure,
            plan: PlanSummary(name: "notes", sha256: "abc", targetVersion: 2), options: RunOptions(),
            input: InputSummary(
                bytes: 8192, sha256: "def", userVersion: 0, applicationID: 0, journalMode: "delete", pageSize: 4096,
                sqliteHeaderValid: true, tables: ["notes": 3]),
            launches: [LaunchReport(launch: 1, fromVersion: 0, reachedVersion: 1, ended: .failed, elapsedMs: 20, startMs: 2)],
            steps: [first, second], space: SpaceReport(), final: nil, warnings: [],
            timings: Timings(totalMs: 40, uploadMs: 1))
    }
}

/// A runner that never runs: for services built only to be inspected.
struct StubRunner: JobExecuting {
    func run(_ job: Job, cancellation: JobCancellation) -> JobResult {
        fatalError("not used")
    }
}
