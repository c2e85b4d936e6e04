import Foundation

/// One request to the real server as curl really sent it (the request line and headers read
/// back from `curl --trace-ascii`, the body from the file given to `--data-binary`), with the
/// answer: what OpenAPITests hands to openapi-core.
struct RecordedExchange {
    var name: String
    /// Whether the document must accept the request (nil: the document cannot tell).
    var requestValid: Bool?
    var method: String
    var path: String
    var query: [(String, String)]
    var requestHeaders: [(String, String)]
    var requestBodyFile: String?
    var result: CurlResult

    /// Sends `arguments` to `path` on `server` and reads back what curl sent.
    init(
        _ name: String, valid: Bool?, on server: ServerProcess, _ path: String, _ arguments: [String] = [],
        bodyFile: String? = nil, in directory: String
    ) throws {
        let trace = directory + "/\(name).trace"
        let body = bodyFile.map { ["--data-binary", "@" + $0] } ?? []
        result = server.get(path, arguments + body + ["--trace-ascii", trace])
        guard result.status != 0 else { throw HarnessError("\(name): no answer from the server") }
        let sent = try RecordedExchange.sentHeader(trace: try String(contentsOfFile: trace, encoding: .utf8))
        let parts = sent.first?.split(separator: " ") ?? []
        guard parts.count == 3 else { throw HarnessError("\(name): no request line in curl's trace") }
        self.name = name
        requestValid = valid
        method = String(parts[0])
        let target = parts[1].split(separator: "?", maxSplits: 1)
        self.path = String(target[0])
        query = (target.count > 1 ? target[1].split(separator: "&") : []).map { pair in
            let field = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            return (field[0], field.count > 1 ? field[1] : "")
        }
        requestHeaders = sent.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        requestBodyFile = bodyFile
    }

    /// The lines of the first `=> Send header` block of a `--trace-ascii` file. curl cuts
    /// lines at 64 characters there, so a line of exactly 64 goes on in the next one.
    static func sentHeader(trace: String) throws -> [String] {
        var lines: [String] = []
        var inHeader = false
        var continues = false
        for line in trace.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("=> Send header") {
                inHeader = true
                continue
            }
            guard inHeader else { continue }
            guard line.count >= 6, line.dropFirst(4).hasPrefix(": ") else { break }
            let text = String(line.dropFirst(6))
            if continues, let last = lines.popLast() { lines.append(last + text) } else { lines.append(text) }
            continues = text.count == 64
        }
        return lines.filter { !$0.isEmpty }
    }

    /// Writes the exchange as `directory/NAME.json` (and the answer's body beside it) in the
    /// form scripts/check-openapi-exchanges.py reads.
    func write(to directory: String) throws {
        let responseBody = directory + "/\(name).response"
        try result.body.write(to: URL(fileURLWithPath: responseBody))
        let record: [String: Any] = [
            "name": name,
            "request_valid": requestValid.map { $0 as Any } ?? NSNull(),
            "request": [
                "method": method, "path": path, "query": query.map { [$0.0, $0.1] },
                "headers": requestHeaders.map { [$0.0, $0.1] }, "body_file": requestBodyFile.map { $0 as Any } ?? NSNull(),
            ],
            "response": [
                "status": result.status, "headers": result.headers.map { [$0.key, $0.value] }, "body_file": responseBody,
            ],
        ]
        try JSONSerialization.data(withJSONObject: record, options: [.prettyPrinted, .sortedKeys])
            .write(to: URL(fileURLWithPath: directory + "/\(name).json"))
    }
}
