import Foundation
import Simulation

/// A job whose worker holds at a step until the test releases it (`StepHold`, set through
/// `PREFLIGHT_TEST_FAULT`): running for as long as the test needs, on any machine, with
/// no slow plan to outlast the test's checks.
///
///     let server = try ServerProcess(environment: HeldJob.environment(atStep: 3))
///     ... upload ...
///     let job = try #require(HeldJob.await(under: server.jobDir))
///     ... act on the running job ...
///     try job.release()
public struct HeldJob: Sendable {
    /// The job directory of the held worker.
    public let directory: String

    /// The environment, for the server or `preflight run`, that holds every job's worker
    /// when step `version` starts.
    public static func environment(atStep version: Int) -> [String: String] {
        [Worker.faultVariable: "hold_at_step=\(version)"]
    }

    /// The jobs held now in the job directories directly under `parent` (a server's
    /// `job_dir`, or the `TMPDIR` of `preflight run`).
    public static func held(under parent: String) -> [HeldJob] {
        let jobs = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        return jobs.sorted().map { HeldJob(directory: parent + "/" + $0) }
            .filter { FileManager.default.fileExists(atPath: $0.directory + "/" + StepHold.heldFile) }
    }

    /// Waits for a worker to hold under `parent`; nil when none did (see `eventually`).
    public static func await(under parent: String) -> HeldJob? {
        var found: HeldJob?
        _ = eventually {
            found = held(under: parent).first
            return found != nil
        }
        return found
    }

    /// Lets the worker go on (and any later launch that reaches the step).
    public func release() throws {
        try Data().write(to: URL(fileURLWithPath: directory + "/" + StepHold.releaseFile))
    }
}
