import Foundation
import Glibc
import Testing
import TestSupport

@testable import PreflightService

/// `max_connections` and the probe port: idle connections from many addresses cost no
/// thread and leave the main port serving, and the probe port serves the probes only.
@Suite struct ConnectionLimitTests {
    /// The attack of issues 16 and 34: many idle connections, each with half a request
    /// line, from 20 loopback addresses (30 each, within `per_ip_connection_limit`): more
    /// than the 256 that once filled the main port and its threads. The server holds them
    /// all on its polling threads, a descriptor each and no thread; a real migration on the
    /// main port completes and `/healthz` there answers while they are held.
    @Test func idleConnectionsLeaveTheMainPortServing() throws {
        let server = try ServerProcess()
        let fixtures = TemporaryDirectory("idle-connections")
        let database = try Fixtures.notesDatabase(rows: 25, in: fixtures.path)
        let idleThreads = try #require(threadCount(server.pid))
        let idleDescriptors = try #require(descriptorCount(server.pid))
        let held = 600
        var sockets: [LoopbackSocket] = []
        for index in 0..<held {
            let socket = try LoopbackSocket(port: server.port, from: "127.0.1.\(index % 20 + 2)")
            try socket.send("GET /heal")
            sockets.append(socket)
        }
        // Every one is taken, not refused: a descriptor each in the server.
        #expect(eventually { (descriptorCount(server.pid) ?? 0) >= idleDescriptors + held })
        let health = curl(server.base + "/healthz", [], timeout: 10)
        #expect(health.status == 200, "\(health.text)")
        let migration = server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database])
        #expect(migration.status == 200, "\(migration.text)")
        #expect(try migration.report.outcome == .completed)
        // No thread per connection: the polling threads, and a few of the runtime's own.
        let threads = try #require(threadCount(server.pid))
        #expect(threads <= idleThreads + 8, "\(threads) threads for \(sockets.count) idle connections")
        sockets.removeAll()
    }

    /// The probe port answers the probes and nothing else: everything there shares one
    /// thread, so nothing that can take long (an upload, a job) may run on it.
    @Test func theProbePortServesOnlyTheProbes() throws {
        let server = try ServerProcess()
        #expect(server.probePort != server.port)
        let probe = "http://127.0.0.1:\(server.probePort)"
        for path in ["/v1/plans", "/openapi.json", "/"] {
            let result = curl(probe + path, [])
            #expect(result.status == 404, "\(path): \(result.text)")
            #expect(result.errorCode == "not_found")
        }
        let upload = curl(probe + "/v1/migrations?plan=notes", ["--data-binary", "SQLite format 3"])
        #expect(upload.status == 404)
        #expect(server.jobDirEntries.isEmpty)
    }

    @Test func theLimitAndTheProbePortAreConfigurationKeys() throws {
        let configuration = try ServiceConfiguration.load(
            path: nil, environment: ["PREFLIGHT_MAX_CONNECTIONS": "64", "PREFLIGHT_PROBE_PORT": "9091"])
        #expect(configuration.maxConnections == 64)
        #expect(configuration.probePort == 9091)
        let defaults = try ServiceConfiguration.load(path: nil, environment: [:])
        #expect(defaults.maxConnections == 16384)
        #expect(defaults.probePort == 8081)
        let error = #expect(throws: ConfigurationError.self) {
            try ServiceConfiguration.load(path: nil, environment: ["PREFLIGHT_PORT": "9000", "PREFLIGHT_PROBE_PORT": "9000"])
        }
        #expect(error?.description.contains("probe_port") == true)
    }
}

/// The open descriptors of process `pid`, from /proc/PID/fd.
private func descriptorCount(_ pid: Int32) -> Int? {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
}

/// The threads of process `pid`, from /proc/PID/status.
private func threadCount(_ pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    return status.split(separator: "\n").first { $0.hasPrefix("Threads:") }
        .flatMap { Int($0.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) }
}
