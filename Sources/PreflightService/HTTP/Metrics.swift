import Foundation
import MigrationCore
import Simulation
import Synchronization

/// The service's counters, answered as Prometheus text on `/metrics`.
final class Metrics: Sendable {
    /// Upper bounds (seconds) of the job-duration histogram's buckets.
    static let durationBuckets: [Double] = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800]
    /// Outcomes of jobs that ended without a report: the client left, or the server stopped.
    static let cancelledOutcome = "cancelled"

    private struct RequestKey: Hashable {
        var route: String
        var status: Int
    }

    private struct State {
        var requests: [RequestKey: Int] = [:]
        var jobs: [String: Int] = Dictionary(
            uniqueKeysWithValues: (Outcome.allCases.map(\.rawValue) + [Metrics.cancelledOutcome]).map { ($0, 0) })
        var bucketCounts = [Int](repeating: 0, count: Metrics.durationBuckets.count)
        var durationSum = 0.0
        var durationCount = 0
        var uploadBytes: Int64 = 0
    }

    private let state = Mutex(State())

    func recordRequest(route: String, status: Int) {
        state.withLock { $0.requests[RequestKey(route: route, status: status), default: 0] += 1 }
    }

    func recordJob(outcome: String, seconds: Double) {
        state.withLock { state in
            state.jobs[outcome, default: 0] += 1
            for (index, bound) in Metrics.durationBuckets.enumerated() where seconds <= bound {
                state.bucketCounts[index] += 1
            }
            state.durationSum += seconds
            state.durationCount += 1
        }
    }

    func addUploadBytes(_ count: Int) {
        state.withLock { $0.uploadBytes += Int64(count) }
    }

    /// The Prometheus text exposition (format 0.0.4).
    func render(load: JobScheduler.Load) -> String {
        let snapshot = state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP preflight_http_requests_total HTTP requests answered, by route template and status.")
        lines.append("# TYPE preflight_http_requests_total counter")
        for (key, count) in snapshot.requests.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }) {
            lines.append("preflight_http_requests_total{route=\"\(key.route)\",status=\"\(key.status)\"} \(count)")
        }
        lines.append("# HELP preflight_jobs_total Jobs that ended, by outcome (cancelled: the client left or the server stopped).")
        lines.append("# TYPE preflight_jobs_total counter")
        for (outcome, count) in snapshot.jobs.sorted(by: { $0.key < $1.key }) {
            lines.append("preflight_jobs_total{outcome=\"\(outcome)\"} \(count)")
        }
        lines.append("# HELP preflight_job_duration_seconds Wall-clock time of jobs, from the end of the upload to the report.")
        lines.append("# TYPE preflight_job_duration_seconds histogram")
        for (index, bound) in Metrics.durationBuckets.enumerated() {
            lines.append("preflight_job_duration_seconds_bucket{le=\"\(Metrics.number(bound))\"} \(snapshot.bucketCounts[index])")
        }
        lines.append("preflight_job_duration_seconds_bucket{le=\"+Inf\"} \(snapshot.durationCount)")
        lines.append("preflight_job_duration_seconds_sum \(Metrics.number(snapshot.durationSum))")
        lines.append("preflight_job_duration_seconds_count \(snapshot.durationCount)")
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

    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
