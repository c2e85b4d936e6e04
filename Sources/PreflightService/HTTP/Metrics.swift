import Foundation
import MigrationCore
import Simulation
import Synchronization

/// The service's counters, answered as Prometheus text on `/metrics`.
final class Metrics: Sendable {
    /// Upper bounds (seconds) of the job-duration histogram's buckets.
    static let durationBuckets: [Double] = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800]
    /// Upper bounds (seconds) of the request-duration histogram's buckets: from the probes'
    /// milliseconds to a migration's whole upload and job (up to `max_job_seconds`, 600 by default).
    static let requestDurationBuckets: [Double] = [0.005, 0.025, 0.1, 0.5, 1, 5, 30, 120, 600, 1800]
    /// Outcomes of jobs that ended without a report: the client left, or the server stopped.
    static let cancelledOutcome = "cancelled"

    private struct RequestKey: Hashable {
        var route: String
        var status: Int
    }

    private struct State {
        var requests: [RequestKey: Int] = [:]
        /// Keyed as `requests`: route templates (a bounded set, `unmatched` for the rest) and statuses.
        var requestDurations: [RequestKey: Histogram] = [:]
        var jobs: [String: Int] = Dictionary(
            uniqueKeysWithValues: (Outcome.allCases.map(\.rawValue) + [Metrics.cancelledOutcome]).map { ($0, 0) })
        var jobDurations = Histogram(bounds: Metrics.durationBuckets)
        var uploadBytes: Int64 = 0
    }

    private let state = Mutex(State())

    func recordRequest(route: String, status: Int, seconds: Double) {
        let key = RequestKey(route: route, status: status)
        state.withLock { state in
            state.requests[key, default: 0] += 1
            state.requestDurations[key, default: Histogram(bounds: Metrics.requestDurationBuckets)].observe(seconds)
        }
    }

    func recordJob(outcome: String, seconds: Double) {
        state.withLock { state in
            state.jobs[outcome, default: 0] += 1
            state.jobDurations.observe(seconds)
        }
    }

    func addUploadBytes(_ count: Int) {
        state.withLock { $0.uploadBytes += Int64(count) }
    }

    /// The Prometheus text exposition (format 0.0.4).
    func render(load: JobScheduler.Load) -> String {
        let snapshot = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP preflight_build_info The running version of Preflight and of the SQLite it runs every rehearsal with.")
        lines.append("# TYPE preflight_build_info gauge")
        lines.append("preflight_build_info{version=\"\(Version.preflight)\",sqlite_version=\"\(Version.sqlite)\"} 1")
        lines.append("# HELP preflight_http_requests_total HTTP requests answered, by route template and status.")
        lines.append("# TYPE preflight_http_requests_total counter")
        for (key, count) in snapshot.requests.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }) {
            lines.append("preflight_http_requests_total{route=\"\(key.route)\",status=\"\(key.status)\"} \(count)")
        }
        lines.append(
            "# HELP preflight_http_request_duration_seconds Time from a request's headers to the end of its answer, by route template and status.")
        lines.append("# TYPE preflight_http_request_duration_seconds histogram")
        for (key, histogram) in snapshot.requestDurations.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }) {
            lines += histogram.samples(
                "preflight_http_request_duration_seconds", labels: ["route=\"\(key.route)\"", "status=\"\(key.status)\""])
        }
        lines.append("# HELP preflight_jobs_total Jobs that ended, by outcome (cancelled: the client left or the server stopped).")
        lines.append("# TYPE preflight_jobs_total counter")
        for (outcome, count) in snapshot.jobs.sorted(by: { $0.key < $1.key }) {
            lines.append("preflight_jobs_total{outcome=\"\(outcome)\"} \(count)")
        }
        lines.append("# HELP preflight_job_duration_seconds Wall-clock time of jobs, from the end of the upload to the report.")
        lines.append("# TYPE preflight_job_duration_seconds histogram")
        lines += snapshot.jobDurations.samples("preflight_job_duration_seconds")
        lines.append("# HELP preflight_upload_bytes_total Bytes of request bodies received on /v1/migrations.")
        lines.append("# TYPE preflight_upload_bytes_total counter")
        lines.append("preflight_upload_bytes_total \(snapshot.uploadBytes)")
        lines.append("# HELP preflight_jobs_running Jobs running now.")
        lines.append("# TYPE preflight_jobs_running gauge")
        lines.append("preflight_jobs_running \(load.running)")
        lines.append("# HELP preflight_jobs_queued Jobs admitted and not yet running: uploading or waiting for a slot.")
        lines.append("# TYPE preflight_jobs_queued gauge")
        lines.append("preflight_jobs_queued \(load.queued)")
        return lines.joined(separator: "\n") + "\n"
    }

    static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
