import Foundation
import Testing
import TestSupport

@testable import PreflightService

/// Issue 34's first attack: one client trickling uploads held every admission place, so a
/// real request got 503 while no job ran. Each client now holds at most its share
/// (`max_uploads_per_client`, `max_jobs_per_client`).
@Suite struct FairAdmissionTests {
    private let fixturesDirectory = TemporaryDirectory("fair-admission")

    /// Three places in all; one client (127.0.0.2) trickles uploads up to its share of two
    /// and is turned away with 429 beyond it, while another client (127.0.0.1) is
    /// admitted and its migration completes. Past the grace time the trickles are cut off
    /// with 408, and their places come back.
    @Test func onTheWallClockATricklingClientCannotLockOthersOut() throws {
        let server = try ServerProcess(environment: [
            "PREFLIGHT_MAX_CONCURRENT_JOBS": "1", "PREFLIGHT_QUEUE_LENGTH": "2",
            "PREFLIGHT_MAX_UPLOADS_PER_CLIENT": "2", "PREFLIGHT_MAX_JOBS_PER_CLIENT": "3",
            "PREFLIGHT_MIN_UPLOAD_BYTES_PER_S": "1000",
        ])
        let headers =
            "POST /v1/migrations?plan=notes HTTP/1.1\r\nHost: test\r\nContent-Type: application/octet-stream\r\n"
            + "Content-Length: 1000000\r\n\r\n"
        var trickles: [LoopbackSocket] = []
        for _ in 0..<2 {
            let socket = try LoopbackSocket(port: server.port, from: "127.0.0.2")
            try socket.send(headers + "SQLite")
            trickles.append(socket)
        }
        #expect(eventually { server.health["uploading"] == 2 })

        // Beyond its share: 429 with Retry-After, answered before any body is read.
        let beyond = try LoopbackSocket(port: server.port, from: "127.0.0.2")
        try beyond.send(headers)
        let refused = beyond.receiveAll(timeoutMs: 10_000)
        #expect(refused.hasPrefix("HTTP/1.1 429"), "\(refused)")
        #expect(refused.lowercased().contains("retry-after: "), "\(refused)")
        #expect(refused.contains("over_client_share"))
        #expect(refused.contains("max_uploads_per_client"))

        // Another client is admitted to the place left, and its migration completes.
        let database = try Fixtures.notesDatabase(rows: 25, in: fixturesDirectory.path)
        let other = server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database])
        #expect(other.status == 200, "\(other.text)")
        #expect(try other.report.outcome == .completed)

        // The trickles are too slow: the next piece after the grace time gets 408.
        Thread.sleep(forTimeInterval: Double(MigrationUpload.rateGraceSeconds) + 0.5)
        for socket in trickles {
            try socket.send(" format")
            let answer = socket.receiveAll(timeoutMs: 10_000)
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
            #expect(answer.contains("upload_too_slow"))
        }
        #expect(eventually { server.health["uploading"] == 0 && server.jobDirEntries.isEmpty })
        // Its places given back, the same client is admitted again.
        let again = server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database])
        #expect(again.status == 200, "\(again.text)")
    }

    /// Where tokens are configured the token is the client, whatever its address: two
    /// addresses with one token share one share, and another token is still admitted.
    @Test func aTokenIsOneClientWhateverItsAddress() throws {
        let server = try ServerProcess(environment: [
            "PREFLIGHT_TOKENS": "first,second", "PREFLIGHT_MAX_UPLOADS_PER_CLIENT": "1",
        ])
        func upload(from address: String, token: String) throws -> LoopbackSocket {
            let socket = try LoopbackSocket(port: server.port, from: address)
            try socket.send(
                "POST /v1/migrations?plan=notes HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\nSQLite")
            return socket
        }
        let held = try upload(from: "127.0.0.2", token: "first")
        #expect(eventually { server.health["uploading"] == 1 })
        let sameToken = try upload(from: "127.0.0.3", token: "first")
        let refused = sameToken.receiveAll(timeoutMs: 10_000)
        #expect(refused.hasPrefix("HTTP/1.1 429"), "\(refused)")
        let otherToken = try upload(from: "127.0.0.2", token: "second")
        #expect(eventually { server.health["uploading"] == 2 })
        _ = (held, otherToken)
    }
}
