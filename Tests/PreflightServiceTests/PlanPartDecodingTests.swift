import Foundation
import Glibc
import MigrationCore
import Testing
import TestSupport

/// A plan sent as a multipart part is decoded on its job's thread, in the job's slot: not
/// on the connection's thread as soon as the body is in, where a client that left could
/// not stop it. Measured against the real server in CPU time, compared with what one
/// decode of the same plan costs in this process: no wall-clock figure is asserted.
@Suite struct PlanPartDecodingTests {
    /// A plan of about 3.5 MB (under the 4 MB part limit), almost all of it comments full
    /// of semicolons: costly to decode, and it never runs here.
    static let bigPlan: [UInt8] = {
        let sql = String(repeating: "-- a; b;\n/* c; d; */ ", count: 160_000) + "SELECT 1"
        let document: [String: Any] = [
            "name": "big", "steps": [
                ["version": 1, "name": "create notes", "sql": "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, updated_at INTEGER NOT NULL)"],
                ["version": 2, "name": "long", "sql": sql],
            ],
        ]
        return [UInt8]((try? JSONSerialization.data(withJSONObject: document)) ?? Data())
    }()

    /// One slot, taken by a job held at its step. Three uploads with a big plan part queue behind
    /// it: their plans are not decoded while they wait (the server spends far less CPU
    /// than three decodes), and once their clients leave they go without ever being.
    @Test func queuedPlanPartsAreNotDecodedAndGoWithTheirClients() throws {
        let server = try ServerProcess(
            environment: HeldJob.environment(atStep: 3).merging(["PREFLIGHT_MAX_CONCURRENT_JOBS": "1", "PREFLIGHT_QUEUE_LENGTH": "8"]) { $1 })
        let fixtures = try makeTemporaryDirectory("plan-part")
        defer { try? FileManager.default.removeItem(atPath: fixtures) }
        let database = try Fixtures.notesDatabase(in: fixtures)
        let holder = try startCurl(server.base + "/v1/migrations?plan=notes", ["--data-binary", "@\(database)"])
        defer { holder.stop() }
        let jobs = { (server.get("/healthz").json["jobs"] as? [String: Any]) ?? [:] }
        #expect(HeldJob.await(under: server.jobDir) != nil, "the job never reached its step")

        // What one decode of the plan costs here, in this thread's CPU time.
        let decodeCost = try (0..<2).map { _ in try threadCPUSeconds { _ = try PlanDecoder.decode(Self.bigPlan) } }.min() ?? 0
        let body = multipartBody(database: try Data(contentsOf: URL(fileURLWithPath: database)), plan: Self.bigPlan)
        let cpuBefore = try #require(processCPUSeconds(server.pid))
        var clients: [LoopbackSocket] = []
        // Three clients: one would be held to `max_uploads_per_client`.
        for index in 0..<3 {
            let client = try LoopbackSocket(port: server.port, from: "127.0.0.\(index + 2)")
            try client.send(
                "POST /v1/migrations HTTP/1.1\r\nHost: test\r\nContent-Type: multipart/form-data; boundary=\(Self.boundary)\r\n"
                    + "Content-Length: \(body.count)\r\n\r\n")
            try client.send(body)
            clients.append(client)
        }
        // Every body is in (nothing is uploading) and all three wait behind the held job.
        #expect(eventually { jobs()["uploading"] as? Int == 0 && jobs()["queued"] as? Int == 3 })
        let spent = try #require(processCPUSeconds(server.pid)) - cpuBefore
        #expect(
            spent < 1.5 * decodeCost,
            "the server spent \(spent) s of CPU on three queued uploads; one decode of their plan costs \(decodeCost) s")

        clients.removeAll()
        #expect(eventually { jobs()["queued"] as? Int == 0 })
        #expect(eventually { server.logLines.filter { $0["status"] as? Int == 499 }.count == 3 })
        #expect(server.jobDirEntries.count == 1)
    }

    static let boundary = "preflight-plan-part-boundary"

    private func multipartBody(database: Data, plan: [UInt8]) -> [UInt8] {
        var body: [UInt8] = []
        body += Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"database\"; filename=\"a.db\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        body += [UInt8](database)
        body += Array("\r\n--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"plan\"; filename=\"plan.json\"\r\nContent-Type: application/json\r\n\r\n".utf8)
        body += plan
        body += Array("\r\n--\(Self.boundary)--\r\n".utf8)
        return body
    }
}

extension LoopbackSocket {
    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw HarnessError("send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }
}

/// CPU seconds (user and system) of process `pid` so far, from /proc/PID/stat.
private func processCPUSeconds(_ pid: Int32) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let afterName = stat.lastIndex(of: ")")
    else { return nil }
    // Fields after the name: state is field 3, utime and stime fields 14 and 15.
    let fields = stat[stat.index(after: afterName)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The CPU time this thread spends in `work`.
private func threadCPUSeconds(_ work: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
    let started = now()
    try work()
    return now() - started
}
