import Foundation
import Testing
import Simulation
import TestSupport
import PreflightService

/// The server's stderr, as a log collector reads it: every line one JSON object with
/// `time` (RFC 3339, milliseconds, UTC), `level` and `msg`, start-up and shutdown included.
@Suite(.serialized) struct ServerLogTests {
    private let fixtures = TemporaryDirectory("log-fixtures")

    private func lines(_ server: ServerProcess) throws -> [[String: Any]] {
        let text = server.stderr
        return try text.split(separator: "\n").map { line in
            try #require(
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], "not a JSON object: \(line)")
        }
    }

    @Test(arguments: ["info", "debug"])
    func everyLineIsAJSONObject(level: String) throws {
        let server = try ServerProcess(environment: ["PREFLIGHT_LOG_LEVEL": level])
        let database = try Fixtures.notesDatabase(rows: 50, in: fixtures.path)
        let answer = server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database])
        #expect(answer.status == 200)
        let jobID = try #require(answer.json["job_id"] as? String)
        #expect(server.stop(signal: SIGTERM) == 0)

        let log = try lines(server)
        let time = try Regex(#"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$"#)
        for line in log {
            #expect((line["time"] as? String)?.wholeMatch(of: time) != nil, "\(line)")
            #expect(["debug", "info", "error"].contains(line["level"] as? String ?? ""), "\(line)")
            #expect(line["msg"] is String, "\(line)")
        }
        let messages = log.compactMap { $0["msg"] as? String }
        #expect(messages.first == "listening on http://127.0.0.1:\(server.port)")
        #expect(log.first?["port"] as? Int == server.port)
        #expect(messages.contains("POST /v1/migrations 200"))
        #expect(messages.contains { $0.hasPrefix("stopping: ") })
        #expect(messages.last == "stopped")
        // A job's progress is there at debug level only, tagged with its job.
        let progress = log.filter { $0["level"] as? String == "debug" }
        if level == "debug" {
            #expect(progress.contains { ($0["msg"] as? String)?.hasPrefix("launch 1: step 2 \"sync status\" applied in") == true })
            #expect(progress.allSatisfy { $0["job_id"] as? String == jobID })
        } else {
            #expect(progress.isEmpty)
        }
    }

    @Test func logLevelIsAConfigurationKey() throws {
        #expect(try ServiceConfiguration.load(path: nil, environment: [:]).logLevel == .info)
        #expect(try ServiceConfiguration.load(path: nil, environment: ["PREFLIGHT_LOG_LEVEL": "DEBUG"]).logLevel == .debug)
        let error = #expect(throws: ConfigurationError.self) {
            try ServiceConfiguration.load(path: nil, environment: ["PREFLIGHT_LOG_LEVEL": "loud"])
        }
        #expect(error?.key == "log_level (PREFLIGHT_LOG_LEVEL)")
    }

    @Test func aStartThatFailsSaysWhyInJSON() throws {
        let result = try PreflightProcess.run(["serve"], environment: ["PREFLIGHT_PORT": "eighty"])
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        let line = try #require(lines.first.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] })
        #expect(line["level"] as? String == "error")
        #expect((line["msg"] as? String)?.contains("PREFLIGHT_PORT") == true, "\(line)")
    }
}

/// What a worker writes on its stderr reaches the server's log as a JSON line of its own,
/// with the job it worked for.
@Suite(.serialized) struct ServerLogRelayTests {
    private let fixtures = TemporaryDirectory("log-relay-fixtures")

    @Test func aWorkersStderrLineIsRelayedAsJSON() throws {
        // The test-only fault makes each worker try to create a file where it may not, and
        // say on its stderr how that went, in plain text.
        let outside = fixtures.path + "/no-such-dir/outside"
        let server = try ServerProcess(environment: [Worker.faultVariable: "create_file=\(outside)"])
        let database = try Fixtures.notesDatabase(rows: 5, in: fixtures.path)
        let answer = server.curl("/v1/migrations?plan=notes&launches=1", ["--data-binary", "@" + database])
        #expect(answer.status == 200)
        let jobID = try #require(answer.json["job_id"] as? String)
        #expect(server.stop(signal: SIGTERM) == 0)

        let text = server.stderr
        let log = try text.split(separator: "\n").map { line in
            try #require((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], "not a JSON object: \(line)")
        }
        let relayed = log.filter { ($0["msg"] as? String)?.hasPrefix("preflight worker: test fault create_file \(outside): ") == true }
        #expect(!relayed.isEmpty, "\(text)")
        for line in relayed {
            #expect(line["level"] as? String == "error" && line["source"] as? String == "stderr")
            #expect(line["job_id"] as? String == jobID)
            #expect(line["time"] is String)
        }
        #expect(log.last?["msg"] as? String == "stopped")
    }
}
