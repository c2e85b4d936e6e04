import Foundation
import Testing
import TestSupport

/// Keeps `/openapi.json` true, as a client generated from it would see the service: one real
/// request of every kind to the real server (each route, each media type the document
/// declares, each error status a client can cause), each request and answer recorded as curl
/// saw them and validated by openapi-core's request and response validators
/// (scripts/check-openapi-exchanges.py). The script also fails when the document declares an
/// operation or a media type that no valid request here exercises: a new path needs a request.
@Suite(.serialized)
struct OpenAPITests {
    @Test func openapiCoreAcceptsEveryRealExchange() throws {
        let python = try TestTools.venv("python")
        let fixtures = try makeTemporaryDirectory("preflight-openapi")
        defer { try? FileManager.default.removeItem(atPath: fixtures) }
        let server = try ServerProcess(environment: ["PREFLIGHT_MAX_UPLOAD_BYTES": "100000", "PREFLIGHT_TOKENS": "t0ken"])
        let auth = ["-H", "Authorization: Bearer t0ken"]
        let database = try Fixtures.notesDatabase(in: fixtures)
        let garbage = fixtures + "/garbage.db"
        try "not a database at all, not even close".write(toFile: garbage, atomically: true, encoding: .utf8)
        let big = fixtures + "/big.bin"
        _ = FileManager.default.createFile(atPath: big, contents: Data(repeating: 1, count: 300_000))
        let boundary = "preflight-openapi-test"
        let multipart = fixtures + "/multipart.bin"
        try multipartBody(
            boundary: boundary,
            parts: [
                ("database", "notes-v1.db", "application/octet-stream", try Data(contentsOf: URL(fileURLWithPath: database))),
                ("plan", nil, "application/json", Data(Fixtures.notesPlan(name: "uploaded").utf8)),
                ("options", nil, "application/json", Data(#"{"launches": 2, "verify": "quick"}"#.utf8)),
            ]
        ).write(to: URL(fileURLWithPath: multipart))

        var exchanges: [RecordedExchange] = []
        @discardableResult func send(_ name: String, valid: Bool?, _ path: String, _ arguments: [String] = [], body: String? = nil) throws
            -> RecordedExchange
        {
            let exchange = try RecordedExchange(name, valid: valid, on: server, path, arguments, bodyFile: body, in: fixtures)
            exchanges.append(exchange)
            return exchange
        }
        // Uploads: the body as `curl --data-binary` sends it (application/x-www-form-urlencoded),
        // as application/octet-stream, and multipart/form-data; each answer's media type.
        let kept = try send("upload-form-urlencoded-kept", valid: true, "/v1/migrations?plan=notes&keep=1", auth, body: database)
        let id = try kept.result.report.jobID
        let octets = ["-H", "Content-Type: application/octet-stream"]
        try send("upload-octet-stream-text", valid: true, "/v1/migrations?plan=notes", auth + octets + ["-H", "Accept: text/plain"], body: database)
        try send("upload-junit", valid: true, "/v1/migrations?plan=notes", auth + octets + ["-H", "Accept: application/xml"], body: database)
        try send("upload-html", valid: true, "/v1/migrations?plan=notes&format=html", auth + octets, body: database)
        let events = try send(
            "upload-event-stream", valid: true, "/v1/migrations?plan=notes", auth + octets + ["-H", "Accept: text/event-stream"], body: database)
        #expect(events.result.text.hasPrefix("event: progress\ndata: upload received: "), "\(events.result.text)")
        #expect(events.result.text.contains("\n\nevent: report\ndata: {"), "\(events.result.text)")
        try send("upload-multipart", valid: true, "/v1/migrations", auth + ["-H", "Content-Type: multipart/form-data; boundary=\(boundary)"], body: multipart)
        try send("upload-invalid-database", valid: true, "/v1/migrations?plan=notes", auth + octets, body: garbage)
        // Refusals a client can cause.
        try send("upload-no-plan", valid: true, "/v1/migrations", auth + octets, body: database)
        try send("upload-bad-option", valid: false, "/v1/migrations?plan=notes&launches=x", auth + octets, body: database)
        try send("upload-unknown-plan", valid: true, "/v1/migrations?plan=nope", auth + octets, body: database)
        try send("upload-no-token", valid: true, "/v1/migrations?plan=notes", octets, body: database)
        try send("upload-too-large", valid: true, "/v1/migrations?plan=notes", auth + octets, body: big)
        try send("upload-json-body", valid: false, "/v1/migrations?plan=notes", auth + ["-H", "Content-Type: application/json"], body: database)
        // Capacity searches, bounded to a few small sizes, with a sample in each body form.
        let sampleOnly = fixtures + "/sample-multipart.bin"
        try multipartBody(
            boundary: boundary,
            parts: [("database", "notes-v1.db", "application/octet-stream", try Data(contentsOf: URL(fileURLWithPath: database)))]
        ).write(to: URL(fileURLWithPath: sampleOnly))
        let capacity = "/v1/capacity?plan=notes&max_rows=2000&launches=2"
        try send("capacity-form-urlencoded", valid: true, capacity, auth, body: database)
        try send("capacity-octet-stream-text", valid: true, capacity, auth + octets + ["-H", "Accept: text/plain"], body: database)
        try send(
            "capacity-multipart-html", valid: true, capacity,
            auth + ["-H", "Content-Type: multipart/form-data; boundary=\(boundary)", "-H", "Accept: text/html"], body: sampleOnly)
        try send("capacity-bad-option", valid: false, "/v1/capacity?plan=notes&max_rows=x", auth + octets, body: database)
        // A matrix: the fixtures as database parts, the answer in every form.
        let matrixBody = fixtures + "/matrix-multipart.bin"
        try multipartBody(
            boundary: boundary,
            parts: [
                ("database", "notes-v1.db", "application/octet-stream", try Data(contentsOf: URL(fileURLWithPath: database))),
                ("database", "garbage.db", "application/octet-stream", try Data(contentsOf: URL(fileURLWithPath: garbage))),
                ("options", nil, "application/json", Data(#"{"devices": "phone", "rows": "notes=5", "launches": 2}"#.utf8)),
            ]
        ).write(to: URL(fileURLWithPath: matrixBody))
        let matrixForm = auth + ["-H", "Content-Type: multipart/form-data; boundary=\(boundary)"]
        try send("matrix-json", valid: true, "/v1/matrix?plan=notes", matrixForm, body: matrixBody)
        try send("matrix-text", valid: true, "/v1/matrix?plan=notes", matrixForm + ["-H", "Accept: text/plain"], body: matrixBody)
        try send("matrix-junit", valid: true, "/v1/matrix?plan=notes", matrixForm + ["-H", "Accept: application/xml"], body: matrixBody)
        try send("matrix-html", valid: true, "/v1/matrix?plan=notes&format=html", matrixForm, body: matrixBody)
        try send("matrix-raw-body", valid: false, "/v1/matrix?plan=notes", auth + octets, body: database)
        try send("matrix-bad-option", valid: false, "/v1/matrix?plan=notes&from=x", matrixForm, body: matrixBody)
        // Kept jobs in every form, and the migrated database.
        try send("job-json", valid: true, "/v1/jobs/\(id)", auth)
        try send("job-text", valid: true, "/v1/jobs/\(id)", auth + ["-H", "Accept: text/plain"])
        try send("job-junit", valid: true, "/v1/jobs/\(id)?format=junit", auth)
        try send("job-html", valid: true, "/v1/jobs/\(id)", auth + ["-H", "Accept: text/html"])
        try send("job-bad-format", valid: false, "/v1/jobs/\(id)?format=pdf", auth)
        try send("job-unknown", valid: true, "/v1/jobs/0123456789abcdef0123456789abcdef", auth)
        try send("job-database", valid: true, "/v1/jobs/\(id)/database", auth)
        try send("job-database-unknown", valid: true, "/v1/jobs/0123456789abcdef0123456789abcdef/database", auth)
        // The catalogs, the probes, the documents.
        try send("plans", valid: true, "/v1/plans", auth)
        try send("plans-no-token", valid: true, "/v1/plans")
        // A GET with a body: the document has no way to say "no body" (so not checked), the answer is.
        try send("plans-with-body", valid: nil, "/v1/plans", auth + ["-X", "GET"], body: garbage)
        try send("plan", valid: true, "/v1/plans/notes", auth)
        try send("plan-unknown", valid: true, "/v1/plans/nope", auth)
        try send("devices", valid: true, "/v1/devices", auth)
        try send("healthz", valid: true, "/healthz")
        try send("metrics", valid: true, "/metrics")
        try send("openapi", valid: true, "/openapi.json")
        try send("upload-page", valid: true, "/", auth)
        try send("upload-page-no-token", valid: true, "/")

        // Every answer is what the request asked for, so the validator sees each kind it should.
        let statuses = Dictionary(uniqueKeysWithValues: exchanges.map { ($0.name, $0.result.status) })
        #expect(statuses["upload-multipart"] == 200 && statuses["upload-too-large"] == 413 && statuses["upload-json-body"] == 415)
        #expect(statuses["matrix-json"] == 200 && statuses["matrix-raw-body"] == 415 && statuses["matrix-bad-option"] == 400)
        #expect(statuses["upload-no-token"] == 401 && statuses["upload-bad-option"] == 400 && statuses["plans-with-body"] == 400)

        let recorded = fixtures + "/exchanges"
        try FileManager.default.createDirectory(atPath: recorded, withIntermediateDirectories: true)
        for exchange in exchanges { try exchange.write(to: recorded) }
        // The document the server serves, not the source file: what clients see.
        let document = fixtures + "/openapi.json"
        try server.get("/openapi.json").body.write(to: URL(fileURLWithPath: document))
        let check = try TestTools.run(python, [Repository.path("scripts/check-openapi-exchanges.py"), document, recorded])
        #expect(check.status == 0, "openapi-core: \(check.output)")
        #expect(check.output.contains("\(exchanges.count) exchanges, 0 problems"), "\(check.output)")

        // 405 answers only a method the document does not list for a path, so no operation lists it.
        let methodNotListed = server.get("/v1/devices", auth + ["-X", "DELETE"])
        #expect(methodNotListed.status == 405 && methodNotListed.headers["allow"] == "GET, HEAD")
        let paths = try #require(
            (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: document))) as? [String: Any])?["paths"]
                as? [String: [String: Any]])
        for (path, item) in paths {
            for (method, operation) in item {
                #expect(((operation as? [String: Any])?["responses"] as? [String: Any])?["405"] == nil, "\(method) \(path) lists 405")
            }
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
                "report_version", "job_id", "outcome", "failure", "first_launch", "plan", "options", "sqlite", "input",
                "launches", "steps", "space", "final", "warnings", "timings", "kill_sweep", "disk_full_sweep", "power_loss_sweep",
            ])
        #expect(Set((report["properties"] as? [String: Any] ?? [:]).keys) == required)
        let outcomes = (schemas?["Outcome"] as? [String: Any])?["enum"] as? [String]
        #expect(
            outcomes == [
                "completed", "completed_after_kills", "watchdog_killed", "crash_loop", "refused", "disk_full", "failed",
                "verification_failed", "data_erased", "invalid_database",
            ])
    }
}

/// A multipart/form-data body (RFC 7578) of `(name, filename, content type, bytes)` parts.
private func multipartBody(boundary: String, parts: [(String, String?, String, Data)]) -> Data {
    var body = Data()
    for (name, filename, contentType, bytes) in parts {
        let disposition = "form-data; name=\"\(name)\"" + (filename.map { "; filename=\"\($0)\"" } ?? "")
        body.append(Data("--\(boundary)\r\nContent-Disposition: \(disposition)\r\nContent-Type: \(contentType)\r\n\r\n".utf8))
        body.append(bytes)
        body.append(Data("\r\n".utf8))
    }
    body.append(Data("--\(boundary)--\r\n".utf8))
    return body
}
