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
    /// `cancellation` (a stop signal) kills it too (`cancelled`). With a `cache`, a file
    /// made before for the same key is put there instead (`placement`), and a file made
    /// now is kept; `note` hears what the cache says.
    public static func synthesize(
        plan: Plan, version: Int, rows: [String: Int], seed: UInt64, sample: String?, job: Job, workerExecutable: String,
        maxSeconds: Int, cancellation: JobCancellation, cache: SynthesisCache? = nil,
        placement: SynthesisCache.Placement = .copy, note: (String) -> Void = { _ in }
    ) throws(SynthesisError) -> SynthesizedFile {
        let out = job.directory.path + "/synthesized.db"
        let deadline = ContinuousClock.now + .seconds(maxSeconds)
        let make = { () throws(SynthesisError) -> SynthesisSummary in
            try makeInWorker(
                plan: plan, version: version, rows: rows, seed: seed, sample: sample, job: job, out: out,
                workerExecutable: workerExecutable, maxSeconds: maxSeconds, deadline: deadline, cancellation: cancellation)
        }
        guard let cache else { return SynthesizedFile(path: out, summary: try make(), sha256: nil, cached: false) }
        let sampleSHA256: String?
        do {
            sampleSHA256 = try sample.map { path throws(FileError) in try sha256OfFile(path) }
        } catch {
            throw SynthesisError(code: "invalid_sample", message: "cannot read the sample \(sample ?? ""): \(error)")
        }
        let key = SynthesisKey(plan: plan, version: version, rows: rows, seed: seed, sampleSHA256: sampleSHA256)
        let provided = try cache.provide(
            key, at: out, placement: placement, deadline: deadline, cancellation: cancellation, note: note, make: make)
        return SynthesizedFile(path: out, summary: provided.summary, sha256: provided.sha256, cached: provided.cached)
    }

    /// The worker's synthesis of the file at `out`.
    private static func makeInWorker(
        plan: Plan, version: Int, rows: [String: Int], seed: UInt64, sample: String?, job: Job, out: String,
        workerExecutable: String, maxSeconds: Int, deadline: ContinuousClock.Instant, cancellation: JobCancellation
    ) throws(SynthesisError) -> SynthesisSummary {
        let directory = job.directory
        if let sample {
            do {
                try copyFile(sample, to: directory.input.path)
            } catch {
                throw SynthesisError(code: "invalid_sample", message: "cannot copy the sample \(sample): \(error)")
            }
        }
        let order = SynthesisOrder(
            plan: String(decoding: plan.document, as: UTF8.self), version: version, rows: rows, seed: seed,
            sample: sample == nil ? nil : directory.input.path, out: out)
        let launcher = WorkerLauncher(
            executable: workerExecutable, job: job, jobID: job.id, cancellation: cancellation, jobDeadline: deadline)
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
        return SynthesisSummary(tables: line.tables ?? [:], bytes: line.bytes ?? 0, journalMode: line.journalMode ?? "delete")
    }
}

/// A synthesized file in a job directory, and where it came from.
public struct SynthesizedFile: Sendable {
    public var path: String
    public var summary: SynthesisSummary
    /// Its SHA-256 when the cache knew it; nil otherwise.
    public var sha256: String?
    /// Whether it came from the synthesis cache.
    public var cached: Bool
}
