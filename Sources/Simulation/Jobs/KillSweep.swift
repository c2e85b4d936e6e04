import Foundation
import Glibc
import MigrationCore

/// The kill sweep (docs/CONTRACT.md §2 `kill_sweep`), the power-loss sweep (`power_loss_sweep`,
/// `PowerLossSweep.swift`) and the disk-full sweep (`disk_full_sweep`,
/// Preflight's own addition: the contract names only the kill sweep): after the run has
/// reached its target and been verified, it is replayed once per point on a fresh copy of
/// the input, with a real fault at that point, through the same launch loop; each
/// replay's end is compared with the uninterrupted run's `EndState`.
///
/// - Kill sweep: the points are the run's durable syncs (main file, journal, WAL, in
///   order, across launches). The replay's worker SIGKILLs itself just before its k-th,
///   the next launches run as usual, and the end must be the uninterrupted run's.
/// - Disk-full sweep: the points are the run's writes. The k-th fails with SQLITE_FULL and
///   the disk stays full: the replay must end `disk_full` (or `completed` when the write
///   did not matter, or `refused` for `insufficient_space` when the next step's space
///   check sees the full disk first) with the file intact at a version of the plan, and a rerun with the
///   space back must end as the uninterrupted run did.
///
/// The replays run in `sweep/` inside the job directory, so the migrated copy the job
/// hands out stays the uninterrupted run's. The job's deadline bounds the sweep too.
extension JobRun {
    /// The sweeps the options ask for, after a run that ended `outcome` at its target.
    /// Answers `outcome`, or `failed` when the sweep could not go on (the job's time ran
    /// out: `time_limit`, phase `sweep`); the points replayed until then stay in the report.
    mutating func sweep(after outcome: Outcome) -> Outcome {
        let (killing, filling, powerLoss) = (job.options.killSweep, job.options.diskFullSweep, job.options.powerLossSweep)
        guard killing != .off || filling != .off || powerLoss != .off else { return outcome }
        if killing != .off { killSweep = SweepReport() }
        if filling != .off { diskFullSweep = SweepReport() }
        let counters = SpaceStats.read(path: job.directory.spaceStats)
        var replays: SweepReplays?
        defer { replays?.removeDirectory() }
        do {
            let sweeping = try SweepReplays(of: self)
            replays = sweeping
            for point in killing.points(outOf: Int(counters?.durableSyncs ?? 0)) {
                killSweep?.record(try sweeping.kill(at: point))
            }
            if let report = killSweep { progress?(report.summary(of: "kill")) }
            for point in filling.points(outOf: Int(counters?.writes ?? 0)) {
                diskFullSweep?.record(try sweeping.fillDisk(at: point))
            }
            if let report = diskFullSweep { progress?(report.summary(of: "disk-full")) }
            if powerLoss != .off {
                let started = ContinuousClock.now
                powerLossSweep = PowerLossSweepReport()
                try sweeping.powerLoss(powerLoss, durability: job.device.durability) { powerLossSweep?.record($0, failure: $1) }
                if let report = powerLossSweep {
                    progress?("\(report.summary) in \(milliseconds(ContinuousClock.now - started) / 1000) s")
                }
            }
            return outcome
        } catch let timeLimit as OutOfJobTime {
            failure = timeLimitFailure(timeLimit.phase)
        } catch is SweepReplays.Cancelled {
            failure = cancelledFailure
        } catch {
            failure = Failure(kind: .internal, message: "the sweep cannot go on: \(error)")
        }
        return .failed
    }
}

/// The replays of one sweep, each a `JobRun` of its own in the sweep directory.
struct SweepReplays {
    /// The uninterrupted run: its job, launcher and input are each replay's.
    let run: JobRun
    let directory: JobDirectory
    /// Where the uninterrupted run ended.
    let baseline: EndState
    /// The versions a replay may stand at when the disk filled: where the input stood, up
    /// to the target.
    let versions: ClosedRange<Int>
    let quotaBytes: Int64?

    struct Cancelled: Error {}

    struct PreparationError: Error, CustomStringConvertible {
        let description: String
    }

    init(of run: JobRun) throws {
        self.run = run
        directory = JobDirectory(existingAt: run.job.directory.path + "/sweep")
        guard mkdir(directory.path, 0o700) == 0 || errno == EEXIST else {
            throw PreparationError(description: "cannot create \(directory.path): \(String(cString: strerror(errno)))")
        }
        try copyFile(run.job.directory.workerInstructions, to: directory.workerInstructions)
        guard let state = try run.runReportingWorker(.fingerprint)?.endState else {
            throw PreparationError(description: "the uninterrupted run's end state cannot be read (its worker crashed)")
        }
        baseline = state
        let start = run.launches.first?.fromVersion ?? 0
        versions = min(start, run.target)...run.target
        quotaBytes = run.job.options.freeBytes.map { (run.space.initialBytes ?? 0) + $0 }
    }

    /// Removes the replays' copies of the user's database now, not only when the job
    /// directory goes: best effort, as that removal takes whatever is left.
    func removeDirectory() {
        try? FileManager.default.removeItem(atPath: directory.path)
    }

    /// Kills the replay just before durable sync `point`; nil when it survived.
    func kill(at point: Int) throws -> SweepReport.PointFailure? {
        let (replay, outcome) = try launch(with: .killBeforeSync(point), onFreshCopy: true)
        let failure = pointFailure(point)
        guard faultFired else { return failure(Self.notReached("syncs")) }
        if let outcome {
            return failure(
                "killed here and relaunched, the run ended \(outcome.rawValue) instead of reaching version \(run.target): \(replay.failure?.message ?? outcome.meaning)")
        }
        guard let end = try endState(of: replay) else { return failure(Self.unreadable) }
        let differences = end.differences(from: baseline)
        guard differences.isEmpty else {
            return failure("killed here and relaunched, the end differs from the uninterrupted run: " + differences.joined(separator: "; "))
        }
        return nil
    }

    /// Fills the disk at write `point`, then reruns with the space back; nil when both
    /// ended as they must.
    func fillDisk(at point: Int) throws -> SweepReport.PointFailure? {
        let (replay, outcome) = try launch(with: .fullAtWrite(point), onFreshCopy: true)
        let failure = pointFailure(point)
        guard faultFired else { return failure(Self.notReached("writes")) }
        // A full disk in the clean-up of an applied rebuild leaves it pending, and the next
        // step's space check then refuses to start on the full disk: a full-disk ending too.
        let refusedForSpace = outcome == .refused && replay.failure?.kind == Failure.Kind.insufficientSpace
        if let outcome, outcome != .diskFull, !refusedForSpace {
            return failure(
                "with the disk full here, the run ended \(outcome.rawValue) instead of disk_full: \(replay.failure?.message ?? outcome.meaning)")
        }
        guard let left = try endState(of: replay) else { return failure(Self.unreadable) }
        if outcome == nil {
            // The write did not matter (or came after the last that did): a completed run.
            let differences = left.differences(from: baseline)
            return differences.isEmpty
                ? nil
                : failure("with the disk full here the run completed, but differs from the uninterrupted run: " + differences.joined(separator: "; "))
        }
        if left.integrity != "ok" {
            return failure("the disk filled here and integrity_check then reports \(left.integrity)")
        }
        guard versions.contains(left.version) else {
            return failure(
                "the disk filled here and the file stands at version \(left.version), not one the plan reached (\(versions.lowerBound) to \(versions.upperBound))")
        }
        let (rerun, rerunOutcome) = try launch(with: nil, onFreshCopy: false)
        if let rerunOutcome {
            return failure(
                "the disk filled here; the rerun with space then ended \(rerunOutcome.rawValue) instead of completing: \(rerun.failure?.message ?? rerunOutcome.meaning)")
        }
        guard let end = try endState(of: rerun) else { return failure(Self.unreadable) }
        let differences = end.differences(from: baseline)
        guard differences.isEmpty else {
            return failure(
                "the disk filled here; after the rerun with space the end differs from the uninterrupted run: " + differences.joined(separator: "; "))
        }
        return nil
    }

    /// A failure at `point`, placed where the fault fired (the step and the file).
    private func pointFailure(_ point: Int) -> (String) -> SweepReport.PointFailure {
        let fired = SpaceStats.read(path: directory.spaceStats)?.firedFault
        return { message in
            SweepReport.PointFailure(
                point: point, step: fired.flatMap { $0.step > 0 ? $0.step : nil }, phase: fired?.fileClass ?? "not_reached",
                message: message)
        }
    }

    /// Whether the fault of the last replay fired: a point it never reached proves nothing.
    private var faultFired: Bool { SpaceStats.read(path: directory.spaceStats)?.firedFault != nil }

    private static func notReached(_ points: String) -> String {
        "the replay never reached this point: its \(points) differ from the uninterrupted run's, so the run does not do the same work twice and this point could not be tested"
    }

    /// Runs the launches of one replay, through the launch loop of every run, on a fresh
    /// copy of the input or on what the last replay left; answers the replay and how its
    /// launches ended (nil: at the target).
    func launch(with fault: StorageFault?, onFreshCopy fresh: Bool) throws -> (JobRun, Outcome?) {
        if run.launcher.isPastJobDeadline { throw OutOfJobTime(phase: .sweep) }
        if run.launcher.cancellation.isCancelled { throw Cancelled() }
        let manager = FileManager.default
        if fresh {
            for file in directory.work.all where manager.fileExists(atPath: file) { try manager.removeItem(atPath: file) }
            try run.job.input.copy(to: directory.work)
        }
        guard SpaceStats.create(path: directory.spaceStats, quotaBytes: quotaBytes) == 0 else {
            throw PreparationError(description: "cannot create the space stats file of the sweep")
        }
        var job = run.job
        job.directory = directory
        // The kill takes one launch that the uninterrupted run did not need.
        if let fault, fault != .recordOperations { job.options.launches += 1 }
        var replay = JobRun(
            job: job,
            launcher: WorkerLauncher(
                executable: run.launcher.executable, job: job, jobID: run.launcher.jobID, cancellation: run.launcher.cancellation,
                jobDeadline: run.launcher.jobDeadline),
            progress: nil)
        replay.input = run.input
        replay.injectedFault = fault
        let outcome = replay.launchUntilSettled()
        if replay.launcher.isPastJobDeadline { throw OutOfJobTime(phase: .sweep) }
        if replay.launcher.cancellation.isCancelled { throw Cancelled() }
        return (replay, outcome)
    }

    /// Where `replay` left the file; nil when the worker reading it died (SQLite crashed
    /// on what the fault left: a failure of the point, not of the sweep).
    func endState(of replay: JobRun) throws -> EndState? {
        try replay.runReportingWorker(.fingerprint)?.endState
    }

    private static let unreadable = "the file the replay left cannot be read: the worker reading it crashed"

}

extension SweepReport {
    /// Counts one replayed point: survived (nil) or not.
    mutating func record(_ failure: PointFailure?) {
        points += 1
        if let failure { failures.append(failure) } else { survived += 1 }
    }

    /// "kill sweep: survives 12/12 points", for the progress lines.
    func summary(of kind: String) -> String {
        "\(kind) sweep: survives \(survived)/\(points) points"
    }
}
