import Foundation
import MigrationCore

/// `preflight synthesize`'s database, made as a capacity search makes each size: by a
/// `synthesize` worker confined to a job directory (the plan's SQL and the sample are
/// untrusted) and killed at the job's deadline, the same `jobDeadline` that ends any
/// job's workers at `max_job_seconds`. A step that never ends (a recursive CTE without a
/// bound) then ends the command with `time_limit`, and no worker is left running.
public enum SynthesisInWorker {
    /// Makes the database `request` asks for inside `job`'s directory, the sample (when
    /// there is one) copied in beside it, and answers its path there and what it holds.
    /// Past `maxSeconds` the worker is killed and the error is `time_limit`; a
    /// `cancellation` (a stop signal) kills it too (`cancelled`).
    public static func synthesize(
        plan: Plan, version: Int, rows: [String: Int], seed: UInt64, sample: String?, job: Job, workerExecutable: String,
        maxSeconds: Int, cancellation: JobCancellation
    ) throws(SynthesisError) -> (path: String, summary: SynthesisSummary) {
        let directory = job.directory
        if let sample {
            do {
                try copyFile(sample, to: directory.input.path)
            } catch {
                throw SynthesisError(code: "invalid_sample", message: "cannot copy the sample \(sample): \(error)")
            }
        }
        let out = directory.path + "/synthesized.db"
        let order = SynthesisOrder(
            plan: String(decoding: plan.document, as: UTF8.self), version: version, rows: rows, seed: seed,
            sample: sample == nil ? nil : directory.input.path, out: out)
        let launcher = WorkerLauncher(
            executable: workerExecutable, job: job, jobID: job.id, cancellation: cancellation,
            jobDeadline: ContinuousClock.now + .seconds(maxSeconds))
        let line: SynthesisLine?
        do {
            line = try CapacityRehearsal.runSynthesisWorker(.synthesize, order: order, directory: directory, launcher: launcher)
        } catch {
            throw SynthesisError(code: error.code, message: error.message)
        }
        if cancellation.isCancelled { throw SynthesisError(code: "cancelled", message: "stopped; its worker is killed") }
        guard let line else {
            throw SynthesisError(
                code: "time_limit",
                message: "max_seconds (\(maxSeconds) s) ran out in phase synthesize (steps 1..\(version) replayed on an empty file, then the rows made); its worker is killed and nothing is written")
        }
        if let code = line.errorCode { throw SynthesisError(code: code, message: line.errorMessage ?? code) }
        return (out, SynthesisSummary(tables: line.tables ?? [:], bytes: line.bytes ?? 0, journalMode: line.journalMode ?? "delete"))
    }
}
