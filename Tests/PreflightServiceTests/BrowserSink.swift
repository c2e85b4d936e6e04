import Foundation
import TestSupport

/// A listener on loopback that keeps what a browser posts to it, one file per path
/// (`POST /progress` is kept as `progress`): how a page under test tells the test what it
/// shows while the test acts on the server. Python's standard library serves it.
final class BrowserSink {
    private let directory = TemporaryDirectory("browser-sink")
    private let listener: TestProcess
    let base: String

    static let script = """
        import http.server, os, sys
        keep = sys.argv[1]
        class Sink(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                name = os.path.join(keep, os.path.basename(self.path))
                with open(name + ".part", "wb") as part:
                    part.write(body)
                os.rename(name + ".part", name)
                self.send_response(204)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()
            def log_message(self, *arguments):
                pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Sink)
        print(server.server_port, flush=True)
        server.serve_forever()
        """

    init() throws {
        let listener = try TestProcess("/usr/bin/python3", ["-c", Self.script, directory.path])
        self.listener = listener
        var port: Int?
        _ = eventually {
            port = Int(listener.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
            return port != nil || !listener.isRunning
        }
        guard let port else { throw HarnessError("the sink did not say its port: \(listener.stderr)") }
        base = "http://127.0.0.1:\(port)"
    }

    /// What was posted to `/name`, once it was; nil when it never was (see `eventually`).
    func await(_ name: String) -> String? {
        let path = directory.file(name)
        guard eventually(within: 120, { FileManager.default.fileExists(atPath: path) }) else { return nil }
        return try? String(contentsOfFile: path, encoding: .utf8)
    }
}
