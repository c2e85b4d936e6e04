import Foundation
import MigrationCore
import Simulation
import Synchronization
import Testing
import TestSupport

@testable import PreflightService

/// The HTTP layer without a socket: routing, configuration, auth, admission, formats,
/// rendering, and whole exchanges in process (`ServiceTests`).
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
        #expect(Route(path: "/") == .uploadPage)
        for path in ["", "//", "/v1", "/v1/", "/v1/jobs/", "/v1/jobs/a/b", "/v2/plans", "/healthz/x", "/v1/plans/"] {
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
        #expect(ReportAnswer.negotiate(accept: nil) == .rendered(.json))
        #expect(ReportAnswer.negotiate(accept: "*/*") == .rendered(.json))
        #expect(ReportAnswer.negotiate(accept: "text/plain") == .rendered(.text))
        #expect(ReportAnswer.negotiate(accept: "application/xml") == .rendered(.junit))
        #expect(ReportAnswer.negotiate(accept: "text/html, application/xml;q=0.9") == .page)
        #expect(ReportAnswer.negotiate(accept: "image/png") == .rendered(.json))
    }

    /// q-values rank the types (RFC 9110 §12.5.1); q=0 refuses one; on a tie the first wins.
    @Test func reportAcceptQualities() {
        #expect(ReportAnswer.negotiate(accept: "text/html;q=0.5, text/plain") == .rendered(.text))
        #expect(ReportAnswer.negotiate(accept: "application/json;q=0.2, text/html;q=0.8") == .page)
        #expect(ReportAnswer.negotiate(accept: "text/html;q=0, */*") == .rendered(.json))
        #expect(ReportAnswer.negotiate(accept: "text/plain, text/html") == .rendered(.text))
        // What a browser sends when it navigates.
        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
        #expect(ReportAnswer.negotiate(accept: browser) == .page)
    }

    /// `format=` wins over `Accept`, for a form that cannot set headers.
    @Test func reportFormatQuery() throws {
        #expect(try ReportAnswer.choose(accept: "application/json", format: "html") == .page)
        #expect(try ReportAnswer.choose(accept: "text/html", format: "junit") == .rendered(.junit))
        #expect(try ReportAnswer.choose(accept: "text/html", format: nil) == .page)
        #expect(throws: HTTPError.self) { try ReportAnswer.choose(accept: nil, format: "pdf") }
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

    /// A job's internal failure reaches an HTTP client with a request id in place of its
    /// words, which may name the server's paths; the detail is for the log.
    @Test func anInternalFailureInAReportNamesNoPath() throws {
        var failure = Failure(kind: .internal, message: "cannot prepare the job directory: /srv/jobs/0a1b/job.json: No space left")
        let withheld = failure.withholdInternalDetail()
        let fault = try #require(withheld)
        #expect(!failure.message.contains("/srv/jobs"), "\(failure.message)")
        #expect(failure.message.contains(fault.requestID))
        #expect(fault.detail.contains("/srv/jobs/0a1b/job.json"))
        var stepFailure = Failure(kind: .sqlError, message: "step 2 failed")
        let kept = stepFailure.withholdInternalDetail()
        #expect(kept == nil)
        #expect(stepFailure.message == "step 2 failed")
    }

    /// A matrix's cells carry reports too: a cell's internal failure, and its report's, get
    /// a request id in place of their words, as a run's report does.
    @Test func anInternalFailureInAMatrixCellNamesNoPath() throws {
        let words = "cannot create a job directory: /srv/jobs/0a1b: Permission denied"
        let cell = #"{"outcome": "failed", "failure": {"kind": "internal", "message": "\#(words)"}, "launches": 0, "elapsed_ms": 0}"#
        let json = #"""
            {"matrix_version": 1, "plan": "p", "devices": ["d", "e"], "from_version": 1, "target_version": 2,
             "rows": [{"from_version": 1, "source": "synthesized", "cells": {"d": \#(cell),
               "e": {"outcome": "failed", "failure": {"kind": "sql_error", "message": "no such column: x"}, "launches": 1, "elapsed_ms": 3}}}],
             "summary": {"worst_outcome": "failed", "margin_ms": {}},
             "identity": {"plan_sha256": "a", "options_sha256": "b", "inputs": []}}
            """#
        var answer = try JSONDecoder().decode(MatrixAnswer.self, from: Data(json.utf8))
        let faults = answer.withholdInternalDetails()
        #expect(faults.count == 1)
        #expect(faults.first?.detail == words)
        let body = String(decoding: MatrixRendering.render(answer, as: .json), as: UTF8.self)
        #expect(!body.contains("/srv/jobs"), "\(body)")
        #expect(body.contains(try #require(faults.first).requestID))
        #expect(body.contains("no such column: x"))
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

    /// With tokens, the token a request presents is its client for the fair shares: named
    /// by its place in the list, never by its text.
    @Test func aTokenNamesItsClient() {
        let auth = BearerAuthenticator(tokens: ["alpha", "beta-token"])
        #expect(auth.tokenNumber(authorization: "Bearer alpha") == 1)
        #expect(auth.tokenNumber(authorization: "Bearer beta-token") == 2)
        #expect(auth.tokenNumber(authorization: "Bearer gamma") == nil)
        #expect(BearerAuthenticator(tokens: []).tokenNumber(authorization: "Bearer alpha") == nil)
    }
}

@Suite struct SchedulerTests {
    /// What a wait's check throws to give up.
    struct GaveUp: Error {}

    /// A wait's check that gives up after `polls` polls (100 ms each), failing the test
    /// with `what`: a broken scheduler fails the test instead of hanging it.
    static func bounded(_ what: String, polls: Int = 100) -> () throws -> Void {
        var count = 0
        return {
            count += 1
            if count > polls {
                Issue.record("\(what): still waiting after \(polls) polls")
                throw GaveUp()
            }
        }
    }

    /// Places go to complete uploads: at most the slots plus the queue. An upload that
    /// comes while every place is taken is turned away before it starts; one whose body
    /// completes then is turned away at that point, its ticket given back.
    @Test func admitsUpToSlotsPlusQueue() throws {
        let scheduler = JobScheduler(maxRunning: 1, queueLength: 1)
        let arriving = try scheduler.beginUpload(for: "b")
        let first = try scheduler.admitted(for: "a")
        let second = try scheduler.admitted(for: "a")
        #expect(scheduler.load == JobScheduler.Load(running: 0, queued: 2, uploading: 1))
        #expect(throws: JobScheduler.Refusal.full) { try scheduler.beginUpload(for: "c") }
        #expect(throws: JobScheduler.Refusal.full) { try scheduler.admit(arriving) }
        #expect(scheduler.load == JobScheduler.Load(running: 0, queued: 2, uploading: 0))
        try scheduler.run(first, checking: Self.bounded("the first job, with the slot free")) {
            #expect(scheduler.load == JobScheduler.Load(running: 1, queued: 1, uploading: 0))
            // The second waits while the first runs, and gives up when its check throws.
            var polls = 0
            #expect(throws: GaveUp.self) {
                try scheduler.run(
                    second,
                    checking: {
                        polls += 1
                        if polls == 3 { throw GaveUp() }
                    }
                ) { Issue.record("the second job ran while the first held the only slot") }
            }
            #expect(polls == 3)
            #expect(scheduler.load == JobScheduler.Load(running: 1, queued: 0, uploading: 0))
        }
        #expect(scheduler.load == JobScheduler.Load(running: 0, queued: 0, uploading: 0))
    }

    /// Uploads in flight hold no place, only their bytes: as many as `uploads` arrive at
    /// once, together holding at most `bytes`; a withdrawn upload gives its bytes back, and
    /// an admitted one hands them to its job.
    @Test func uploadsHoldBytesNotPlaces() throws {
        let scheduler = JobScheduler(
            maxRunning: 1, queueLength: 1, uploadBudget: JobScheduler.UploadBudget(uploads: 2, bytes: 100))
        let one = try scheduler.beginUpload(for: "a")
        let two = try scheduler.beginUpload(for: "b")
        #expect(throws: JobScheduler.Refusal.uploads(limit: 2)) { try scheduler.beginUpload(for: "c") }
        try scheduler.take(60, for: one)
        #expect(throws: JobScheduler.Refusal.uploadBytes(limit: 100)) { try scheduler.take(41, for: two) }
        try scheduler.take(40, for: two)
        scheduler.withdraw(one)
        try scheduler.take(60, for: two)
        try scheduler.admit(two)
        #expect(scheduler.load == JobScheduler.Load(running: 0, queued: 1, uploading: 0))
        let three = try scheduler.beginUpload(for: "c")
        try scheduler.take(100, for: three)
    }

    /// One client has at most its share of uploads in flight and of places, while the
    /// places left stay open to others; an upload over the place share is refused when its
    /// body completes, and a finished job gives its place back.
    @Test func aClientHoldsAtMostItsShare() throws {
        let scheduler = JobScheduler(maxRunning: 1, queueLength: 9, share: JobScheduler.Share(uploads: 2, jobs: 3))
        let first = try scheduler.beginUpload(for: "a")
        let second = try scheduler.beginUpload(for: "a")
        #expect(throws: JobScheduler.Refusal.clientUploads(limit: 2)) { try scheduler.beginUpload(for: "a") }
        _ = try scheduler.beginUpload(for: "b")
        try scheduler.admit(first)
        try scheduler.admit(second)
        let third = try scheduler.beginUpload(for: "a")
        let fourth = try scheduler.beginUpload(for: "a")
        try scheduler.admit(third)
        #expect(throws: JobScheduler.Refusal.clientJobs(limit: 3)) { try scheduler.admit(fourth) }
        #expect(throws: JobScheduler.Refusal.clientJobs(limit: 3)) { try scheduler.beginUpload(for: "a") }
        _ = try scheduler.admitted(for: "c")
        try scheduler.run(first, checking: Self.bounded("the first job, with the slot free")) {}
        // Its job over, "a" has a place again.
        _ = try scheduler.admitted(for: "a")
        #expect(scheduler.load == JobScheduler.Load(running: 0, queued: 4, uploading: 1))
    }

    /// The time an upload gets: its declared length at `min_upload_bytes_per_s`, plus the
    /// grace time; the whole limit for a body of unknown length; none without a minimum.
    @Test func anUploadsTimeFollowsItsDeclaredLength() throws {
        let temporary = TemporaryDirectory("upload-time")
        let directory = try JobDirectory.create(parent: temporary.path)
        let ticket = try JobScheduler(maxRunning: 1, queueLength: 0).beginUpload(for: "a")
        let grace = 7
        func allowed(declared: Int64?, rate: Int) throws -> Int? {
            let upload = try MigrationUpload(
                directory: directory, ticket: ticket, bodyKind: .multipart, keep: false, maxBytes: 1_000_000,
                minBytesPerSecond: rate, graceSeconds: grace, declaredBytes: declared,
                spec: .fromParts(registered: nil, queryOptions: [:]))
            return upload.allowedSeconds
        }
        #expect(try allowed(declared: 20_000, rate: 1000) == grace + 20)
        #expect(try allowed(declared: 20_001, rate: 1000) == grace + 21)
        #expect(try allowed(declared: nil, rate: 1000) == grace + 1000)
        #expect(try allowed(declared: 5_000_000, rate: 1000) == grace + 1000)
        #expect(try allowed(declared: 20_000, rate: 0) == nil)
    }

    @Test func aWaitingJobRunsOnceTheSlotFrees() throws {
        let scheduler = JobScheduler(maxRunning: 1, queueLength: 1)
        let first = try scheduler.admitted(for: "a")
        let second = try scheduler.admitted(for: "a")
        let events = Events()
        let firstRunning = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            scheduler.run(first, checking: {}) {
                firstRunning.signal()
                // Holds the slot until the second job is seen waiting for it.
                let seen = eventually { scheduler.load == JobScheduler.Load(running: 1, queued: 1, uploading: 0) }
                events.append(seen ? "first ends" : "first ends, the second never seen waiting")
            }
        }
        #expect(firstRunning.wait(timeout: .now() + 60) == .success, "the first job never ran")
        try scheduler.run(second, checking: Self.bounded("the second job, after the first")) {
            events.append("second runs")
        }
        #expect(events.all == ["first ends", "second runs"])
    }
}

/// Events from several threads, in the order they happened.
final class Events: Sendable {
    private let list = Mutex<[String]>([])

    func append(_ event: String) { list.withLock { $0.append(event) } }

    var all: [String] { list.withLock { $0 } }
}

@Suite struct ConfigurationTests {
    /// Removed when the test's instance of the suite goes away.
    private let temporary = TemporaryDirectory("config")
    var directory: String { temporary.path }

    /// The embedded copy is the repository's file, byte for byte: the one place of every default.
    @Test func embeddedDefaultIsTheRepositoryFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let file = try #require(FileManager.default.contents(atPath: root + "/Config/preflight.json"))
        #expect(
            ServiceConfiguration.defaultDocument == [UInt8](file),
            "Sources/PreflightService/Resources/preflight.json differs from Config/preflight.json: copy it over")
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

    /// The embedded default names every key; a file names some, and the default gives the rest.
    @Test func aFileOverridesTheDefaultKeyByKey() throws {
        let defaults = try #require(JSONValue.parse(ServiceConfiguration.defaultDocument)?.objectValue)
        #expect(Set(defaults.keys) == Set(ServiceConfiguration.keys.map(\.key)))
        let file = directory + "/Config/partial.json"
        try FileManager.default.createDirectory(atPath: directory + "/Config", withIntermediateDirectories: true)
        try #"{"port": 9090, "plans_dir": "my-plans"}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let configuration = try ServiceConfiguration.load(path: file, environment: [:], currentDirectory: "/srv/app")
        #expect(configuration.port == 9090)
        #expect(configuration.plansDir == directory + "/my-plans")
        #expect(configuration.devicesDir == "/srv/app/Config/devices")
        #expect(configuration.maxConcurrentJobs == defaults["max_concurrent_jobs"]?.integerValue.map(Int.init))
        #expect(configuration.queueLength == defaults["queue_length"]?.integerValue.map(Int.init))
        #expect(!configuration.allowsMissingCatalogs)
    }

    @Test func environmentOverridesEveryKey() throws {
        let environment = [
            "PREFLIGHT_BIND": "127.0.0.1", "PREFLIGHT_PORT": "9000", "PREFLIGHT_MAX_UPLOAD_BYTES": "1000",
            "PREFLIGHT_MAX_CONCURRENT_JOBS": "3", "PREFLIGHT_QUEUE_LENGTH": "0", "PREFLIGHT_CONNECTION_TIMEOUT_S": "5",
            "PREFLIGHT_PER_IP_CONNECTION_LIMIT": "0", "PREFLIGHT_JOB_DIR": "jobs", "PREFLIGHT_KEEP_SECONDS": "7",
            "PREFLIGHT_TOKENS": "a, b", "PREFLIGHT_PLANS_DIR": "/p", "PREFLIGHT_DEVICES_DIR": "d",
            "PREFLIGHT_SHUTDOWN_GRACE_S": "1", "PREFLIGHT_MAX_UPLOADS_IN_FLIGHT": "12",
            "PREFLIGHT_MAX_UPLOAD_BYTES_IN_FLIGHT": "4294967296", "PREFLIGHT_UPLOAD_GRACE_S": "2",
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
        #expect(configuration.maxUploadsInFlight == 12)
        #expect(configuration.maxUploadBytesInFlight == 4 << 30)
        #expect(configuration.uploadGraceS == 2)
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
        var configuration = try ServiceConfiguration.load(path: nil, environment: [:])
        configuration.allowsMissingCatalogs = false
        configuration.plansDir = directory + "/no-plans"
        configuration.devicesDir = directory
        // A runner whose workers are never started: only the catalogs are looked at.
        let runner = JobRunner(workerExecutable: "/nonexistent/preflight")
        #expect(throws: ConfigurationError.self) {
            try Service(configuration: configuration, runner: runner)
        }
        configuration.allowsMissingCatalogs = true
        let service = try Service(configuration: configuration, runner: runner)
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
                "report_version", "job_id", "outcome", "failure", "first_launch", "plan", "options", "sqlite", "input",
                "launches", "steps", "space", "final", "warnings", "timings", "kill_sweep", "disk_full_sweep", "power_loss_sweep",
            ])
        #expect(object["failure"] == .null)
        #expect(object["first_launch"] == .null)
        #expect(object["kill_sweep"] == .null)
        #expect(object["power_loss_sweep"] == .null)
    }

    @Test func textSummary() {
        let text = ReportRendering.text(sampleReport(outcome: .failed))
        let lines = text.split(separator: "\n")
        #expect(lines.first == "failed: a step failed and rolled back")
        #expect(text.contains("failure sql_error (step 2): no such column: x"))
        #expect(lines.contains { $0.contains("v1") && $0.contains("create notes") && $0.contains("applied") && $0.contains("12 ms") && $0.contains("peak 8.0 KiB") })
        #expect(lines.contains { $0.contains("v2") && $0.contains("failed") })
        #expect(!text.contains("first launch"))
        var created = sampleReport(outcome: .completed)
        created.firstLaunch = .created
        #expect(ReportRendering.text(created).contains("first launch: the framework created the schema (its create path; no migration ran)"))
    }

    @Test func junitCarriesTheOutcome() {
        let xml = ReportRendering.junit(sampleReport(outcome: .failed))
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"))
        #expect(xml.contains("<testsuite name=\"preflight.notes\" id=\"job-1\" tests=\"3\" failures=\"2\""))
        #expect(xml.contains("<testcase classname=\"preflight.notes\" name=\"v1 create notes (launch 1)\" time=\"0.012\"/>"))
        #expect(xml.contains("<failure type=\"failed\" message=\"no such column: x\">"))
        #expect(xml.contains("name=\"outcome\""))
        let completed = ReportRendering.junit(sampleReport(outcome: .completed, failedStep: false))
        #expect(!completed.contains("<failure"))
        #expect(MarkupText.escape("a<b & \"c\"\u{1}") == "a&lt;b &amp; &quot;c&quot;")
    }

    private func sampleReport(outcome: Outcome, failedStep: Bool = true) -> Report {
        var first = StepReport(version: 1, name: "create notes", kind: .sql, status: .applied)
        first.elapsedMs = 12
        first.peakBytes = 8192
        first.launch = 1
        var second = StepReport(version: 2, name: "sync status", kind: .sql, status: failedStep ? .failed : .applied)
        second.elapsedMs = 3
        second.launch = 1
        let failure = outcome == .completed ? nil : Failure(kind: .sqlError, step: 2, message: "no such column: x")
        return Report(
            jobID: "job-1", outcome: outcome, failure: failure,
            plan: PlanSummary(name: "notes", sha256: "abc", targetVersion: 2, runner: .perStep), options: RunOptions(),
            input: InputSummary(
                bytes: 8192, sha256: "def", userVersion: 0, applicationID: 0, journalMode: "delete", pageSize: 4096,
                sqliteHeaderValid: true, tables: ["notes": 3]),
            launches: [LaunchReport(launch: 1, fromVersion: 0, reachedVersion: 1, ended: .failed, elapsedMs: 20, startMs: 2)],
            steps: [first, second], space: SpaceReport(), final: nil, warnings: [],
            timings: Timings(totalMs: 40, uploadMs: 1))
    }
}

/// Whole exchanges in process, through the steps `Daemon` drives (`Service.respond`),
/// on a real `JobRunner` whose workers are the built `preflight` binary.
@Suite struct ServiceTests {
    /// Removed when the test's instance of the suite goes away.
    private let temporary = TemporaryDirectory("service")
    var jobDir: String { temporary.path + "/jobs" }

    @Test func healthAndTheAPIDocument() throws {
        let service = try makeService()
        let health = try #require(send(service, "GET", "/healthz").response)
        #expect(health.status == 200)
        #expect(health.json?["status"] == .string("ok"))
        #expect(
            health.json?["jobs"]
                == .object(["running": .number(0), "queued": .number(0), "uploading": .number(0), "kept": .number(0)]))
        let document = try #require(send(service, "GET", "/openapi.json").response)
        #expect(document.status == 200)
        #expect(document.header("content-type") == "application/json")
        #expect(document.bytes == PackageResources.openapi_json)
        #expect(JSONValue.parse(document.bytes)?.objectValue?["openapi"] == .string("3.1.0"))
    }

    @Test func plansAreListed() throws {
        let service = try makeService()
        let response = try #require(send(service, "GET", "/v1/plans").response)
        #expect(response.status == 200)
        guard case .array(let plans)? = response.json?["plans"] else {
            Issue.record("no plans array: \(String(decoding: response.bytes, as: UTF8.self))")
            return
        }
        #expect(plans.map { $0.objectValue?["name"] } == [.string("notes")])
        #expect(plans.first?.objectValue?["newest_version"] == .number(3))
        #expect(plans.first?.objectValue?["description"] == .string("notes app"))
        let document = try #require(send(service, "GET", "/v1/plans/notes").response)
        #expect(String(decoding: document.bytes, as: UTF8.self) == Fixtures.notesPlan())
    }

    @Test func tokensGuardTheAPIButNotTheProbes() throws {
        let service = try makeService(environment: ["PREFLIGHT_TOKENS": "t0ken"])
        let refused = try #require(send(service, "GET", "/v1/plans").response)
        #expect(refused.status == 401)
        #expect(refused.errorCode == "unauthorized")
        #expect(refused.header("www-authenticate") == "Bearer realm=\"preflight\"")
        let wrong = send(service, "GET", "/v1/plans", headers: ["authorization": "Bearer nope"])
        #expect(wrong.response?.status == 401)
        let allowed = send(service, "GET", "/v1/plans", headers: ["authorization": "Bearer t0ken"])
        #expect(allowed.response?.status == 200)
        let upload = send(service, "POST", "/v1/migrations?plan=notes", body: [1, 2, 3])
        #expect(upload.response?.status == 401)
        for open in ["/healthz", "/metrics", "/openapi.json"] {
            #expect(send(service, "GET", open).response?.status == 200, "\(open)")
        }
        #expect(jobDirEntries.isEmpty)
    }

    @Test func unknownPlansAre404() throws {
        let service = try makeService()
        let document = try #require(send(service, "GET", "/v1/plans/nope").response)
        #expect(document.status == 404)
        #expect(document.errorCode == "unknown_plan")
        let upload = try #require(send(service, "POST", "/v1/migrations?plan=nope", body: [1]).response)
        #expect(upload.status == 404)
        #expect(upload.errorCode == "unknown_plan")
        #expect(upload.errorMessage?.contains("registered plans: notes") == true, "\(upload.errorMessage ?? "")")
        let nowhere = try #require(send(service, "GET", "/v2/nothing").response)
        #expect(nowhere.status == 404)
        #expect(nowhere.errorCode == "not_found")
        #expect(jobDirEntries.isEmpty)
        #expect(service.scheduler.load == JobScheduler.Load(running: 0, queued: 0, uploading: 0))
    }

    /// A raw upload's options are resolved from its query before the body: refused, it
    /// takes no place and leaves no directory.
    @Test func badOptionsAre400BeforeTheBody() throws {
        let service = try makeService()
        let cases = [
            ("launches=0", "launches"), ("colour=red", "colour"), ("device=toaster", "toaster"),
            ("watchdog_ms=soon", "watchdog_ms"),
        ]
        for (query, named) in cases {
            let response = try #require(
                send(service, "POST", "/v1/migrations?plan=notes&\(query)", body: [1]).response)
            #expect(response.status == 400, "\(query)")
            #expect(response.errorCode == "invalid_option", "\(query)")
            #expect(response.errorMessage?.contains(named) == true, "\(query): \(response.errorMessage ?? "")")
        }
        #expect(jobDirEntries.isEmpty)
        #expect(service.scheduler.load == JobScheduler.Load(running: 0, queued: 0, uploading: 0))
    }

    @Test func requestsThatCannotBeJobs() throws {
        let service = try makeService()
        let cases: [(String, String, [String: String], Int, String)] = [
            ("POST", "/v1/migrations", [:], 400, "bad_request"),
            ("POST", "/v1/migrations?plan=notes&keep=maybe", [:], 400, "bad_request"),
            ("GET", "/v1/plans", ["content-length": "1"], 400, "bad_request"),
            ("GET", "/v1/migrations", [:], 405, "method_not_allowed"),
            ("POST", "/v1/migrations?plan=notes", ["content-type": "application/json"], 415, "unsupported_media_type"),
            ("POST", "/v1/migrations?plan=notes", ["content-length": "3000000000"], 413, "payload_too_large"),
        ]
        for (method, target, headers, status, code) in cases {
            let response = try #require(send(service, method, target, headers: headers).response)
            #expect(response.status == status, "\(method) \(target)")
            #expect(response.errorCode == code, "\(method) \(target)")
        }
        #expect(jobDirEntries.isEmpty)
    }

    @Test func aMigrationRunsThroughTheRealRunner() throws {
        let service = try makeService()
        let database = try Fixtures.notesDatabase(rows: 25, in: temporary.path)
        let body = try #require(FileManager.default.contents(atPath: database))
        let response = try #require(
            send(service, "POST", "/v1/migrations?plan=notes", body: [UInt8](body)).response)
        #expect(response.status == 200, "\(String(decoding: response.bytes, as: UTF8.self))")
        #expect(response.header("preflight-outcome") == "completed")
        let report = try #require(response.json)
        #expect(report["outcome"] == .string("completed"))
        #expect(response.header("preflight-job-id").map(JSONValue.string) == report["job_id"])
        #expect(report["final"]?.objectValue?["tables"]?.objectValue?["notes"] == .number(25))
        #expect(jobDirEntries.isEmpty, "left: \(jobDirEntries)")
        #expect(service.scheduler.load == JobScheduler.Load(running: 0, queued: 0, uploading: 0))
        let metrics = try #require(send(service, "GET", "/metrics").response)
        let text = String(decoding: metrics.bytes, as: UTF8.self)
        #expect(text.contains("preflight_jobs_total{outcome=\"completed\"} 1\n"))
        #expect(text.contains("preflight_upload_bytes_total \(body.count)\n"))
    }

    @Test func aKeptJobAnswersItsReportAndDatabase() throws {
        let service = try makeService()
        let database = try Fixtures.notesDatabase(rows: 5, in: temporary.path)
        let body = try #require(FileManager.default.contents(atPath: database))
        let response = try #require(
            send(service, "POST", "/v1/migrations?plan=notes&keep=1", body: [UInt8](body)).response)
        #expect(response.status == 200)
        let id = try #require(response.header("preflight-job-id"))
        #expect(response.header("location") == "/v1/jobs/\(id)")
        #expect(jobDirEntries == [id])
        let text = try #require(
            send(service, "GET", "/v1/jobs/\(id)", headers: ["accept": "text/plain"]).response)
        #expect(String(decoding: text.bytes, as: UTF8.self).hasPrefix("completed"))
        let download = try #require(send(service, "GET", "/v1/jobs/\(id)/database").response)
        #expect(download.header("content-type") == "application/vnd.sqlite3")
        guard case .file(let path, _) = download.body else {
            Issue.record("the database is not streamed from its file")
            return
        }
        #expect(Fixtures.count("notes", in: path) == 5)
    }

    /// A client that leaves mid-job: the job is cancelled (its worker killed), nothing is
    /// answered, and its place and directory are given back.
    @Test func aClientThatLeavesCancelsItsJob() throws {
        // A step that never ends: only the client's leaving can end the job.
        let endless = #"{"name": "endless", "steps": [{"version": 1, "sql": "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, updated_at INTEGER NOT NULL)"}, {"version": 2, "sql": "CREATE TABLE n AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) AS n FROM c"}]}"#
        let service = try makeService(plans: Fixtures.plans.merging(["endless": endless]) { $1 })
        let database = try Fixtures.notesDatabase(in: temporary.path)
        let body = try #require(FileManager.default.contents(atPath: database))
        let answer = send(service, "POST", "/v1/migrations?plan=endless", body: [UInt8](body), clientGone: { true })
        guard case .clientGone = answer else {
            Issue.record("answered \(answer.response?.status ?? 0) to a client that had left")
            return
        }
        #expect(jobDirEntries.isEmpty, "left: \(jobDirEntries)")
        #expect(service.scheduler.load == JobScheduler.Load(running: 0, queued: 0, uploading: 0))
        #expect(service.lifecycle.runningJobs == 0)
        let metrics = String(decoding: try #require(send(service, "GET", "/metrics").response).bytes, as: UTF8.self)
        #expect(metrics.contains("preflight_jobs_total{outcome=\"cancelled\"} 1\n"))
        #expect(metrics.contains("preflight_jobs_total{outcome=\"completed\"} 0\n"))
    }

    @Test func aDrainingServiceTakesNoJobs() throws {
        let service = try makeService()
        service.lifecycle.beginDraining()
        let refused = try #require(send(service, "POST", "/v1/migrations?plan=notes", body: [1]).response)
        #expect(refused.status == 503)
        #expect(refused.errorCode == "shutting_down")
        #expect(refused.header("retry-after") == "5")
        let health = try #require(send(service, "GET", "/healthz").response)
        #expect(health.status == 503)
        #expect(health.json?["status"] == .string("draining"))
        #expect(jobDirEntries.isEmpty)
    }

    // MARK: - Helpers

    /// A service over the test plans and devices, its jobs in this test's directory.
    private func makeService(environment: [String: String] = [:], plans texts: [String: String] = Fixtures.plans) throws -> Service {
        try FileManager.default.createDirectory(atPath: jobDir, withIntermediateDirectories: true)
        let configuration = try ServiceConfiguration.load(
            path: nil, environment: ["PREFLIGHT_JOB_DIR": jobDir].merging(environment) { $1 },
            currentDirectory: temporary.path)
        var plans: [String: Plan] = [:]
        for (name, text) in texts { plans[name] = try PlanDecoder.decode(Array(text.utf8)) }
        let devices = try Fixtures.devices.map { name, text in
            try DeviceProfileDecoder.decode(Array(text.utf8), source: name + ".json")
        }
        return Service(
            configuration: configuration, plans: PlanCatalog(plans: plans), devices: DeviceCatalog(profiles: devices),
            runner: JobRunner(workerExecutable: try preflightExecutable()), log: RequestLog(enabled: false))
    }

    /// One exchange: the request as `Daemon` reads it (`target` is the path and query; a
    /// body declares its length), then `Service.respond`.
    private func send(
        _ service: Service, _ method: String, _ target: String, body: [UInt8] = [], headers: [String: String] = [:],
        clientGone: () -> Bool = { false }
    ) -> Answer {
        let parts = target.split(separator: "?", maxSplits: 1)
        var query: [String: String] = [:]
        for argument in parts.dropFirst().first?.split(separator: "&") ?? [] {
            let pair = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query[String(pair[0])] = pair.count > 1 ? String(pair[1]) : ""
        }
        var headers = headers
        if !body.isEmpty { headers["content-length"] = String(body.count) }
        let request = Request(method: method, path: String(parts.first ?? ""), query: query, headers: headers)
        return service.respond(to: request, body: body, clientGone: clientGone)
    }

    private var jobDirEntries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: jobDir)) ?? [] }
}

extension Answer {
    /// The response to send; nil when the client was gone.
    var response: HTTPResponse? {
        guard case .response(let response) = self else { return nil }
        return response
    }
}

extension HTTPResponse {
    var bytes: [UInt8] {
        guard case .bytes(let bytes) = body else { return [] }
        return bytes
    }

    var json: [String: JSONValue]? { JSONValue.parse(bytes)?.objectValue }

    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }

    var errorCode: String? { json?["error"]?.objectValue?["code"]?.stringValue }

    var errorMessage: String? { json?["error"]?.objectValue?["message"]?.stringValue }
}

extension JobScheduler {
    /// An upload of `client` whose body is complete at once: its job's place.
    func admitted(for client: String) throws(Refusal) -> Ticket {
        let ticket = try beginUpload(for: client)
        try admit(ticket)
        return ticket
    }
}
