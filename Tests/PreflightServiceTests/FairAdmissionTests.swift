import Foundation
import Testing
import TestSupport

@testable import PreflightService

/// Clients trickling uploads cannot lock others out. Issue 34: one client trickling uploads
/// held every admission place; each client now has at most its share
/// (`max_uploads_per_client`, `max_jobs_per_client`). Issue 50: ten clients trickling one
/// upload each held every place all the same; an upload in flight now holds no place,
/// only its bytes, and its job is admitted once its body is complete.
@Suite struct FairAdmissionTests {
    private let fixturesDirectory = TemporaryDirectory("fair-admission")

    /// One client (127.0.0.2) trickles uploads up to its share of two and is turned away
    /// with 429 beyond it, while another client (127.0.0.1) is admitted and its migration
    /// completes. Past the grace time (one second here) the trickles are cut off with 408,
    /// and their uploads are no longer counted.
    @Test func onTheWallClockATricklingClientCannotLockOthersOut() throws {
        let server = try ServerProcess(environment: [
            "PREFLIGHT_MAX_CONCURRENT_JOBS": "1", "PREFLIGHT_QUEUE_LENGTH": "2",
            "PREFLIGHT_MAX_UPLOADS_PER_CLIENT": "2", "PREFLIGHT_MAX_JOBS_PER_CLIENT": "3",
            "PREFLIGHT_MIN_UPLOAD_BYTES_PER_S": "1000", "PREFLIGHT_UPLOAD_GRACE_S": "1",
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
        Thread.sleep(forTimeInterval: 1.5)
        for socket in trickles {
            try socket.send(" format")
            let answer = socket.receiveAll(timeoutMs: 10_000)
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
            #expect(answer.contains("upload_too_slow"))
        }
        #expect(eventually { server.health["uploading"] == 0 && server.jobDirEntries.isEmpty })
        // Its uploads over, the same client is admitted again.
        let again = server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database])
        #expect(again.status == 200, "\(again.text)")
    }

    /// Issue 50's probe, with the shipped limits (two slots, eight queue places): ten
    /// addresses (127.0.0.2 to .11) each send 100 bytes of a declared 1 MB body, then a byte
    /// now and then. They hold ten uploads and no place: a real request from an eleventh
    /// address is answered 200 at once. The grace time is long here, so that the trickles
    /// stand however slow this machine is.
    @Test func tenTricklingClientsLeaveAPlaceForAnEleventh() throws {
        let server = try ServerProcess(environment: ["PREFLIGHT_UPLOAD_GRACE_S": "600"])
        let headers =
            "POST /v1/migrations?plan=notes HTTP/1.1\r\nHost: test\r\nContent-Type: application/octet-stream\r\n"
            + "Content-Length: 1000000\r\n\r\n"
        let trickles = try (2...11).map { host in
            let socket = try LoopbackSocket(port: server.port, from: "127.0.0.\(host)")
            try socket.send(headers + "SQLite format 3" + String(repeating: "x", count: 85))
            return socket
        }
        #expect(eventually { server.health["uploading"] == 10 })
        for socket in trickles { try socket.send("x") }
        #expect(server.health == ["running": 0, "queued": 0, "uploading": 10, "kept": 0])

        let database = try Fixtures.notesDatabase(rows: 25, in: fixturesDirectory.path)
        let real = server.curl("/v1/migrations?plan=notes", ["--interface", "127.0.0.12", "--data-binary", "@" + database])
        #expect(real.status == 200, "\(real.text)")
        #expect(try real.report.outcome == .completed)
        // The trickles are still in flight, a byte now and then.
        for socket in trickles { try socket.send("x") }
        #expect(server.health["uploading"] == 10)
    }

    /// The uploads in flight together hold at most `max_upload_bytes_in_flight` bytes of
    /// disk, and are at most `max_uploads_in_flight`: past either, 503 with the key's name.
    @Test func uploadsInFlightHaveTheirOwnLimits() throws {
        let server = try ServerProcess(environment: [
            "PREFLIGHT_MAX_UPLOADS_IN_FLIGHT": "2", "PREFLIGHT_MAX_UPLOAD_BYTES_IN_FLIGHT": "1000",
        ])
        let headers =
            "POST /v1/migrations?plan=notes HTTP/1.1\r\nHost: test\r\nContent-Type: application/octet-stream\r\n"
            + "Content-Length: 1000000\r\n\r\n"
        let first = try LoopbackSocket(port: server.port, from: "127.0.0.2")
        try first.send(headers + String(repeating: "x", count: 600))
        let second = try LoopbackSocket(port: server.port, from: "127.0.0.3")
        try second.send(headers + String(repeating: "x", count: 300))
        // Both bodies so far on disk: the budget has taken them.
        let received = {
            server.jobDirEntries.compactMap { entry in
                (try? FileManager.default.attributesOfItem(atPath: server.jobDir + "/" + entry + "/input.db"))?[.size] as? Int
            }.sorted()
        }
        #expect(eventually { received() == [300, 600] })
        let third = try LoopbackSocket(port: server.port, from: "127.0.0.4")
        try third.send(headers)
        let refused = third.receiveAll(timeoutMs: 10_000)
        #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused)")
        #expect(refused.contains("max_uploads_in_flight"))
        // 900 bytes held: the next 200 would pass the 1000 of the budget.
        try second.send(String(repeating: "x", count: 200))
        let cut = second.receiveAll(timeoutMs: 10_000)
        #expect(cut.hasPrefix("HTTP/1.1 503"), "\(cut)")
        #expect(cut.contains("max_upload_bytes_in_flight"))
        #expect(eventually { server.health["uploading"] == 1 && server.jobDirEntries.count == 1 })
        withExtendedLifetime(first) {}
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
