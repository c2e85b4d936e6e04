import Foundation
import Simulation
import Synchronization
import Testing
import TestSupport

/// The real `preflight serve` on an ephemeral loopback port, in a private temporary
/// directory with its own plans, devices and job directory; driven with /usr/bin/curl.
final class ServerProcess: @unchecked Sendable {
    let root: String
    let jobDir: String
    let plansDir: String
    let devicesDir: String
    private let server: TestProcess
    private(set) var port = 0
    /// The probe port (`/healthz` and `/metrics` on a listener of their own).
    private(set) var probePort = 0

    var base: String { "http://127.0.0.1:\(port)" }
    var pid: Int32 { server.pid }
    var isRunning: Bool { server.isRunning }
    /// What the server wrote on stderr so far (its log).
    var stderr: String { server.stderr }

    /// `environment` adds or overrides `PREFLIGHT_*` variables; `plans` are registered as NAME.json.
    init(environment: [String: String] = [:], plans: [String: String] = Fixtures.plans, devices: [String: String] = Fixtures.devices) throws {
        root = try makeTemporaryDirectory("preflight-server")
        jobDir = root + "/jobs"
        plansDir = root + "/plans"
        devicesDir = root + "/devices"
        for directory in [jobDir, plansDir, devicesDir] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        for (name, text) in plans { try text.write(toFile: plansDir + "/\(name).json", atomically: true, encoding: .utf8) }
        for (name, text) in devices { try text.write(toFile: devicesDir + "/\(name).json", atomically: true, encoding: .utf8) }
        let variables = [
            "PREFLIGHT_PORT": "0", "PREFLIGHT_PROBE_PORT": "0", "PREFLIGHT_BIND": "127.0.0.1", "PREFLIGHT_JOB_DIR": jobDir,
            "PREFLIGHT_PLANS_DIR": plansDir, "PREFLIGHT_DEVICES_DIR": devicesDir,
        ].merging(environment) { $1 }
        let server = try TestProcess.preflight(["serve"], environment: variables, workingDirectory: root)
        self.server = server
        var ports: (Int, Int)?
        _ = eventually {
            let lines = server.stdoutText.split(separator: "\n")
            func portNamed(after prefix: String) -> Int? {
                lines.first { $0.hasPrefix(prefix) }.flatMap { Int($0.split(separator: ":").last ?? "") }
            }
            if let port = portNamed(after: "listening on http://"), let probePort = portNamed(after: "probes (/healthz, /metrics) on") {
                ports = (port, probePort)
            }
            return ports != nil || !server.isRunning
        }
        guard let (port, probePort) = ports else {
            server.stop(signal: SIGKILL)
            throw HarnessError("the server did not say it was listening: \(server.stderr)")
        }
        self.port = port
        self.probePort = probePort
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Sends `signal` (0: none, only wait) and waits for the exit, at most `seconds`;
    /// answers the exit status, or nil when it had to SIGKILL the server.
    @discardableResult
    func stop(signal: Int32 = SIGKILL, within seconds: Double = 60) -> Int32? {
        server.stop(signal: signal, within: seconds)
    }

    /// Files and directories left in the job directory.
    var jobDirEntries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: jobDir)) ?? [] }

    /// The server's child processes (workers) still alive.
    var children: [Int32] {
        let output = run("/usr/bin/pgrep", ["-P", String(pid)]).output
        return output.split(separator: "\n").compactMap { Int32($0) }
    }

    /// The request log lines so far.
    var logLines: [[String: Any]] {
        let text = server.stderr
        return text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("{") else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    func get(_ path: String, _ arguments: [String] = []) -> CurlResult { PreflightServiceTests.curl(base + path, arguments) }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What curl saw: status, headers (lower-case names) and body.
struct CurlResult: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data
    var exitCode: Int32

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }

    /// The body as the run's `Report` (the JSON answer of a migration or a kept job);
    /// throws, with the body, when it is not one.
    var report: Report {
        get throws {
            do {
                return try JSONDecoder().decode(Report.self, from: body)
            } catch {
                throw HarnessError("not a report (\(error)): \(status) \(text)")
            }
        }
    }
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
}

/// Runs curl with `arguments` against `url`; never throws (a failed transfer has status 0).
func curl(_ url: String, _ arguments: [String], timeout: Int = 60) -> CurlResult {
    let directory = (try? makeTemporaryDirectory("curl")) ?? NSTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let bodyPath = directory + "/body"
    let headerPath = directory + "/headers"
    let result = run(
        "/usr/bin/curl",
        ["-s", "-o", bodyPath, "-D", headerPath, "-w", "%{http_code}", "--max-time", String(timeout)] + arguments + [url])
    var headers: [String: String] = [:]
    let headerText = (try? String(contentsOfFile: headerPath, encoding: .utf8)) ?? ""
    for line in headerText.split(separator: "\r\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let answer = CurlResult(
        status: Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, headers: headers,
        body: FileManager.default.contents(atPath: bodyPath) ?? Data(), exitCode: result.status)
    ErrorBodyAudit.check(status: answer.status, body: answer.text)
    return answer
}

/// Every error answer the HTTP suites get passes through here (`curl`,
/// `LoopbackSocket.receiveAll`): one whose body names a path of the server's (a server's
/// data directory, `ServerProcess.root`, holds its job directories), a source file or an
/// internal type fails the test that got it.
enum ErrorBodyAudit {
    /// What no error body may hold: the temporary directory the servers' data lives in,
    /// the name of every test server's data directory, a Swift source file, an error
    /// type's description.
    static let forbidden = [NSTemporaryDirectory(), "preflight-server-", ".swift", "Error(", "NSCocoaErrorDomain"]

    /// Bodies checked so far in this process.
    static let checked = Mutex(0)

    /// What of `forbidden` the body holds.
    static func leaks(in body: String) -> [String] {
        forbidden.filter { body.contains($0) }
    }

    static func check(status: Int, body: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard status >= 400 else { return }
        checked.withLock { $0 += 1 }
        let leaks = leaks(in: body)
        if !leaks.isEmpty {
            Issue.record("an error body (\(status)) holds \(leaks): \(body)", sourceLocation: sourceLocation)
        }
    }
}

/// Runs a program to its end (`TestProcess`); answers its exit status and standard
/// output, or -1 when it could not be run or did not end.
@discardableResult
func run(_ executable: String, _ arguments: [String], input: String? = nil) -> (status: Int32, output: String) {
    guard let result = try? TestProcess.run(executable, arguments, input: input.map { Data($0.utf8) }) else { return (-1, "") }
    return (result.status, result.stdoutText)
}

/// Starts curl without waiting for it (for clients that are killed mid-request).
func startCurl(_ url: String, _ arguments: [String]) throws -> TestProcess {
    try TestProcess("/usr/bin/curl", ["-s", "-o", "/dev/null", "--max-time", "120"] + arguments + [url])
}

func makeTemporaryDirectory(_ prefix: String) throws -> String {
    let path = NSTemporaryDirectory() + "/\(prefix)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// `.build/debug/preflight`, built by `swift build` before `swift test`.
func preflightExecutable() throws -> String {
    let path = PreflightProcess.executable
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw HarnessError("no preflight executable at \(path): run `swift build` before `swift test`")
    }
    return path
}

/// Databases of old schema versions (made with the old schema's own SQL) and plans.
enum Fixtures {
    /// Three steps; a test that needs a job to keep running holds it at one (`HeldJob`).
    static func notesPlan(name: String = "notes") -> String {
        """
        {"name": "\(name)", "description": "notes app",
         "steps": [
          {"version": 1, "name": "create notes",
           "sql": "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, updated_at INTEGER NOT NULL)"},
          {"version": 2, "name": "sync status",
           "sql": ["ALTER TABLE notes ADD COLUMN sync_status TEXT NOT NULL DEFAULT 'synced'",
                   "CREATE INDEX idx_notes_sync_status ON notes(sync_status)"]},
          {"version": 3, "name": "busy work",
           "sql": "CREATE TABLE busy AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1) SELECT sum(x) AS s FROM c"}
         ]}
        """
    }

    static let plans = ["notes": notesPlan()]

    static let devices = [
        "phone": #"{"name": "phone", "description": "a test phone", "watchdog_ms": 20000, "launches": 3}"#
    ]

    /// `devices` and the slow phone, for jobs whose watchdog counts the device's time.
    static let devicesWithSlowPhone = devices.merging([SlowPhone.name: SlowPhone.profile]) { _, slow in slow }

    /// A database at version 1 of the notes plan with `rows` rows.
    static func notesDatabase(rows: Int = 20, in directory: String, name: String = "notes-v1.db") throws -> String {
        let path = directory + "/" + name
        try? FileManager.default.removeItem(atPath: path)
        let sql = """
            CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, updated_at INTEGER NOT NULL);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows))
            INSERT INTO notes(title, updated_at) SELECT 'note ' || x, x FROM c;
            PRAGMA user_version = 1;
            """
        let result = run("/usr/bin/sqlite3", [path], input: sql)
        guard result.status == 0 else { throw HarnessError("sqlite3 failed making \(path)") }
        return path
    }

    /// A WAL-mode database at version 1 whose last `walRows` rows exist only in its `-wal`
    /// file: copied (`.shell cp`) while the connection that wrote them is still open.
    static func walDatabase(rows: Int, walRows: Int, in directory: String) throws -> (database: String, wal: String) {
        let live = directory + "/live.db"
        let database = directory + "/wal-v1.db"
        let wal = directory + "/wal-v1.db-wal"
        for path in [live, live + "-wal", live + "-shm", database, wal] { try? FileManager.default.removeItem(atPath: path) }
        let sql = """
            PRAGMA journal_mode = WAL;
            CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, updated_at INTEGER NOT NULL);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows))
            INSERT INTO notes(title, updated_at) SELECT 'note ' || x, x FROM c;
            PRAGMA user_version = 1;
            PRAGMA wal_checkpoint(TRUNCATE);
            PRAGMA wal_autocheckpoint = 0;
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(walRows))
            INSERT INTO notes(title, updated_at) SELECT 'wal note ' || x, x FROM c;
            .shell cp \(live) \(database)
            .shell cp \(live)-wal \(wal)
            """
        let result = run("/usr/bin/sqlite3", [live], input: sql)
        guard result.status == 0, FileManager.default.fileExists(atPath: wal) else {
            throw HarnessError("sqlite3 failed making the WAL fixture")
        }
        return (database, wal)
    }

    /// Rows of `table` in the database at `path`, read with the sqlite3 shell.
    static func count(_ table: String, in path: String) -> Int? {
        Int(run("/usr/bin/sqlite3", [path, "SELECT count(*) FROM \(table)"]).output.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
