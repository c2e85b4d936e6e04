import Foundation
import Glibc
import Testing
import TestSupport

@testable import PreflightService

/// Uploads that cannot lock the service out, and one answer per input, against the real
/// server on loopback.
@Suite struct UploadLimitsTests {
    @Test func aSecondPartOfTheSameInputIsRefusedByName() throws {
        let server = try ServerProcess()
        let fixtures = try makeTemporaryDirectory("duplicate-parts")
        defer { try? FileManager.default.removeItem(atPath: fixtures) }
        let database = try Fixtures.notesDatabase(in: fixtures)
        let cases: [(String, [String])] = [
            ("database", ["-F", "database=@\(database)", "-F", "database=@\(database)"]),
            ("database", ["-F", "database=@\(database)", "-F", #"options={"launches": 1}"#, "-F", "database=@\(database)"]),
            ("wal", ["-F", "database=@\(database)", "-F", "wal=@\(database)", "-F", "wal=@\(database)"]),
            ("options", ["-F", "database=@\(database)", "-F", #"options={"launches": 1}"#, "-F", #"options={"launches": 2}"#]),
        ]
        for (part, arguments) in cases {
            let result = server.curl("/v1/migrations?plan=notes", arguments)
            #expect(result.status == 400, "\(arguments): \(result.text)")
            #expect(result.errorCode == "bad_request")
            let message = (result.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("more than one \"\(part)\" part"), "\(message)")
        }
        // One of each still runs.
        let single = server.curl("/v1/migrations?plan=notes", ["-F", "database=@\(database)"])
        #expect(single.status == 200, "\(single.text)")
        #expect(eventually { server.jobDirEntries.isEmpty })
    }

    /// Three uploads that declare 60 MB each and send six bytes hold six bytes of disk
    /// each, not 180 MB.
    @Test func diskIsTakenAsBytesArriveNotAsDeclared() throws {
        let server = try ServerProcess()
        var sockets: [LoopbackSocket] = []
        // From three addresses: one client has at most `max_uploads_per_client` uploads arriving.
        for index in 0..<3 {
            let socket = try LoopbackSocket(port: server.port, from: "127.0.0.\(index + 2)")
            try socket.send(
                "POST /v1/migrations?plan=notes HTTP/1.1\r\nHost: test\r\nContent-Type: application/octet-stream\r\n"
                    + "Content-Length: 60000000\r\n\r\nSQLite")
            sockets.append(socket)
        }
        let inputs = { server.jobDirEntries.map { server.jobDir + "/" + $0 + "/input.db" } }
        #expect(eventually { inputs().count == 3 && inputs().allSatisfy { fileSize($0) == 6 } })
        let allocated = inputs().reduce(Int64(0)) { $0 + allocatedBytes($1) }
        #expect(allocated < 1 << 20, "\(allocated) bytes allocated for 18 bytes received")
        sockets.removeAll()
        #expect(eventually { server.jobDirEntries.isEmpty })
    }

    /// A body trickled below `min_upload_bytes_per_s` is cut off with 408 once the grace
    /// time (`upload_grace_s`, one second here) is over, and its job directory goes.
    @Test func onTheWallClockATrickledUploadIsCutOffWith408() throws {
        let server = try ServerProcess(
            environment: ["PREFLIGHT_MIN_UPLOAD_BYTES_PER_S": "1000", "PREFLIGHT_UPLOAD_GRACE_S": "1"])
        let socket = try LoopbackSocket(port: server.port)
        try socket.send(
            "POST /v1/migrations?plan=notes HTTP/1.1\r\nHost: test\r\nContent-Type: application/octet-stream\r\n"
                + "Content-Length: 1000000\r\n\r\nSQLite")
        #expect(eventually { server.jobDirEntries.count == 1 })
        // Past the grace time, the next piece finds the average far below 1000 bytes/s.
        Thread.sleep(forTimeInterval: 1.5)
        try socket.send(" form")
        let answer = socket.receiveAll()
        #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
        #expect(answer.contains("upload_too_slow"))
        #expect(eventually { server.jobDirEntries.isEmpty })
    }

    /// A connection that never finishes its headers is closed after the short header
    /// timeout, long before the configured `connection_timeout_s` (60 s here).
    @Test func onTheWallClockUnfinishedHeadersTimeOutSoon() throws {
        let server = try ServerProcess(environment: ["PREFLIGHT_CONNECTION_TIMEOUT_S": "60"])
        let socket = try LoopbackSocket(port: server.port)
        try socket.send("GET /healthz HTTP/1.1\r\nHost: te")
        let timeoutMs = Int32(Daemon.headerTimeoutSeconds * 3 * 1000)
        #expect(socket.receiveAll(timeoutMs: timeoutMs).isEmpty)
        #expect(socket.wasClosedByPeer)
    }
}

private func fileSize(_ path: String) -> Int64? {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_size) : nil
}

/// Disk the file system holds for a file (its blocks), whatever its size says.
private func allocatedBytes(_ path: String) -> Int64 {
    var info = stat()
    return stat(path, &info) == 0 ? Int64(info.st_blocks) * 512 : 0
}

/// A plain TCP connection to the server on 127.0.0.1, for what curl cannot do: hold a
/// request open half sent. Closed when released. `from` binds it to another loopback
/// address (127.0.0.2, ...): many clients, as `per_ip_connection_limit` sees them.
final class LoopbackSocket {
    let descriptor: Int32

    init(port: Int, from source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                close(descriptor)
                throw HarnessError("bind \(source): \(String(cString: strerror(errno)))")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw HarnessError("connect: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw HarnessError("send: \(String(cString: strerror(errno)))") }
    }

    /// The last `receiveAll` ended because the server closed the connection (not a timeout).
    private(set) var wasClosedByPeer = false

    /// What the server answered, until it closed the connection or `timeoutMs` passed
    /// without a byte.
    func receiveAll(timeoutMs: Int32 = 30_000) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        wasClosedByPeer = false
        while true {
            var descriptorPoll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptorPoll, 1, timeoutMs) > 0 else { break }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 {
                wasClosedByPeer = true
                break
            }
            received += buffer[..<count]
        }
        let answer = String(decoding: received, as: UTF8.self)
        if answer.hasPrefix("HTTP/1.1 "), let status = Int(answer.dropFirst(9).prefix(3)) {
            ErrorBodyAudit.check(status: status, body: answer)
        }
        return answer
    }
}
