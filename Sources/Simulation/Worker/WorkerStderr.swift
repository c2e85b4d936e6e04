import Glibc

/// What a worker says on its stderr: one line that names the worker's job, so that the
/// server's log (`StderrRelay`, which turns it into a JSON line with `job_id`) tells which
/// of the jobs running at once it came from.
public enum WorkerStderr {
    /// The environment variable that carries the job's id to its workers (`WorkerLauncher`).
    static let jobVariable = "PREFLIGHT_JOB_ID"

    /// `preflight worker (job ID): message`, or `preflight worker: message` without a job.
    static func line(_ message: String, jobID: String?) -> String {
        "preflight worker\(jobID.map { " (job \($0))" } ?? ""): \(message)"
    }

    /// Writes `message` as one line with one `write(2)`: lines of workers running at once
    /// never mix.
    static func say(_ message: String) {
        let jobID = getenv(jobVariable).map { String(cString: $0) }
        let text = line(message, jobID: jobID) + "\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
    }

    /// The job a line `say` wrote names, and the message without the job; nil for any
    /// other line.
    public static func job(of line: String) -> (jobID: String, message: String)? {
        let prefix = "preflight worker (job "
        guard line.hasPrefix(prefix), let close = line.range(of: "): ") else { return nil }
        let jobID = String(line[line.index(line.startIndex, offsetBy: prefix.count)..<close.lowerBound])
        guard !jobID.isEmpty else { return nil }
        return (jobID, "preflight worker: " + line[close.upperBound...])
    }
}
