import Foundation
import Testing

/// Keeps `/openapi.json` true: real responses of the real server, one of every kind,
/// checked against the document (status documented for its route and method, body
/// valid against the documented schema).
@Suite(.serialized)
struct OpenAPITests {
    @Test func everyAnswerIsDocumented() throws {
        let fixtures = try makeTemporaryDirectory("preflight-openapi")
        defer { try? FileManager.default.removeItem(atPath: fixtures) }
        let server = try ServerProcess(environment: ["PREFLIGHT_MAX_UPLOAD_BYTES": "100000", "PREFLIGHT_TOKENS": "t0ken"])
        let auth = ["-H", "Authorization: Bearer t0ken"]
        let database = try Fixtures.notesDatabase(in: fixtures)
        let garbage = fixtures + "/garbage.db"
        try "not a database at all, not even close".write(toFile: garbage, atomically: true, encoding: .utf8)
        let big = fixtures + "/big.bin"
        _ = FileManager.default.createFile(atPath: big, contents: Data(repeating: 1, count: 300_000))
        let document = try #require(
            (try JSONSerialization.jsonObject(with: server.get("/openapi.json").body)) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")

        let kept = server.curl("/v1/migrations?plan=notes&keep=1", auth + ["--data-binary", "@" + database])
        let id = try kept.report.jobID
        let exchanges: [(method: String, route: String, result: CurlResult)] = [
            ("post", "/v1/migrations", kept),
            ("post", "/v1/migrations", server.curl("/v1/migrations?plan=notes", auth + ["--data-binary", "@" + garbage])),
            ("post", "/v1/migrations", server.curl("/v1/migrations?plan=notes", auth + ["--data-binary", "@" + database, "-H", "Accept: text/plain"])),
            ("post", "/v1/migrations", server.curl("/v1/migrations", auth + ["--data-binary", "@" + database])),
            ("post", "/v1/migrations", server.curl("/v1/migrations?plan=notes&launches=x", auth + ["--data-binary", "@" + database])),
            ("post", "/v1/migrations", server.curl("/v1/migrations?plan=nope", auth + ["--data-binary", "@" + database])),
            ("post", "/v1/migrations", server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database])),
            ("post", "/v1/migrations", server.curl("/v1/migrations?plan=notes", auth + ["--data-binary", "@" + big])),
            ("post", "/v1/migrations", server.curl("/v1/migrations?plan=notes", auth + ["--data-binary", "@" + database, "-H", "Content-Type: application/json"])),
            ("get", "/v1/migrations", server.get("/v1/migrations", auth)),
            ("post", "/v1/capacity", server.curl("/v1/capacity?plan=notes&max_rows=1000", auth + ["-X", "POST"])),
            ("post", "/v1/capacity", server.curl("/v1/capacity?plan=notes&max_rows=0", auth + ["-X", "POST"])),
            ("get", "/v1/jobs/{id}", server.get("/v1/jobs/\(id)", auth)),
            ("get", "/v1/jobs/{id}", server.get("/v1/jobs/0123456789abcdef0123456789abcdef", auth)),
            ("get", "/v1/jobs/{id}/database", server.get("/v1/jobs/\(id)/database", auth)),
            ("get", "/v1/jobs/{id}/database", server.get("/v1/jobs/0123456789abcdef0123456789abcdef/database", auth)),
            ("get", "/v1/plans", server.get("/v1/plans", auth)),
            ("get", "/v1/plans", server.get("/v1/plans")),
            ("get", "/v1/plans", server.get("/v1/plans", auth + ["--data-binary", "x", "-X", "GET"])),
            ("get", "/v1/plans/{name}", server.get("/v1/plans/notes", auth)),
            ("get", "/v1/plans/{name}", server.get("/v1/plans/nope", auth)),
            ("get", "/v1/devices", server.get("/v1/devices", auth)),
            ("delete", "/v1/devices", server.get("/v1/devices", auth + ["-X", "DELETE"])),
            ("get", "/healthz", server.get("/healthz")),
            ("get", "/metrics", server.get("/metrics")),
            ("get", "/openapi.json", server.get("/openapi.json")),
            ("get", "/", server.get("/", auth)),
            ("get", "/", server.get("/")),
            ("get", "/v1/jobs/{id}", server.get("/v1/jobs/\(id)?format=html", auth)),
            ("get", "/v1/jobs/{id}", server.get("/v1/jobs/\(id)?format=pdf", auth)),
        ]
        let paths = try #require(document["paths"] as? [String: Any])
        #expect(Set(paths.keys) == Set(routeLabels))
        for (method, route, result) in exchanges {
            #expect(result.status != 0, "\(method) \(route): no answer")
            // A method the route does not have answers 405: documented under the route's own methods.
            let item = paths[route] as? [String: Any] ?? [:]
            let operation = (item[method] ?? item["get"] ?? item["post"]) as? [String: Any] ?? [:]
            let responses = operation["responses"] as? [String: Any] ?? [:]
            let documented = try #require(
                resolve(responses[String(result.status)], in: document) as? [String: Any],
                "\(method) \(route) answered \(result.status), which /openapi.json does not document")
            let contentType = (result.headers["content-type"] ?? "").split(separator: ";").first.map(String.init) ?? ""
            let content = documented["content"] as? [String: Any] ?? [:]
            let media = try #require(
                content[contentType] as? [String: Any], "\(method) \(route) \(result.status): \(contentType) not documented")
            if contentType == "application/json", let schema = media["schema"] {
                let body = try JSONSerialization.jsonObject(with: result.body, options: [.fragmentsAllowed])
                let problems = validate(body, against: schema, in: document, at: "$")
                #expect(problems.isEmpty, "\(method) \(route) \(result.status): \(problems)")
            }
            for (name, _) in (documented["headers"] as? [String: Any] ?? [:])
            where ["Preflight-Outcome", "Preflight-Job-Id", "Retry-After", "Allow"].contains(name) {
                #expect(result.headers[name.lowercased()] != nil, "\(method) \(route) \(result.status): no \(name)")
            }
        }
        // Every status seen on the server (all the requests of this test) is in the document.
        #expect(server.eventually { server.logLines.count >= exchanges.count })
        for line in server.logLines {
            guard let route = line["route"] as? String, let status = line["status"] as? Int, route != "unmatched",
                status != 499
            else { continue }
            let item = paths[route] as? [String: Any] ?? [:]
            let method = (line["method"] as? String ?? "").lowercased()
            let operation = (item[method] ?? item["get"] ?? item["post"]) as? [String: Any] ?? [:]
            #expect((operation["responses"] as? [String: Any])?[String(status)] != nil, "\(method) \(route) \(status)")
        }
    }

    @Test func reportSchemaMatchesTheReport() throws {
        let server = try ServerProcess()
        let document = try #require((try JSONSerialization.jsonObject(with: server.get("/openapi.json").body)) as? [String: Any])
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let report = try #require(schemas?["Report"] as? [String: Any])
        let required = Set(report["required"] as? [String] ?? [])
        #expect(
            required == [
                "report_version", "job_id", "outcome", "failure", "plan", "options", "input", "launches", "steps", "space",
                "final", "warnings", "timings",
            ])
        #expect(Set((report["properties"] as? [String: Any] ?? [:]).keys) == required)
        let outcomes = (schemas?["Outcome"] as? [String: Any])?["enum"] as? [String]
        #expect(
            outcomes == [
                "completed", "completed_after_kills", "watchdog_killed", "crash_loop", "refused", "disk_full", "failed",
                "verification_failed", "invalid_database",
            ])
    }

    private let routeLabels = [
        "/v1/migrations", "/v1/capacity", "/v1/jobs/{id}", "/v1/jobs/{id}/database", "/v1/plans", "/v1/plans/{name}", "/v1/devices",
        "/healthz", "/metrics", "/openapi.json", "/",
    ]
}

/// Follows a `$ref` within the document.
private func resolve(_ value: Any?, in document: [String: Any]) -> Any? {
    guard let object = value as? [String: Any], let reference = object["$ref"] as? String else { return value }
    var current: Any? = document
    for part in reference.dropFirst(2).split(separator: "/") {
        current = (current as? [String: Any])?[String(part)]
    }
    return resolve(current, in: document)
}

/// The subset of JSON Schema the document uses: type (with null), enum, const,
/// required, properties, items, additionalProperties.
private func validate(_ value: Any, against schemaValue: Any, in document: [String: Any], at path: String) -> [String] {
    guard let schema = resolve(schemaValue, in: document) as? [String: Any] else { return [] }
    var problems: [String] = []
    let types: [String] = (schema["type"] as? [String]) ?? (schema["type"] as? String).map { [$0] } ?? []
    if !types.isEmpty, !types.contains(where: { matches(value, type: $0) }) {
        return ["\(path): \(type(of: value)) is not \(types)"]
    }
    if let options = schema["enum"] as? [Any], !options.contains(where: { equal($0, value) }) {
        problems.append("\(path): \(value) not in \(options)")
    }
    if let constant = schema["const"], !equal(constant, value) { problems.append("\(path): \(value) is not \(constant)") }
    if let object = value as? [String: Any] {
        for key in schema["required"] as? [String] ?? [] where object[key] == nil {
            problems.append("\(path).\(key) is missing")
        }
        let properties = schema["properties"] as? [String: Any] ?? [:]
        for (key, member) in object {
            if let property = properties[key] {
                problems += validate(member, against: property, in: document, at: "\(path).\(key)")
            } else if let additional = schema["additionalProperties"] as? [String: Any] {
                problems += validate(member, against: additional, in: document, at: "\(path).\(key)")
            }
        }
    }
    if let array = value as? [Any], let items = schema["items"] {
        for (index, item) in array.enumerated() {
            problems += validate(item, against: items, in: document, at: "\(path)[\(index)]")
        }
    }
    return problems
}

private func matches(_ value: Any, type: String) -> Bool {
    switch type {
    case "null": return value is NSNull
    case "object": return value is [String: Any]
    case "array": return value is [Any]
    case "string": return value is String
    case "boolean": return value is Bool
    case "integer":
        guard let number = value as? NSNumber else { return false }
        return number.doubleValue.rounded() == number.doubleValue
    case "number": return value is NSNumber
    default: return true
    }
}

private func equal(_ left: Any, _ right: Any) -> Bool {
    if left is NSNull || right is NSNull { return left is NSNull && right is NSNull }
    if let left = left as? String, let right = right as? String { return left == right }
    if let left = left as? NSNumber, let right = right as? NSNumber { return left == right }
    return false
}
