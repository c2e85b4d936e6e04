import Foundation
import PreflightService
import Testing
import TestSupport

/// `/metrics` of the real server, after real requests, as Prometheus itself reads it:
/// `promtool check metrics` (Debian's prometheus package) parses and lints the exposition.
struct MetricsExpositionTests {
    @Test func promtoolAcceptsTheRealExposition() throws {
        let promtool = try TestTools.promtool()
        let fixtures = try makeTemporaryDirectory("preflight-metrics")
        defer { try? FileManager.default.removeItem(atPath: fixtures) }
        let server = try ServerProcess()
        let database = try Fixtures.notesDatabase(in: fixtures)
        #expect(server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database]).status == 200)
        #expect(server.get("/v1/plans/nope").status == 404)
        #expect(server.get("/nowhere").status == 404)
        #expect(eventually {
            server.metric("preflight_http_request_duration_seconds_count{route=\"/v1/migrations\",status=\"200\"}") == 1
        })
        let exposition = server.get("/metrics")
        #expect(exposition.status == 200)

        let check = try TestTools.run(promtool, ["check", "metrics"], input: exposition.body)
        #expect(check.status == 0, "promtool check metrics: \(check.output)\n\(exposition.text)")

        // The build, from the one place the version is written, and the SQLite loaded.
        #expect(exposition.text.contains(
            "preflight_build_info{version=\"\(Version.preflight)\",sqlite_version=\"\(Version.sqlite)\"} 1\n"))
        // Request durations by route template and status: a bounded label set, so an unknown
        // path counts under `unmatched`, not under its own path.
        #expect(exposition.text.contains("# TYPE preflight_http_request_duration_seconds histogram\n"))
        #expect(server.metric("preflight_http_request_duration_seconds_bucket{route=\"/v1/migrations\",status=\"200\",le=\"+Inf\"}") == 1)
        #expect(server.metric("preflight_http_request_duration_seconds_count{route=\"/v1/plans/{name}\",status=\"404\"}") == 1)
        #expect(server.metric("preflight_http_request_duration_seconds_count{route=\"unmatched\",status=\"404\"}") == 1)
        #expect(!exposition.text.contains("/nowhere"))
        let migrationSeconds = try #require(
            server.metric("preflight_http_request_duration_seconds_sum{route=\"/v1/migrations\",status=\"200\"}"))
        #expect(migrationSeconds > 0)
        // Unrounded: a probe answered in well under a millisecond still adds its time.
        let probeSeconds = try #require(
            server.metric("preflight_http_request_duration_seconds_sum{route=\"/v1/plans/{name}\",status=\"404\"}"))
        #expect(probeSeconds > 0)
    }
}
