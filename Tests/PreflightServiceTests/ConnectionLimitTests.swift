import Foundation
import Glibc
import Testing

@testable import PreflightService

/// `max_connections` and the probe port: idle connections from many addresses cannot
/// take the server's threads without bound, nor silence `/healthz` and `/metrics`.
@Suite struct ConnectionLimitTests {
    /// The attack of issue 16: three times the limit of connections, each from its own
    /// loopback address (so `per_ip_connection_limit` does not apply), each with half a
    /// request line. The main port is full; the probe port answers, and the server's
    /// threads stay within the limit.
    @Test func probesAnswerWhileIdleConnectionsFillTheMainPort() throws {
        let limit = 32
        let server = try ServerProcess(environment: ["PREFLIGHT_MAX_CONNECTIONS": String(limit)])
        let idleThreads = try #require(threadCount(server.pid))
        var sockets: [LoopbackSocket] = []
        for index in 0..<(3 * limit) {
            let socket = try LoopbackSocket(port: server.port, from: "127.0.\(index / 200).\(index % 200 + 2)")
            try socket.send("GET /heal")
            sockets.append(socket)
        }
        // The limit is reached: a thread for each connection it took.
        #expect(server.eventually { (threadCount(server.pid) ?? 0) >= idleThreads + limit })
        // The main port takes no more (a fresh request is closed unanswered)...
        #expect(curl(server.base + "/healthz", [], timeout: 2).status == 0)
        // ...while the probe port answers at once, for both routes.
        let health = curl("http://127.0.0.1:\(server.probePort)/healthz", [], timeout: 5)
        #expect(health.status == 200, "\(health.text)")
        #expect(health.json["status"] as? String == "ok")
        let metrics = curl("http://127.0.0.1:\(server.probePort)/metrics", [], timeout: 5)
        #expect(metrics.status == 200)
        #expect(metrics.text.contains("preflight_"))
        // Bounded: the limit's threads, and a few of the runtime's own, not one per connection.
        let threads = try #require(threadCount(server.pid))
        #expect(threads <= idleThreads + limit + 8, "\(threads) threads for \(sockets.count) connections (limit \(limit))")
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
        #expect(defaults.maxConnections == 256)
        #expect(defaults.probePort == 8081)
        let error = #expect(throws: ConfigurationError.self) {
            try ServiceConfiguration.load(path: nil, environment: ["PREFLIGHT_PORT": "9000", "PREFLIGHT_PROBE_PORT": "9000"])
        }
        #expect(error?.description.contains("probe_port") == true)
    }
}

/// The threads of process `pid`, from /proc/PID/status.
private func threadCount(_ pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    return status.split(separator: "\n").first { $0.hasPrefix("Threads:") }
        .flatMap { Int($0.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) }
}
