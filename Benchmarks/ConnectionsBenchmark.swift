import CMicroHTTPD
import Foundation
import Glibc
import MigrationCore

/// `preflight-bench connections [--connections 10000] [--addresses 100] [--per-ip-limit 128]
///  [--migration-mb 20] [--probes 300] [--seconds 15] [--rounds 3] [--preflight PATH]`
///
/// Issue 34's second attack, measured: `--connections` idle or half-sent connections to
/// the main port from `--addresses` loopback addresses (127.0.0.2 and up; a third send
/// nothing, a third half a request line, a third half their headers), held the way an
/// attacker holds them: each one the server closes (the header timeout) is opened again
/// at once. While they are held, from 127.0.0.1 on the same port:
/// 1. a real migration (`POST /v1/migrations`, a plan that rewrites every row of a
///    `--migration-mb` database), its outcome and time;
/// 2. `GET /healthz` on a fresh connection each, one after another, at least `--probes`
///    of them, for at least `--seconds` (past the 10 s header timeout, so that the server
///    closes the held connections and the holder opens them again meanwhile) and until
///    the migration is back: p50, p99 and max latency, errors;
/// 3. the server's resident memory: idle before the connections, and the most sampled
///    while they were held.
///
/// The server runs with `per_ip_connection_limit` `--per-ip-limit` (128, so that all of
/// them are held: at the default 32 most would be refused at once) and its defaults
/// otherwise. Each round starts a fresh server; the summary gives the median and range.
func runConnectionsBenchmark(arguments: [String]) throws {
    let options = try BenchmarkOptions(
        arguments: arguments,
        valued: [
            "--connections", "--addresses", "--per-ip-limit", "--migration-mb", "--probes", "--seconds", "--rounds", "--preflight",
        ])
    let count = try options.integer("--connections") ?? 10_000
    let addresses = max(1, min(250, try options.integer("--addresses") ?? 100))
    let perIPLimit = try options.integer("--per-ip-limit") ?? 128
    let migrationMB = try options.integer("--migration-mb") ?? 20
    let probes = try options.integer("--probes") ?? 300
    let holdSeconds = try options.integer("--seconds") ?? 15
    let rounds = max(1, try options.integer("--rounds") ?? 3)
    let executable = try options.string("--preflight") ?? siblingExecutable("preflight")
    preflight_raise_descriptor_limit(UInt(count + 1024))
    let root = NSTemporaryDirectory() + "/preflight-connections-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: root + "/plans", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: root + "/devices", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    try #"""
    {"name": "rewrite", "steps": [
      {"version": 1, "name": "blobs", "sql": "CREATE TABLE blobs(id INTEGER PRIMARY KEY, b BLOB)"},
      {"version": 2, "name": "rewrite", "sql": ["CREATE TABLE blobs_new(id INTEGER PRIMARY KEY, b BLOB, size INTEGER)", "INSERT INTO blobs_new SELECT id, b, length(b) FROM blobs", "DROP TABLE blobs", "ALTER TABLE blobs_new RENAME TO blobs"]}]}
    """#.write(toFile: root + "/plans/rewrite.json", atomically: true, encoding: .utf8)
    let database = root + "/app.db"
    _ = try runSQLiteShell(database, script: """
        CREATE TABLE blobs(id INTEGER PRIMARY KEY, b BLOB);
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(migrationMB * 10))
        INSERT INTO blobs(b) SELECT randomblob(100000) FROM c;
        PRAGMA user_version = 1;
        """)
    print("load when started: \(loadAverage()); \(count) connections from \(addresses) addresses, per_ip_connection_limit \(perIPLimit), a \(migrationMB) MB migration, \(rounds) round(s)")

    var results: [ConnectionsRound] = []
    for round in 1...rounds {
        let server = try BenchServer(
            executable: executable, root: root,
            environment: ["PREFLIGHT_PER_IP_CONNECTION_LIMIT": String(perIPLimit), "PREFLIGHT_LOG_LEVEL": "error"])
        defer { server.stop() }
        let result = try measureRound(
            server: server, database: database, count: count, addresses: addresses, probes: probes, holdSeconds: holdSeconds)
        results.append(result)
        print(String(format: "round %d: held %d (reopened %d), migration %@ in %.1f s; /healthz p50 %.2f ms, p99 %.2f ms, max %.2f ms over %d probes, %d errors; memory idle %d MiB, held %d MiB (+%d MiB)",
            round, result.held, result.reopened, result.outcome, result.migrationSeconds, result.p50, result.p99, result.max,
            result.probes, result.errors, result.idleKB / 1024, result.heldKB / 1024, (result.heldKB - result.idleKB) / 1024))
    }
    func summary(_ values: [Double], _ format: String) -> String {
        let sorted = values.sorted()
        return String(format: format, sorted[sorted.count / 2], sorted.first ?? 0, sorted.last ?? 0)
    }
    print("median (range) over \(rounds) round(s):")
    print("  " + summary(results.map(\.p50), "/healthz p50 %.2f ms (%.2f-%.2f)") + ", "
        + summary(results.map(\.p99), "p99 %.2f ms (%.2f-%.2f)") + "  [target p99 < 100 ms]")
    print("  " + summary(results.map { Double($0.heldKB - $0.idleKB) / 1024 }, "memory while held: +%.0f MiB over idle (%.0f-%.0f)")
        + "  [target <= 64 MiB]")
    print("  " + summary(results.map(\.migrationSeconds), "migration %.1f s (%.1f-%.1f)") + ", outcomes "
        + results.map(\.outcome).joined(separator: ", "))
    print("  held " + results.map { String($0.held) }.joined(separator: ", ") + " of \(count)")
    print("load when done: \(loadAverage())")
}

/// What one round measured.
private struct ConnectionsRound {
    var held = 0
    var reopened = 0
    var outcome = ""
    var migrationSeconds = 0.0
    var p50 = 0.0, p99 = 0.0, max = 0.0
    var probes = 0
    var errors = 0
    var idleKB = 0
    var heldKB = 0
}

private func measureRound(
    server: BenchServer, database: String, count: Int, addresses: Int, probes: Int, holdSeconds: Int
) throws -> ConnectionsRound {
    var result = ConnectionsRound()
    Thread.sleep(forTimeInterval: 0.5)
    result.idleKB = server.residentKB("VmRSS")
    let idleDescriptors = descriptorCount(server.process.processIdentifier)
    let holder = try IdleHolder(port: server.port, count: count, addresses: addresses)
    holder.start()
    defer { holder.stop() }
    // Until the server holds them all (a descriptor each), or 30 s.
    let deadline = Date(timeIntervalSinceNow: 30)
    while descriptorCount(server.process.processIdentifier) - idleDescriptors < count, Date() < deadline {
        Thread.sleep(forTimeInterval: 0.05)
    }
    result.held = descriptorCount(server.process.processIdentifier) - idleDescriptors
    result.heldKB = server.residentKB("VmRSS")

    let output = Pipe()
    let migration = Process()
    migration.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    migration.arguments = ["-s", "--max-time", "600", "--data-binary", "@" + database, server.base + "/v1/migrations?plan=rewrite"]
    migration.standardOutput = output
    let started = ContinuousClock.now
    try migration.run()
    var latencies: [Double] = []
    let holdUntil = ContinuousClock.now + .seconds(holdSeconds)
    var migrated: ContinuousClock.Instant?
    while migration.isRunning || latencies.count + result.errors < probes || ContinuousClock.now < holdUntil {
        if migrated == nil, !migration.isRunning { migrated = ContinuousClock.now }
        if let latency = probeHealth(port: server.port) {
            latencies.append(latency)
        } else {
            result.errors += 1
        }
        if (latencies.count + result.errors) % 10 == 0 { result.heldKB = max(result.heldKB, server.residentKB("VmRSS")) }
        Thread.sleep(forTimeInterval: 0.01)
    }
    let answer = output.fileHandleForReading.readDataToEndOfFile()
    migration.waitUntilExit()
    result.migrationSeconds = seconds((migrated ?? ContinuousClock.now) - started)
    result.heldKB = max(result.heldKB, server.residentKB("VmRSS"))
    let object = try? JSONSerialization.jsonObject(with: answer) as? [String: Any]
    result.outcome = object?["outcome"] as? String ?? "no report: \(String(decoding: answer.prefix(200), as: UTF8.self))"
    result.reopened = holder.stop()
    let sorted = latencies.sorted()
    func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000 }
    (result.p50, result.p99, result.max, result.probes) = (percentile(0.5), percentile(0.99), (sorted.last ?? 0) * 1000, sorted.count)
    return result
}

private func descriptorCount(_ pid: Int32) -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count ?? 0
}

/// Seconds for one `GET /healthz` on a fresh connection from 127.0.0.1, from the connect
/// to the whole answer; nil for an error, or no answer within 5 s.
private func probeHealth(port: Int) -> Double? {
    let started = ContinuousClock.now
    guard let connection = connectLoopback(port: port, from: nil) else { return nil }
    defer { close(connection) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let request = Array("GET /healthz HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n".utf8)
    guard request.withUnsafeBytes({ send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
        return nil
    }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let received = recv(connection, &buffer, buffer.count, 0)
        if received < 0 { return nil }
        if received == 0 { break }
        response += buffer[..<received]
    }
    guard response.starts(with: Array("HTTP/1.1 200".utf8)) else { return nil }
    return seconds(ContinuousClock.now - started)
}

/// A blocking TCP connection to 127.0.0.1:`port`, bound to `from` when given.
private func connectLoopback(port: Int, from source: String?) -> Int32? {
    let connection = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard connection >= 0 else { return nil }
    if let source {
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(connection, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(connection)
            return nil
        }
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(connection, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(connection)
        return nil
    }
    return connection
}

/// The attacker: `count` connections, each idle or half-sent, from `addresses` loopback
/// addresses, held on a thread of its own that opens again at once any the server closes.
private final class IdleHolder: @unchecked Sendable {
    private let port: Int
    private let addresses: Int
    /// Guarded by `lock` once the thread runs.
    private var descriptors: [Int32]
    private var reopened = 0
    private var stopped = false
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var running = false

    init(port: Int, count: Int, addresses: Int) throws {
        self.port = port
        self.addresses = addresses
        descriptors = []
        descriptors.reserveCapacity(count)
        for index in 0..<count {
            guard let connection = open(index) else {
                descriptors.forEach { close($0) }
                throw BenchError("cannot open connection \(index) from \(Self.address(index, of: addresses)): \(String(cString: strerror(errno)))")
            }
            descriptors.append(connection)
        }
    }

    private static func address(_ index: Int, of addresses: Int) -> String { "127.0.0.\(index % addresses + 2)" }

    /// Connection `index`, opened and sent its part: nothing, half a request line, or half its headers.
    private func open(_ index: Int) -> Int32? {
        guard let connection = connectLoopback(port: port, from: Self.address(index, of: addresses)) else { return nil }
        let part = ["", "GET /heal", "POST /v1/migrations?plan=rewrite HTTP/1.1\r\nHost: bench\r\nContent-Le"][index % 3]
        if !part.isEmpty { _ = part.withCString { send(connection, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }
        return connection
    }

    func start() {
        running = true
        Thread.detachNewThread { self.hold() }
    }

    /// Stops holding and closes every connection; answers how many were opened again.
    @discardableResult
    func stop() -> Int {
        let wasRunning = lock.withLock { () -> Bool in
            let was = running && !stopped
            stopped = true
            return was
        }
        if wasRunning { done.wait() }
        return lock.withLock {
            descriptors.forEach { close($0) }
            descriptors.removeAll()
            return reopened
        }
    }

    private func hold() {
        var polled = lock.withLock { descriptors.map { pollfd(fd: $0, events: Int16(POLLIN) | 0x2000, revents: 0) } }
        while !lock.withLock({ stopped }) {
            guard poll(&polled, nfds_t(polled.count), 100) > 0 else { continue }
            for index in polled.indices where polled[index].revents != 0 {
                var byte: UInt8 = 0
                // Data (an answer, e.g. a 408) or the end: the server is done with it.
                _ = recv(polled[index].fd, &byte, 1, Int32(MSG_DONTWAIT))
                close(polled[index].fd)
                let connection = open(index) ?? -1
                polled[index] = pollfd(fd: connection, events: Int16(POLLIN) | 0x2000, revents: 0)
                lock.withLock {
                    descriptors[index] = connection
                    reopened += 1
                }
            }
        }
        done.signal()
    }
}
