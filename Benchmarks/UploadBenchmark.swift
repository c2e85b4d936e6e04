import CMicroHTTPD
import Foundation
import MigrationCore

/// `preflight-bench upload [--size-mb 500] [--rounds 5] [--warmup 2] [--migration-mb 100] [--seconds 60]
///  [--connections 8] [--preflight PATH]`
///
/// Prints, from one run, side by side:
/// 1. upload throughput of a database (a plan with no pending steps) to
///    `POST /v1/migrations`, as a ratio to the same curl upload into a loopback sink that
///    writes the body to a file as it arrives (what any server that keeps the upload must
///    do at least); next to it, a sink that drops the bytes. All measured on the receiving
///    side, from the end of the headers to the last byte of the body (the server's
///    `timings.upload_ms`);
/// 2. the server's peak resident memory during it (VmHWM), next to its idle size;
/// 3. `/healthz` requests per second and p50/p99 latency from keep-alive load generators
///    while two migrations of a `--migration-mb` database run (from their uploads until
///    both reports are back).
///
/// Protocol: `--warmup` untimed rounds, then `--rounds` timed ones, the writing sink and
/// the server alternating (A B A B ...); before every upload `sync` (no upload pays for
/// another's dirty pages) and the whole file read once (`PageCache.warm`), so that curl
/// reads it from the page cache alike for both.
func runUploadBenchmark(arguments: [String]) throws {
    let options = try BenchmarkOptions(arguments: arguments, valued: ["--size-mb", "--migration-mb", "--seconds", "--connections", "--rounds", "--warmup", "--preflight"])
    let sizeMB = try options.integer("--size-mb") ?? 500
    let migrationMB = try options.integer("--migration-mb") ?? 100
    let seconds = try options.integer("--seconds") ?? 60
    let connections = try options.integer("--connections") ?? 8
    let rounds = max(1, try options.integer("--rounds") ?? 5)
    let warmup = max(0, try options.integer("--warmup") ?? 2)
    let executable = try options.string("--preflight") ?? siblingExecutable("preflight")
    let root = NSTemporaryDirectory() + "/preflight-upload-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: root + "/plans", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: root + "/devices", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }

    // A plan whose only step the database already has, and one that rewrites every row.
    try #"{"name": "done", "steps": [{"version": 1, "name": "blobs", "sql": "CREATE TABLE blobs(id INTEGER PRIMARY KEY, b BLOB)"}]}"#
        .write(toFile: root + "/plans/done.json", atomically: true, encoding: .utf8)
    try #"""
    {"name": "rewrite", "steps": [
      {"version": 1, "name": "blobs", "sql": "CREATE TABLE blobs(id INTEGER PRIMARY KEY, b BLOB)"},
      {"version": 2, "name": "rewrite", "sql": ["CREATE TABLE blobs_new(id INTEGER PRIMARY KEY, b BLOB, size INTEGER)", "INSERT INTO blobs_new SELECT id, b, length(b) FROM blobs", "DROP TABLE blobs", "ALTER TABLE blobs_new RENAME TO blobs"]}]}
    """#.write(toFile: root + "/plans/rewrite.json", atomically: true, encoding: .utf8)
    let database = root + "/big.db"
    let migrated = root + "/migrated.db"
    print("load when started: \(loadAverage()); making a \(sizeMB) MB and a \(migrationMB) MB database ...")
    for (path, megabytes) in [(database, sizeMB), (migrated, migrationMB)] {
        try runSQLiteShell(path, script: """
            PRAGMA page_size = 4096;
            CREATE TABLE blobs(id INTEGER PRIMARY KEY, b BLOB);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(megabytes * 10))
            INSERT INTO blobs(b) SELECT randomblob(100000) FROM c;
            PRAGMA user_version = 1;
            """)
    }
    let bytes = (try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int) ?? 0

    let server = try BenchServer(executable: executable, root: root)
    defer { server.stop() }
    let idleKB = server.residentKB("VmRSS")
    var times: [Receiver: [Double]] = [:]
    for round in 0..<(warmup + rounds) {
        for receiver in [Receiver.fileSink, .preflight] {
            try prepareUpload(database)
            let seconds = try upload(database, to: receiver, server: server, root: root)
            if round >= warmup { times[receiver, default: []].append(seconds) }
        }
    }
    // The sink that drops the bytes: for reference, after the pairs, prepared alike.
    for round in 0..<(warmup + rounds) {
        try prepareUpload(database)
        let seconds = try upload(database, to: .sink, server: server, root: root)
        if round >= warmup { times[.sink, default: []].append(seconds) }
    }
    let peakKB = server.residentKB("VmHWM")
    let mb = Double(bytes) / 1_048_576
    let fileSink = Spread(times[.fileSink] ?? []), preflight = Spread(times[.preflight] ?? []), sink = Spread(times[.sink] ?? [])
    let ratios = Spread(zip(times[.fileSink] ?? [], times[.preflight] ?? []).map { $0 / $1 })
    print(String(format: "upload: %.0f MiB, %d timed rounds after %d untimed, A (sink writing a file) and B (preflight) alternating, each after sync with the file read into the page cache",
        mb, rounds, warmup))
    print(String(format: "  sink writing a file %.0f MiB/s (%.0f-%.0f), preflight %.0f MiB/s (%.0f-%.0f); sink dropping the bytes %.0f MiB/s (%.0f-%.0f)",
        mb / fileSink.median, mb / fileSink.max, mb / fileSink.min, mb / preflight.median, mb / preflight.max, mb / preflight.min,
        mb / sink.median, mb / sink.max, mb / sink.min))
    print(String(format: "upload throughput ratio, preflight / sink writing a file: %.2fx median (%.2f-%.2fx over the pairs)  [target >= 0.9]",
        ratios.median, ratios.min, ratios.max))
    print("server resident memory: idle \(idleKB / 1024) MiB, peak \(peakKB / 1024) MiB (growth \((peakKB - idleKB) / 1024) MiB) [target growth <= 64 MiB]")

    // /healthz under load while two migrations run, from their uploads to their reports.
    try prepareUpload(migrated)
    let load = HealthLoad(port: server.port, connections: connections, seconds: Double(seconds))
    load.start()
    let jobs = try (0..<2).map { _ in
        try launch("/usr/bin/curl", ["-s", "-o", "/dev/null", "--data-binary", "@" + migrated, "\(server.base)/v1/migrations?plan=rewrite"])
    }
    let deadline = Date(timeIntervalSinceNow: 30)
    var running = 0
    while running < 2, Date() < deadline, jobs.contains(where: \.isRunning) {
        running = max(running, server.runningJobs())
        Thread.sleep(forTimeInterval: 0.05)
    }
    let started = Date()
    for job in jobs { job.waitUntilExit() }
    let migrating = Date().timeIntervalSince(started)
    let result = load.stop()
    print(String(format: "/healthz while two %d MB migrations ran (%d at once; %.1f s until both reports were back): %.0f requests/s over %d connections, p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d errors  [target p99 < 20 ms]",
        migrationMB, running, migrating, result.rps, connections, result.p50, result.p99, result.max, result.errors))
    print("load when done: \(loadAverage())")
}

/// The median and range of some timings.
private struct Spread {
    var median = 0.0, min = 0.0, max = 0.0

    init(_ values: [Double]) {
        let sorted = values.sorted()
        guard let first = sorted.first, let last = sorted.last else { return }
        (median, min, max) = (sorted[sorted.count / 2], first, last)
    }
}

/// Before every upload, for every receiver alike: the machine's dirty pages written back,
/// then the file read whole, so that curl reads it from the page cache.
private func prepareUpload(_ database: String) throws {
    sync()
    try PageCache.warm(database)
}

private func upload(_ database: String, to receiver: Receiver, server: BenchServer, root: String) throws -> Double {
    switch receiver {
    case .sink: return try sinkUpload(database, keepingAt: nil)
    case .fileSink: return try sinkUpload(database, keepingAt: root + "/sink.db")
    case .preflight: return try serverUpload(database, to: server)
    }
}

// MARK: - Pieces

/// What the upload benchmark sends the same file to.
private enum Receiver {
    case sink, fileSink, preflight
}

/// Seconds one curl upload of `database` takes to reach a fresh `SocketSink`.
private func sinkUpload(_ database: String, keepingAt path: String?) throws -> Double {
    let sink = try SocketSink(keepingAt: path)
    let upload = try launch(
        "/usr/bin/curl", ["-s", "-o", "/dev/null", "--data-binary", "@" + database, "http://127.0.0.1:\(sink.port)/"])
    defer { upload.waitUntilExit() }
    return try sink.receiveOne()
}

/// Seconds one curl upload of `database` takes to reach the server (its `upload_ms`).
private func serverUpload(_ database: String, to server: BenchServer) throws -> Double {
    let report = try runCurl(["-s", "--data-binary", "@" + database, "\(server.base)/v1/migrations?plan=done&verify=off"])
    guard let object = try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any],
        let timings = object["timings"] as? [String: Any], let uploadMs = timings["upload_ms"] as? Int
    else { throw BenchError("unexpected answer: \(report.prefix(300))") }
    return Double(uploadMs) / 1000
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func siblingExecutable(_ name: String) throws -> String {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let path = (me as NSString).deletingLastPathComponent + "/" + name
    guard FileManager.default.isExecutableFile(atPath: path) else { throw BenchError("no \(path): run swift build") }
    return path
}

private func launch(_ executable: String, _ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

func runCurl(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// `preflight serve` on a loopback port with a private job directory; `environment` adds
/// or overrides `PREFLIGHT_*` settings.
final class BenchServer {
    let process = Process()
    let port: Int
    var base: String { "http://127.0.0.1:\(port)" }

    init(executable: String, root: String, environment settings: [String: String] = [:]) throws {
        let stdoutPath = root + "/server.out"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        var environment = ProcessInfo.processInfo.environment
        environment["PREFLIGHT_PORT"] = "0"
        environment["PREFLIGHT_PROBE_PORT"] = "0"
        environment["PREFLIGHT_BIND"] = "127.0.0.1"
        environment["PREFLIGHT_JOB_DIR"] = root + "/jobs"
        environment["PREFLIGHT_PLANS_DIR"] = root + "/plans"
        environment["PREFLIGHT_DEVICES_DIR"] = root + "/devices"
        environment["PREFLIGHT_MAX_UPLOAD_BYTES"] = String(4 << 30)
        for (name, value) in settings { environment[name] = value }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve"]
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date(timeIntervalSinceNow: 15)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on") }),
                let port = Int(line.split(separator: ":").last ?? "")
            {
                self.port = port
                return
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        process.terminate()
        throw BenchError("the server did not start")
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    /// A line of /proc/PID/status, in KiB (VmRSS now, VmHWM the peak so far).
    func residentKB(_ field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    func runningJobs() -> Int {
        let text = (try? runCurl(["-s", base + "/healthz"])) ?? ""
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let jobs = object["jobs"] as? [String: Any]
        else { return 0 }
        return jobs["running"] as? Int ?? 0
    }
}

/// A TCP listener that reads one request's body and throws it away, or writes it to a
/// file as it arrives (allocated as the bytes arrive, as the server does), removed afterwards.
private final class SocketSink {
    let listener: Int32
    let port: Int
    let keptPath: String?

    init(keepingAt keptPath: String?) throws {
        self.keptPath = keptPath
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(listener, pointer, length) == 0, listen(listener, 4) == 0 else { return -1 }
                return getsockname(listener, pointer, &length)
            }
        }
        guard bound == 0 else {
            close(listener)
            throw BenchError("cannot listen")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(listener) }

    /// Seconds from the end of the headers to the last byte of the body.
    func receiveOne() throws -> Double {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { throw BenchError("accept failed") }
        defer { close(connection) }
        var buffer = [UInt8](repeating: 0, count: 512 * 1024)  // the server's largest piece
        var head: [UInt8] = []
        var remaining = 0
        var started = ContinuousClock.now
        while true {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { throw BenchError("the client closed early") }
            head.append(contentsOf: buffer[0..<count])
            if let end = findHeaderEnd(head) {
                started = ContinuousClock.now
                let text = String(decoding: head[0..<end], as: UTF8.self).lowercased()
                if text.contains("expect: 100-continue") {
                    _ = "HTTP/1.1 100 Continue\r\n\r\n".withCString { send(connection, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                }
                let length = text.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                remaining = length - (head.count - end - 4)
                break
            }
        }
        let file = keptPath.map { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) } ?? -1
        defer {
            if file >= 0 { close(file) }
            if let keptPath { unlink(keptPath) }
        }
        while remaining > 0 {
            let count = recv(connection, &buffer, min(buffer.count, remaining), 0)
            guard count > 0 else { break }
            if file >= 0, write(file, buffer, count) != count { throw BenchError("cannot write the sink's file") }
            remaining -= count
        }
        let elapsed = ContinuousClock.now - started
        _ = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".withCString {
            send(connection, $0, strlen($0), Int32(MSG_NOSIGNAL))
        }
        return seconds(elapsed)
    }

    private func findHeaderEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}

/// Keep-alive `GET /healthz` loops on several connections; latencies of every request.
private final class HealthLoad: @unchecked Sendable {
    struct Result {
        var rps: Double
        var p50: Double
        var p99: Double
        var max: Double
        var errors: Int
    }

    let port: Int
    let connections: Int
    let seconds: Double
    private let lock = NSLock()
    private var latencies: [Double] = []
    private var errors = 0

    init(port: Int, connections: Int, seconds: Double) {
        self.port = port
        self.connections = connections
        self.seconds = seconds
    }

    private let group = DispatchGroup()
    private var started = Date()
    private var stopped = false

    /// Starts the load on `connections` threads, each until `stop()` or `seconds` have passed.
    func start() {
        started = Date()
        for _ in 0..<connections {
            group.enter()
            Thread.detachNewThread {
                self.loop()
                self.group.leave()
            }
        }
    }

    /// Ends the load and answers what it measured.
    func stop() -> Result {
        lock.withLock { stopped = true }
        group.wait()
        let elapsed = Date().timeIntervalSince(started)
        let sorted = latencies.sorted()
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000
        }
        return Result(
            rps: Double(sorted.count) / elapsed, p50: percentile(0.5), p99: percentile(0.99),
            max: (sorted.last ?? 0) * 1000, errors: errors)
    }

    private func loop() {
        var local: [Double] = []
        var failures = 0
        let deadline = Date(timeIntervalSinceNow: seconds)
        let request = Array("GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var connection = openConnection()
        while Date() < deadline, !lock.withLock({ stopped }) {
            if connection < 0 {
                failures += 1
                connection = openConnection()
                continue
            }
            let start = ContinuousClock.now
            let sent = request.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            var response: [UInt8] = []
            var complete = false
            if sent == request.count {
                while !complete {
                    let count = recv(connection, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    response.append(contentsOf: buffer[0..<count])
                    complete = responseComplete(response)
                }
            }
            if complete, response.starts(with: Array("HTTP/1.1 200".utf8)) {
                let elapsed = ContinuousClock.now - start
                local.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            } else {
                failures += 1
                close(connection)
                connection = openConnection()
            }
        }
        if connection >= 0 { close(connection) }
        lock.lock()
        latencies += local
        errors += failures
        lock.unlock()
    }

    private func responseComplete(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headerEnd = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<headerEnd.lowerBound].lowercased()
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return text.utf8.count - text.utf8.distance(from: text.utf8.startIndex, to: headerEnd.upperBound) >= length
    }

    private func openConnection() -> Int32 {
        let connection = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        var noDelay: Int32 = 1
        setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(connection, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if connected != 0 {
            close(connection)
            return -1
        }
        return connection
    }
}
