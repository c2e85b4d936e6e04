import Foundation
import Simulation
import Testing
import TestSupport

/// End to end: the real `preflight serve` on a loopback port, driven with curl as users do.
@Suite(.serialized)
struct ServerTests {
    /// Removed when the test's instance of the suite goes away.
    private let fixturesDirectory = TemporaryDirectory("fixtures")
    var fixtures: String { fixturesDirectory.path }

    // MARK: - Uploads

    @Test func rawUploadWithRegisteredPlan() throws {
        let server = try ServerProcess()
        let database = try Fixtures.notesDatabase(rows: 25, in: fixtures)
        let result = server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database])
        #expect(result.status == 200, "\(result.text)")
        #expect(result.headers["preflight-outcome"] == "completed")
        let report = try result.report
        #expect(report.outcome == .completed)
        #expect(report.jobID.count == 32)
        #expect(result.headers["preflight-job-id"] == report.jobID)
        #expect(report.steps.map(\.version) == [2, 3])
        #expect(report.final?.tables?["notes"] == 25)
        #expect(eventually { server.jobDirEntries.isEmpty }, "job directory left: \(server.jobDirEntries)")

        // The request log: one JSON line with the job and its outcome.
        #expect(eventually { server.logLines.contains { $0["route"] as? String == "/v1/migrations" } })
        let line = try #require(server.logLines.first { $0["route"] as? String == "/v1/migrations" })
        #expect(line["method"] as? String == "POST")
        #expect(line["status"] as? Int == 200)
        #expect(line["job_id"] as? String == report.jobID)
        #expect(line["outcome"] as? String == "completed")
        #expect((line["bytes_in"] as? Int ?? 0) > 0)
        #expect((line["bytes_out"] as? Int ?? 0) > 0)
        #expect(line["ms"] is Int)
    }

    @Test func reportFormatsFollowAccept() throws {
        let server = try ServerProcess()
        let database = try Fixtures.notesDatabase(in: fixtures)
        let text = server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database, "-H", "Accept: text/plain"])
        #expect(text.status == 200)
        #expect(text.headers["content-type"]?.hasPrefix("text/plain") == true)
        #expect(text.text.hasPrefix("completed: "))
        #expect(text.text.contains("v2 ") && text.text.contains("sync status"))
        let junit = server.curl(
            "/v1/migrations?plan=notes", ["--data-binary", "@" + database, "-H", "Accept: application/xml"])
        #expect(junit.status == 200)
        #expect(junit.headers["content-type"]?.hasPrefix("application/xml") == true)
        #expect(junit.text.contains("<testsuite name=\"preflight.notes\""))
        #expect(junit.text.contains("<testcase classname=\"preflight.notes\" name=\"v2 sync status (launch 1)\""))
        let xmllint = run("/usr/bin/python3", ["-c", "import sys, xml.dom.minidom; xml.dom.minidom.parseString(sys.stdin.read())"], input: junit.text)
        #expect(xmllint.status == 0, "JUnit output is not well-formed XML")
    }

    @Test func multipartWithWALSidecarAndInlinePlan() throws {
        let server = try ServerProcess()
        let (database, wal) = try Fixtures.walDatabase(rows: 30, walRows: 12, in: fixtures)
        let planPath = fixtures + "/inline-plan.json"
        try Fixtures.notesPlan(name: "inline").write(toFile: planPath, atomically: true, encoding: .utf8)
        let result = server.curl(
            "/v1/migrations",
            [
                "-F", "database=@\(database)", "-F", "wal=@\(wal)", "-F", "plan=<\(planPath)",
                "-F", #"options={"launches": 2, "verify": "quick"}"#,
            ])
        #expect(result.status == 200, "\(result.text)")
        let report = try result.report
        #expect(report.outcome == .completed)
        #expect(report.plan.name == "inline")
        #expect(report.options.launches == 2)
        #expect(report.options.verify == .quick)
        // The rows that existed only in the WAL were migrated too.
        #expect(report.final?.tables?["notes"] == 42)
        #expect(eventually { server.jobDirEntries.isEmpty })
    }

    @Test func emptyBodyIsAFreshInstall() throws {
        let server = try ServerProcess()
        let result = server.curl("/v1/migrations?plan=notes", ["-X", "POST", "-H", "Content-Length: 0"])
        #expect(result.status == 200, "\(result.text)")
        #expect(try result.report.input.userVersion == 0)
    }

    // MARK: - Client errors

    @Test func everyClientError() throws {
        let server = try ServerProcess(environment: ["PREFLIGHT_MAX_UPLOAD_BYTES": "200000"])
        let database = try Fixtures.notesDatabase(in: fixtures)
        let badPlan = fixtures + "/bad-plan.json"
        try #"{"name": "bad", "steps": [{"version": 2, "name": "gap", "sql": "SELECT 1"}]}"#
            .write(toFile: badPlan, atomically: true, encoding: .utf8)
        let big = fixtures + "/big.bin"
        _ = FileManager.default.createFile(atPath: big, contents: Data(repeating: 7, count: 1_000_000))
        let upload = ["--data-binary", "@" + database]

        let cases: [(String, CurlResult, Int, String)] = [
            ("no plan", server.curl("/v1/migrations", upload), 400, "bad_request"),
            ("GET with a body", server.curl("/v1/plans", ["-X", "GET", "--data-binary", "x"]), 400, "bad_request"),
            ("bad keep", server.curl("/v1/migrations?plan=notes&keep=maybe", upload), 400, "bad_request"),
            ("multipart without database",
             server.curl("/v1/migrations?plan=notes", ["-F", #"options={"launches": 1}"#]), 400, "bad_request"),
            ("unknown multipart part",
             server.curl("/v1/migrations?plan=notes", ["-F", "database=@\(database)", "-F", "extra=1"]), 400, "bad_request"),
            ("bad option value", server.curl("/v1/migrations?plan=notes&launches=0", upload), 400, "invalid_option"),
            ("unknown option", server.curl("/v1/migrations?plan=notes&colour=red", upload), 400, "invalid_option"),
            ("unknown device", server.curl("/v1/migrations?plan=notes&device=toaster", upload), 400, "invalid_option"),
            ("options part not an object",
             server.curl("/v1/migrations?plan=notes", ["-F", "database=@\(database)", "-F", "options=[1]"]), 400,
             "invalid_option"),
            ("invalid inline plan",
             server.curl("/v1/migrations", ["-F", "database=@\(database)", "-F", "plan=<\(badPlan)"]), 400, "invalid_plan"),
            ("unknown plan", server.curl("/v1/migrations?plan=nope", upload), 404, "unknown_plan"),
            ("unknown plan document", server.get("/v1/plans/nope"), 404, "unknown_plan"),
            ("unknown path", server.get("/v2/nothing"), 404, "not_found"),
            ("unknown job", server.get("/v1/jobs/0123456789abcdef0123456789abcdef"), 404, "not_found"),
            ("malformed job id", server.get("/v1/jobs/nope/database"), 404, "not_found"),
            ("GET migrations", server.get("/v1/migrations"), 405, "method_not_allowed"),
            ("DELETE plans", server.get("/v1/plans", ["-X", "DELETE"]), 405, "method_not_allowed"),
            ("declared too large",
             server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + big]), 413, "payload_too_large"),
            ("chunked too large",
             server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + big, "-H", "Transfer-Encoding: chunked"]),
             413, "payload_too_large"),
            ("multipart too large",
             server.curl("/v1/migrations?plan=notes", ["-F", "database=@\(big)", "-H", "Transfer-Encoding: chunked"]),
             413, "payload_too_large"),
            ("JSON body",
             server.curl("/v1/migrations?plan=notes", upload + ["-H", "Content-Type: application/json"]), 415,
             "unsupported_media_type"),
            ("text body", server.curl("/v1/migrations?plan=notes", upload + ["-H", "Content-Type: text/plain"]), 415,
             "unsupported_media_type"),
        ]
        for (name, result, status, code) in cases {
            #expect(result.status == status, "\(name): \(result.status) \(result.text)")
            #expect(result.errorCode == code, "\(name): \(result.text)")
            #expect((result.json["error"] as? [String: Any])?["message"] is String, "\(name)")
        }
        #expect(server.get("/v1/migrations").headers["allow"] == "POST")
        #expect(eventually { server.jobDirEntries.isEmpty }, "left: \(server.jobDirEntries)")
    }

    /// The answer comes right after the headers: the body is never sent at all here, and
    /// the server answers and closes without waiting for it.
    @Test func payloadTooLargeBeforeTheBodyIsRead() throws {
        let server = try ServerProcess(environment: ["PREFLIGHT_MAX_UPLOAD_BYTES": "1000000"])
        let answer = try rawRequest(
            port: server.port,
            head: "POST /v1/migrations?plan=notes HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n",
            body: [], closeAfterSend: false)
        #expect(answer.text.hasPrefix("HTTP/1.1 413"), "\(answer.text)")
        #expect(answer.text.contains("payload_too_large"))
        #expect(answer.serverClosed, "the server waited for a body it had refused")
        #expect(server.jobDirEntries.isEmpty)
    }

    // MARK: - Load

    @Test func busyWhenEverySlotAndQueuePlaceIsTaken() throws {
        let server = try ServerProcess(
            environment: HeldJob.environment(atStep: 3).merging(["PREFLIGHT_MAX_CONCURRENT_JOBS": "1", "PREFLIGHT_QUEUE_LENGTH": "0"]) { $1 })
        let database = try Fixtures.notesDatabase(in: fixtures)
        let uploads = BackgroundUploads(server: server, database: database)
        uploads.start(plan: "notes")
        let held = try #require(HeldJob.await(under: server.jobDir), "the job never reached its step")
        let refused = server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database])
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.errorCode == "busy")
        #expect(Int(refused.headers["retry-after"] ?? "") != nil)
        try held.release()
        #expect(uploads.finished(within: 60), "the held job had no answer after its release")
        #expect(uploads.results.map(\.status) == [200])
        // The slot is free again: the next job runs (and holds, until released too).
        uploads.start(plan: "notes")
        #expect(eventually { HeldJob.held(under: server.jobDir).count == 1 })
        for job in HeldJob.held(under: server.jobDir) { try job.release() }
        #expect(uploads.finished(within: 60))
        #expect(uploads.results.map(\.status) == [200, 200])
    }

    @Test func concurrentJobsWhileHealthAnswersAtOnce() throws {
        // Two jobs held at a step until their clients leave, so that two running and one
        // waiting lasts as long as the checks take on any machine.
        let server = try ServerProcess(
            environment: HeldJob.environment(atStep: 3).merging(["PREFLIGHT_MAX_CONCURRENT_JOBS": "2", "PREFLIGHT_QUEUE_LENGTH": "1"]) { $1 })
        let database = try Fixtures.notesDatabase(in: fixtures)
        let held = try (0..<2).map { _ in try startCurl(server.base + "/v1/migrations?plan=notes", ["--data-binary", "@" + database]) }
        defer { for client in held { client.stop(signal: SIGKILL) } }
        #expect(eventually { HeldJob.held(under: server.jobDir).count == 2 })
        #expect(server.health["running"] == 2)
        let uploads = BackgroundUploads(server: server, database: database)
        uploads.start(plan: "notes")
        // A third job waits in the queue while two run; health answers at once.
        #expect(eventually { server.health["queued"] == 1 })
        // Two running and one waiting fill this server: a fourth is turned away.
        #expect(server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database]).status == 503)
        // Health is not behind the jobs: its answer was made while both still ran.
        let health = server.get("/healthz")
        #expect(health.status == 200)
        #expect(health.json["jobs"] as? [String: Int] == ["running": 2, "queued": 1, "uploading": 0, "kept": 0])
        // The held jobs are cancelled when their clients leave; the waiting one then runs,
        // and holds in its turn until released.
        for client in held {
            client.stop(signal: SIGKILL)
        }
        #expect(eventually { HeldJob.held(under: server.jobDir).count == 1 && server.jobDirEntries.count == 1 })
        for job in HeldJob.held(under: server.jobDir) { try job.release() }
        #expect(uploads.finished(within: 60), "the queued upload was unanswered after its release")
        #expect(uploads.results.map(\.status) == [200])
        #expect(try uploads.results.first?.report.outcome == .completed)
        #expect(eventually { server.metric("preflight_jobs_total{outcome=\"cancelled\"}") == 2 })
        #expect(eventually { server.jobDirEntries.isEmpty })
    }

    // MARK: - Clients that leave

    @Test func clientDisconnectsMidUpload() throws {
        let server = try ServerProcess()
        try rawRequest(
            port: server.port,
            head: "POST /v1/migrations?plan=notes HTTP/1.1\r\nHost: x\r\nContent-Length: 50000000\r\n\r\n",
            body: [UInt8](repeating: 1, count: 2_000_000), closeAfterSend: true)
        #expect(eventually { server.logLines.contains { $0["status"] as? Int == 499 } })
        #expect(eventually { server.jobDirEntries.isEmpty }, "left: \(server.jobDirEntries)")
        #expect(server.health["queued"] == 0)
        #expect(server.children.isEmpty)
    }

    @Test func clientDisconnectsMidJob() throws {
        let server = try ServerProcess(environment: HeldJob.environment(atStep: 3))
        let database = try Fixtures.notesDatabase(in: fixtures)
        let client = try startCurl(server.base + "/v1/migrations?plan=notes", ["--data-binary", "@" + database])
        // Held, never released: only the client's leaving can end it.
        #expect(HeldJob.await(under: server.jobDir) != nil, "the job never reached its step")
        #expect(server.health["running"] == 1 && !server.children.isEmpty)
        client.stop(signal: SIGKILL)
        #expect(eventually { server.children.isEmpty }, "workers left: \(server.children)")
        #expect(eventually { server.jobDirEntries.isEmpty }, "left: \(server.jobDirEntries)")
        #expect(eventually { server.health["running"] == 0 })
        // Cancelled, not run to its end.
        #expect(server.metric("preflight_jobs_total{outcome=\"cancelled\"}") == 1)
        #expect(server.metric("preflight_jobs_total{outcome=\"completed\"}") == 0)
    }

    /// A client of the progress stream that leaves while its job runs (held, the stream
    /// waiting for its next line) cancels the job as any other client does.
    @Test func clientDisconnectsMidStream() throws {
        let server = try ServerProcess(environment: HeldJob.environment(atStep: 3))
        let database = try Fixtures.notesDatabase(in: fixtures)
        let client = try startCurl(
            server.base + "/v1/migrations?plan=notes", ["-N", "-H", "Accept: text/event-stream", "--data-binary", "@" + database])
        #expect(HeldJob.await(under: server.jobDir) != nil, "the job never reached its step")
        client.stop(signal: SIGKILL)
        #expect(eventually { server.children.isEmpty }, "workers left: \(server.children)")
        #expect(eventually { server.jobDirEntries.isEmpty }, "left: \(server.jobDirEntries)")
        #expect(eventually { server.metric("preflight_jobs_total{outcome=\"cancelled\"}") == 1 })
        #expect(eventually { server.logLines.contains { $0["route"] as? String == "/v1/migrations" && $0["outcome"] as? String == "cancelled" } })
    }

    @Test func clientDisconnectsWhileQueued() throws {
        let server = try ServerProcess(
            environment: HeldJob.environment(atStep: 3).merging(["PREFLIGHT_MAX_CONCURRENT_JOBS": "1", "PREFLIGHT_QUEUE_LENGTH": "1"]) { $1 })
        let database = try Fixtures.notesDatabase(in: fixtures)
        let running = try startCurl(server.base + "/v1/migrations?plan=notes", ["--data-binary", "@" + database])
        let held = try #require(HeldJob.await(under: server.jobDir), "the job never reached its step")
        let waiting = try startCurl(server.base + "/v1/migrations?plan=notes", ["--data-binary", "@" + database])
        #expect(eventually { server.health["queued"] == 1 && server.jobDirEntries.count == 2 })
        waiting.stop(signal: SIGKILL)
        // The queued job is gone while the running one still runs: it did not wait for its turn.
        #expect(eventually {
            server.health == ["running": 1, "queued": 0, "uploading": 0, "kept": 0] && server.jobDirEntries.count == 1
        })
        try held.release()
        #expect(try running.wait().status == 0)
        #expect(eventually { server.jobDirEntries.isEmpty })
    }

    // MARK: - keep=1

    @Test func keptJobRoundTrip() throws {
        let server = try ServerProcess(environment: ["PREFLIGHT_KEEP_SECONDS": "3"])
        let database = try Fixtures.notesDatabase(rows: 40, in: fixtures)
        let result = server.curl("/v1/migrations?plan=notes&keep=1", ["--data-binary", "@" + database])
        #expect(result.status == 200)
        let id = try result.report.jobID
        #expect(result.headers["location"] == "/v1/jobs/\(id)")
        #expect(server.jobDirEntries == [id])

        let job = server.get("/v1/jobs/\(id)")
        #expect(job.status == 200)
        #expect(job.headers["preflight-outcome"] == "completed")
        #expect(try job.report.jobID == id)
        #expect(server.get("/v1/jobs/\(id)", ["-H", "Accept: text/plain"]).text.hasPrefix("completed"))

        let downloaded = fixtures + "/downloaded.db"
        let download = server.get("/v1/jobs/\(id)/database")
        #expect(download.status == 200)
        try download.body.write(to: URL(fileURLWithPath: downloaded))
        #expect(download.headers["content-type"] == "application/vnd.sqlite3")
        let version = run("/usr/bin/sqlite3", [downloaded, "PRAGMA user_version"]).output
        #expect(version.trimmingCharacters(in: .whitespacesAndNewlines) == "3")
        #expect(Fixtures.count("notes", in: downloaded) == 40)
        #expect(run("/usr/bin/sqlite3", [downloaded, "PRAGMA integrity_check"]).output.hasPrefix("ok"))

        // After keep_seconds the job is gone, files and all.
        #expect(eventually { server.get("/v1/jobs/\(id)").status == 404 })
        #expect(server.get("/v1/jobs/\(id)/database").status == 404)
        #expect(eventually { server.jobDirEntries.isEmpty })
    }

    // MARK: - Metrics and auth

    @Test func metricsMove() throws {
        let server = try ServerProcess()
        let database = try Fixtures.notesDatabase(in: fixtures)
        let before = server.get("/metrics")
        #expect(before.status == 200)
        #expect(before.headers["content-type"]?.hasPrefix("text/plain") == true)
        #expect(server.metric("preflight_jobs_total{outcome=\"completed\"}") == 0)
        #expect(server.metric("preflight_upload_bytes_total") == 0)
        #expect(server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database]).status == 200)
        _ = server.get("/v1/plans/nope")
        let size = (try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int) ?? 0
        #expect(eventually {
            server.metric("preflight_http_requests_total{route=\"/v1/migrations\",status=\"200\"}") == 1
        })
        #expect(server.metric("preflight_jobs_total{outcome=\"completed\"}") == 1)
        #expect(server.metric("preflight_upload_bytes_total") == Double(size))
        #expect(server.metric("preflight_job_duration_seconds_count") == 1)
        #expect(server.metric("preflight_job_duration_seconds_bucket{le=\"+Inf\"}") == 1)
        #expect(server.metric("preflight_http_requests_total{route=\"/v1/plans/{name}\",status=\"404\"}") == 1)
        #expect(server.metric("preflight_jobs_running") == 0)
        #expect(server.metric("preflight_jobs_queued") == 0)
    }

    @Test func authOnAndOff() throws {
        let server = try ServerProcess(environment: ["PREFLIGHT_TOKENS": "first-token,second-token"])
        let database = try Fixtures.notesDatabase(in: fixtures)
        #expect(server.get("/v1/plans").status == 401)
        #expect(server.get("/v1/plans").errorCode == "unauthorized")
        #expect(server.get("/v1/plans", ["-H", "Authorization: Bearer wrong"]).status == 401)
        #expect(server.get("/v1/plans", ["-H", "Authorization: Basic second-token"]).status == 401)
        #expect(server.get("/v1/plans", ["-H", "Authorization: Bearer second-token"]).status == 200)
        #expect(server.get("/v1/devices", ["-H", "Authorization: bearer first-token"]).status == 200)
        let refused = server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database])
        #expect(refused.status == 401)
        let accepted = server.curl(
            "/v1/migrations?plan=notes", ["--data-binary", "@" + database, "-H", "Authorization: Bearer first-token"])
        #expect(accepted.status == 200)
        for open in ["/healthz", "/metrics", "/openapi.json"] {
            #expect(server.get(open).status == 200, "\(open)")
        }
        #expect(server.jobDirEntries.isEmpty)

        let openServer = try ServerProcess()
        #expect(openServer.get("/v1/plans").status == 200)
        #expect(openServer.get("/v1/plans", ["-H", "Authorization: Bearer anything"]).status == 200)
    }

    @Test func catalogsAreListed() throws {
        let server = try ServerProcess()
        let plans = server.get("/v1/plans").json["plans"] as? [[String: Any]] ?? []
        #expect(plans.map { $0["name"] as? String } == ["notes"])
        #expect(plans.first?["newest_version"] as? Int == 3)
        #expect(plans.first?["description"] as? String == "notes app")
        let plan = server.get("/v1/plans/notes")
        #expect(plan.status == 200)
        #expect(plan.text == Fixtures.notesPlan())
        let devices = server.get("/v1/devices").json["devices"] as? [[String: Any]] ?? []
        #expect(devices.map { $0["name"] as? String } == ["default", "phone"])
        #expect(devices.last?["watchdog_ms"] as? Int == 20000)
        let health = server.get("/healthz")
        #expect(health.json["status"] as? String == "ok")
        // Keep-alive: the second request reuses the first one's connection.
        let connects = run(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{num_connects}\n", server.base + "/healthz", server.base + "/v1/plans"])
        #expect(connects.output.split(separator: "\n") == ["1", "0"])
    }

    // MARK: - SIGTERM

    @Test func sigtermLetsARunningJobFinish() throws {
        let server = try ServerProcess(environment: HeldJob.environment(atStep: 3))
        let database = try Fixtures.notesDatabase(in: fixtures)
        let uploads = BackgroundUploads(server: server, database: database)
        uploads.start(plan: "notes")
        let held = try #require(HeldJob.await(under: server.jobDir), "the job never reached its step")
        kill(server.pid, SIGTERM)
        // No new connections once it stopped accepting.
        #expect(eventually { curl(server.base + "/healthz", [], timeout: 2).status != 200 })
        // The job is still running after the SIGTERM (held), and the server with it.
        #expect(uploads.results.isEmpty && server.isRunning)
        try held.release()
        #expect(uploads.finished(within: 60), "the running job had no answer after its release")
        #expect(uploads.results.first?.status == 200)
        #expect(try uploads.results.first?.report.outcome == .completed)
        #expect(server.stop(signal: 0, within: 20) == 0, "the server did not exit by itself after SIGTERM")
        #expect(server.jobDirEntries.isEmpty)
    }

    @Test func sigtermCancelsJobsAfterTheGracePeriod() throws {
        let server = try ServerProcess(environment: HeldJob.environment(atStep: 3).merging(["PREFLIGHT_SHUTDOWN_GRACE_S": "0"]) { $1 })
        let database = try Fixtures.notesDatabase(in: fixtures)
        let uploads = BackgroundUploads(server: server, database: database)
        uploads.start(plan: "notes")
        // Held, never released: only the shutdown can end it.
        #expect(HeldJob.await(under: server.jobDir) != nil, "the job never reached its step")
        let children = server.children
        #expect(!children.isEmpty)
        kill(server.pid, SIGTERM)
        #expect(server.stop(signal: 0, within: 20) == 0, "the server did not exit by itself after SIGTERM")
        // The job was cancelled, not waited for: its answer is the shutdown's 503, not its report.
        #expect(uploads.finished(within: 10), "the cancelled job had no answer after 10 s")
        #expect(uploads.results.first?.status == 503)
        #expect(uploads.results.first?.errorCode == "shutting_down")
        #expect(server.jobDirEntries.isEmpty)
        for child in children { #expect(kill(child, 0) != 0, "worker \(child) is still alive") }
    }
}

// MARK: - Helpers

extension ServerProcess {
    func curl(_ path: String, _ arguments: [String]) -> CurlResult {
        PreflightServiceTests.curl(base + path, arguments)
    }

    /// `/healthz`'s job counts.
    var health: [String: Int] {
        (get("/healthz").json["jobs"] as? [String: Int]) ?? [:]
    }

    /// One sample of `/metrics`, by its full name with labels.
    func metric(_ name: String) -> Double? {
        for line in get("/metrics").text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }
}

/// Raw uploads of one database, each curl on a thread of its own, for tests that act on
/// the server while the uploads run.
final class BackgroundUploads: @unchecked Sendable {
    let server: ServerProcess
    let database: String
    private let group = DispatchGroup()
    private let lock = NSLock()
    private var answers: [CurlResult] = []

    init(server: ServerProcess, database: String) {
        self.server = server
        self.database = database
    }

    func start(plan: String) {
        group.enter()
        Thread.detachNewThread { [self] in
            let answer = server.curl("/v1/migrations?plan=\(plan)", ["--data-binary", "@" + database])
            lock.withLock { answers.append(answer) }
            group.leave()
        }
    }

    /// True when every upload started has had its answer within `seconds`.
    func finished(within seconds: Double) -> Bool {
        group.wait(timeout: .now() + seconds) == .success
    }

    /// The answers so far, in the order they came.
    var results: [CurlResult] { lock.withLock { answers } }
}

/// What a plain socket got back.
struct RawAnswer {
    var text: String
    /// The server closed the connection (rather than the read giving up after 5 s).
    var serverClosed: Bool
}

/// Sends `head` and `body` on a plain socket; answers what the server sent back (until it
/// closes or 5 s pass), or nothing when `closeAfterSend` hangs up right away.
@discardableResult
func rawRequest(port: Int, head: String, body: [UInt8], closeAfterSend: Bool) throws -> RawAnswer {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw HarnessError("socket failed") }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw HarnessError("connect failed") }
    let bytes = Array(head.utf8) + body
    var offset = 0
    while offset < bytes.count {
        let sent = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent <= 0 { break }
        offset += sent
    }
    if closeAfterSend { return RawAnswer(text: "", serverClosed: false) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    var count = 0
    repeat {
        count = recv(socket, &buffer, buffer.count, 0)
        if count > 0 { answer.append(contentsOf: buffer[0..<count]) }
    } while count > 0
    // 0 is the end of the stream; -1 the receive timeout (or a reset).
    return RawAnswer(text: String(decoding: answer, as: UTF8.self), serverClosed: count == 0)
}
