import Foundation
import Glibc
import MigrationCore

/// Runs a job as a phone would live it: launch after launch of a worker process, each
/// killed at the watchdog's deadline, until the target is reached, a step fails, or the
/// launches run out; then verifies the result and writes the report.
///
/// The runner itself never opens the database with SQLite: it reads the header bytes,
/// the workers' events and the space stats file. Used by `preflight run` and by the
/// HTTP service alike.
public final class JobRunner: Sendable {
    let workerExecutable: String

    public init(workerExecutable: String) {
        self.workerExecutable = workerExecutable
    }

    /// Runs `job` to its end (this can take minutes) and answers its report.
    /// The worker's events are decoded as they arrive; `progress` also gets one line per
    /// step as it settles, for people watching a terminal.
    public func run(_ job: Job, cancellation: JobCancellation, progress: ((String) -> Void)? = nil) -> JobResult {
        var run = JobRun(
            job: job,
            launcher: WorkerLauncher(
                executable: workerExecutable, job: job, jobID: job.id, cancellation: cancellation,
                jobDeadline: job.maxJobSeconds.map { ContinuousClock.now + .seconds($0) }),
            progress: progress)
        let outcome = run.execute()
        return JobResult(
            report: run.report(outcome),
            migratedDatabasePath: run.hasWorkCopy && outcome != .invalidDatabase ? job.directory.work.path : nil)
    }
}

/// The state of one job while it runs (and of each replay of a sweep, `KillSweep.swift`).
struct JobRun {
    let job: Job
    let launcher: WorkerLauncher
    let progress: ((String) -> Void)?
    let started = ContinuousClock.now
    var input: InputSummary
    var ledger = StepLedger()
    var launches: [LaunchReport] = []
    var failure: Failure?
    var final: FinalState?
    var space = SpaceReport()
    /// Time zero of `space.samples`, from which each launch's `at_ms` counts.
    var samplingStarted: ContinuousClock.Instant?
    var warnings: [Warning] = []
    var hasWorkCopy = false
    var phases = PhaseTimings()
    /// A sweep's replay: the fault its launches carry (it fires once, at its point).
    var injectedFault: StorageFault?
    var killSweep: SweepReport?
    var diskFullSweep: SweepReport?
    var powerLossSweep: PowerLossSweepReport?
    /// What only the report needs from the upload, read on a second core while the run goes on.
    var reading: BackgroundTask<UploadReading>?
    /// Workers started ahead of their turn, so that their process start overlaps the copy
    /// (launch 1) or the launches (the verification) instead of coming after them.
    var firstLaunch: WorkerLauncher.Started?
    /// The path the framework took on launch 1 (the report's `first_launch`).
    var firstLaunchPath: FirstLaunch?
    /// What Room's destructive fallback erased in the launch that reached the target.
    var erasure: Failure?
    var verifier: WorkerLauncher.Started?

    init(job: Job, launcher: WorkerLauncher, progress: ((String) -> Void)?) {
        self.job = job
        self.launcher = launcher
        self.progress = progress
        input = InputSummary(
            bytes: fileSize(job.input.database) ?? 0, sha256: "", userVersion: nil, applicationID: nil, journalMode: nil,
            pageSize: nil, sqliteHeaderValid: false, tables: nil)
    }

    var target: Int { job.options.target ?? job.plan.newestVersion }

    /// Runs the job to its outcome: the rehearsal, then what can only come after it (the
    /// upload's hash and its WAL's check, which ran beside the launches).
    mutating func execute() -> Outcome {
        let outcome = rehearse()
        // Those the run ended without.
        firstLaunch?.discard()
        verifier?.discard()
        guard let reading else { return outcome }
        switch reading.wait() {
        case .success(let read):
            input.sha256 = read.sha256
            phases.hashMs = read.elapsedMs
            if let walFinding = read.walFinding {
                warnings.append(Warning(code: walFinding.code, step: nil, message: walFinding.message))
            }
            return outcome
        case .failure(let error):
            return stop(.failed, Failure(kind: .internal, message: "cannot hash the upload: \(error)"))
        }
    }

    // MARK: - Launches

    /// What the report says of one launch; on the device clock, with its band, and at risk
    /// (with a warning) when it ran to its end but its band reaches the deadline.
    mutating func launchReport(_ number: Int, _ record: LaunchRecord, _ run: WorkerLauncher.Run) -> LaunchReport {
        var launch = LaunchReport(
            launch: number, fromVersion: record.fromVersion, fromID: record.opened?.id,
            reachedVersion: record.reachedVersion, ended: record.ending, elapsedMs: run.elapsedMs,
            startMs: record.startMs, rolledBack: record.cutUncommittedWork)
        guard let speed = job.options.deviceSpeed, let work = record.deviceAtEnd else { return launch }
        launch.deviceMs = record.deviceMs(startMs: speed.startMs)
        let band = ModelBand(startMs: speed.startMs, work: work)
        launch.deviceBand = band
        if let watchdogMs = job.options.watchdogMs, let deviceMs = launch.deviceMs, !record.wasKilled, band.crosses(watchdogMs) {
            launch.atRisk = true
            warnings.append(Warning(
                code: "launch_at_risk", step: nil,
                message: "launch \(number) ended \(watchdogMs - deviceMs) ms before the \(watchdogMs) ms watchdog (modelled \(deviceMs) ms), "
                    + "and the model can be off by \(band.lowMs - deviceMs) to +\(band.highMs - deviceMs) ms for the work it did "
                    + "(\(band.lowMs)-\(band.highMs) ms): on the phone this launch may be killed"))
        }
        return launch
    }

    /// Runs launches until the target is reached (nil) or the run ends another way.
    ///
    /// After a kill, what the file durably holds decides (`DurablePoint`: the version, and
    /// the cursor of a rebuild's copy or purge or of a backfill): a launch whose events show
    /// a commit moved it (each is written after its COMMIT, and the next launch opens the
    /// file where it left it); otherwise a worker reads the file, and if it stands where
    /// the launch found it, the kill undid everything the launch did, in whatever part of
    /// whatever step, and every later launch would do the same: a crash loop, named by that
    /// part. Launches that run out end `watchdog_killed` only when the last one moved the
    /// file too. Under drift the work of finished statements stays after a kill, so the
    /// next launch runs on a changed file: the loop is judged from what that launch does
    /// (it fails on the half-applied state, or gets no further than the one before).
    mutating func launchUntilSettled() -> Outcome? {
        let runner = job.plan.runner
        var previous: LaunchRecord?
        var sweepKillSeen = false
        var stall: LaunchRecord?
        for number in 1...max(1, job.options.launches) {
            if launcher.cancellation.isCancelled { return stopAfterMigration(.failed, cancelledFailure) }
            if launcher.isPastJobDeadline {
                return stopAfterMigration(.failed, timeLimitFailure(.launch, step: previous?.cutStep?.version), state: nil)
            }
            let run: WorkerLauncher.Run
            var progressLine = ProgressLine(launch: number, plan: job.plan, inputTables: input.tables)
            var log = LaunchRecord.EventLog()
            do {
                let worker = try firstLaunch.take() ?? launcher.start(.migrate, extraArguments: launchArguments(number))
                run = launcher.run(
                    worker, watchdogMs: job.options.clock == .wall ? job.options.watchdogMs : nil,
                    onLine: { line, atMs in
                        guard let event = log.add(line, atMs: atMs), let progress,
                            let text = progressLine.describe(event)
                        else { return }
                        progress(text)
                    })
            } catch {
                return stopAfterMigration(.failed, workerStartFailure(error))
            }
            let record = LaunchRecord(number: number, runner: runner, run: run, log: log)
            let stats = SpaceStats.read(path: job.directory.spaceStats)
            ledger.record(record, spaceAtEnd: stats)
            // Where the previous launch left the file is where this one found it.
            if let found = record.fromVersion, let last = launches.indices.last { launches[last].reachedVersion = found }
            launches.append(launchReport(number, record, run))
            if let zero = samplingStarted, let startedAt = run.startedAt {
                launches[launches.count - 1].atMs = milliseconds(startedAt - zero)
            }
            defer { previous = record }
            if number == 1 { firstLaunchPath = record.firstLaunchPath }
            if launcher.cancellation.isCancelled { return stopAfterMigration(.failed, cancelledFailure) }
            if record.finished != nil {
                erasure = record.erasure?.failure
                return nil
            }
            if let failed = record.stepFailure, let stopped = failed.stop {
                let outcome = Outcome(stopped)
                let failure = failed.failure ?? Failure(kind: Failure.Kind(rawValue: outcome.rawValue), message: outcome.meaning)
                if outcome == .failed, let killed = previous, runner.autocommits, killed.wasKilled,
                    killed.start != nil, killed.start == record.start
                {
                    return stopAfterMigration(.crashLoop, failsOnHalfApplied(failure, after: killed))
                }
                // A refused file is still a database: its state is reported, as for any other
                // ending that leaves one.
                return outcome == .invalidDatabase ? stop(outcome, failure) : stopAfterMigration(outcome, failure)
            }
            // What the launch measured stays in the report; the file's state is not read
            // again, as that would be one more worker past the deadline.
            if run.killedByJobDeadline {
                return stopAfterMigration(.failed, timeLimitFailure(.launch, step: record.cutStep?.version), state: nil)
            }
            if let memoryKill = run.memory?.failure(step: record.cutStep, limitBytes: job.device.memoryLimitBytes) {
                progress?("launch \(number): \(memoryKill.message)")
                return stopAfterMigration(.failed, memoryKill)
            }
            // A sweep's kill is one moment of one launch, not a deadline every launch meets:
            // the next launch runs as usual, whatever this one left.
            if record.wasKilled, case .killBeforeSync = injectedFault, !sweepKillSeen, stats?.firedFault != nil {
                sweepKillSeen = true
                continue
            }
            if record.wasKilled {
                progress?(ProgressLine.killed(record, watchdogMs: job.options.watchdogMs))
                if record.committedProgress {
                    stall = nil
                    continue
                }
                guard let start = record.start else {
                    if awaitsSecondStall(record, after: &stall, isLast: number == job.options.launches) { continue }
                    return stopAfterMigration(.crashLoop, crashLoopFailure(record))
                }
                if runner.autocommits {
                    if let killed = previous, killed.wasKilled, killed.start == start,
                        (record.furthestStep ?? 0) <= (killed.furthestStep ?? 0)
                    {
                        return stopAfterMigration(.crashLoop, repeatedPathFailure(record, after: killed))
                    }
                    continue
                }
                // No commit in the events: the file itself says whether one happened. It is
                // read as the next launch will find it (a verifier would checkpoint its WAL).
                let standing: WorkerReport?
                do {
                    standing = try runReportingWorker(.standing)
                } catch let timeLimit as OutOfJobTime {
                    return stopAfterMigration(.failed, timeLimitFailure(timeLimit.phase, step: record.cutStep?.version), state: nil)
                } catch {
                    standing = nil
                }
                if let point = standing?.point, point != start {
                    if let last = launches.indices.last { launches[last].reachedVersion = point.version }
                    stall = nil
                    continue
                }
                if awaitsSecondStall(record, after: &stall, isLast: number == job.options.launches) { continue }
                return stopAfterMigration(.crashLoop, crashLoopFailure(record))
            }
            return stopAfterMigration(.failed, crashFailure(record))
        }
        let state: WorkerReport?
        do {
            state = try readDatabaseState()
        } catch {
            return stopAfterMigration(.failed, timeLimitFailure(error.phase, step: ledger.entries.last?.version), state: nil)
        }
        if let last = previous, let start = last.start, state?.point == start {
            return stopAfterMigration(.crashLoop, crashLoopFailure(last), state: state)
        }
        return stopAfterMigration(.watchdogKilled, launchesRanOutFailure(state?.point), state: state)
    }

    /// Whether a launch the watchdog killed without durable progress waits for the next launch
    /// before it is called a crash loop. On the device clock the next launch does the same
    /// work in the same modelled time and stalls in the same place, so one stall is the loop.
    /// On this machine's wall clock a launch can stall only because the machine was busy for
    /// a moment, which the phone's next launch would not repeat: there the loop is a second
    /// consecutive stall from the same point (or a stall on the last launch there is).
    private func awaitsSecondStall(_ record: LaunchRecord, after stall: inout LaunchRecord?, isLast: Bool) -> Bool {
        guard job.options.clock == .wall, record.killedByWatchdog, !isLast else { return false }
        if let earlier = stall, earlier.start == record.start { return false }
        stall = record
        progress?("launch \(record.number): no durable progress; on this machine's clock one slow launch is not yet a loop, so launch \(record.number + 1) tries again from the same point")
        return true
    }

    /// Every launch was killed, each after moving the file on, and none is left: where the
    /// file stands, which may be the target with the old table's purge still to finish.
    private func launchesRanOutFailure(_ point: DurablePoint?) -> Failure {
        let killed = "all \(launches.count) launches were killed by \(job.options.watchdogText), each after committing durable progress"
        let reached = point?.version ?? launches.last?.reachedVersion
        guard let reached, reached >= target else {
            return Failure(
                kind: Failure.Kind.watchdog, step: ledger.entries.last?.version,
                message: "\(killed), but the launches ran out with the database at version \(reached.map(String.init) ?? "unknown") of \(target)")
        }
        let pending = point?.pendingStep
        let work = pending.map { step in
            point?.phase == ChunkPhase.purge.rawValue
                ? "the purge of the old table of step \(step)\(stepName(step))" : "the work of step \(step)\(stepName(step))"
        } ?? "its clean-up"
        return Failure(
            kind: Failure.Kind.watchdog, step: pending ?? ledger.entries.last?.version,
            message: "\(killed): the database reached its target version \(target), but \(work) was still pending when the launches ran out, and each launch is killed during it")
    }

    /// ` ("title required")`: a step's name, for a message.
    private func stepName(_ version: Int) -> String {
        job.plan.step(version: version).map { " (\"\($0.name)\")" } ?? ""
    }

    /// The `migrate` worker's arguments for launch `number`.
    func launchArguments(_ number: Int) -> [String] {
        ["--launch", String(number)] + (injectedFault?.arguments ?? [])
    }

    var cancelledFailure: Failure { Failure(kind: .cancelled, message: "the job was cancelled") }

    func timeLimitFailure(_ phase: OutOfJobTime.Phase, step: Int? = nil) -> Failure {
        let seconds = job.maxJobSeconds ?? 0
        return Failure(
            kind: Failure.Kind.timeLimit, step: step,
            message: "the job ran past its max_job_seconds limit of \(seconds) s here during the \(phase.activity), and its worker was killed; what was measured until then is kept. Give the job more time (max_job_seconds, PREFLIGHT_MAX_JOB_SECONDS) or rehearse on a smaller database",
            phase: phase.rawValue)
    }

    func workerStartFailure(_ error: Error) -> Failure {
        Failure(kind: .internal, message: "cannot start a worker: \(error)")
    }

    /// A killed launch that left the file where it found it. The message names the part
    /// of the step where it died ("the purge of the old table", "the swap", "the step's
    /// transaction"), which is where every later launch dies too.
    private func crashLoopFailure(_ record: LaunchRecord) -> Failure {
        let step = record.cutStepVersion
        let stepText = step.map { "step \($0)\(stepName($0))" }
        let phase = record.cutPhase
        let place = switch (phase, stepText) {
        case let (phase?, stepText?): "during \(stepText), in \(phase)"
        case let (nil, stepText?): "during \(stepText)"
        case let (phase?, nil): "in \(phase)"
        case (nil, nil): "while opening the database"
        }
        guard job.plan.runner.commitsWholePath, let from = record.fromVersion, let cut = record.furthestStep else {
            let target = record.start.map { at in
                at.version >= self.target ? "; the file is at its target version \(at.version), but every launch is killed before this work commits" : ""
            } ?? ""
            return Failure(
                kind: Failure.Kind.watchdog, step: step,
                message: "launch \(record.number) was killed \(killedBy(record)) \(place), without committing any progress\(target); every later launch finds the file where this one did and dies in the same place: crash loop")
        }
        let undone = cut == from + 1 ? "step \(cut)" : "steps \(from + 1) to \(cut)"
        return Failure(
            kind: Failure.Kind.watchdog, step: step ?? cut,
            message: "launch \(record.number) was killed \(killedBy(record)) \(place); runner \(job.plan.runner.rawValue) runs every pending step in one transaction, so the kill rolled back \(undone) and the file is still at version \(from): every launch repeats the whole path and is killed again in it: crash loop")
    }

    /// Drift: a launch found the file where a killed launch had found it, and was killed no
    /// further along.
    private func repeatedPathFailure(_ record: LaunchRecord, after killed: LaunchRecord) -> Failure {
        let step = record.cutStep
        let stepText = step.map { "step \($0.version ?? 0) (\"\($0.name ?? "")\")" } ?? "the same path"
        return Failure(
            kind: Failure.Kind.watchdog, step: step?.version,
            message: "launch \(record.number) started from version \(record.fromVersion ?? 0), as launch \(killed.number) did (drift writes user_version only after the last step), and was killed \(killedBy(record)) again during \(stepText), no further than before: every launch runs the same path again on the half-migrated file: crash loop")
    }

    /// "by the watchdog at 5000 ms device", or "(SIGKILL)" for a kill from elsewhere.
    private func killedBy(_ record: LaunchRecord) -> String {
        record.killedByWatchdog ? "by \(job.options.watchdogText)" : "(SIGKILL)"
    }

    /// Drift: the failure of a launch that ran the path again on what a killed launch left.
    private func failsOnHalfApplied(_ failure: Failure, after killed: LaunchRecord) -> Failure {
        var failure = failure
        failure.message += ". Launch \(killed.number) was killed \(killedBy(killed)) after part of this path had committed, so every launch runs the same steps again on this half-migrated file and fails the same way: crash loop"
        return failure
    }

    private func crashFailure(_ record: LaunchRecord) -> Failure {
        let during = record.cutStep.map { " during step \($0.version ?? 0)" } ?? ""
        let message: String
        switch record.run.termination {
        case .signaled(let signal):
            message = "the migrating process died of signal \(signal) (\(signalName(signal)))\(during); SQLite may have crashed on this file"
        case .exited(let code):
            message = "the migrating process exited with status \(code)\(during) without finishing; see the server's log"
        }
        return Failure(kind: Failure.Kind.workerCrashed, step: record.cutStep?.version, message: message)
    }

    // MARK: - Ending

    /// Ends the run before any launch changed the work copy.
    mutating func stop(_ outcome: Outcome, _ failure: Failure) -> Outcome {
        self.failure = failure
        return outcome
    }

    /// Ends a run that migrated at least partly: the state it left is reported. When the
    /// job's deadline runs out while that state is read, the job ends on its time limit
    /// instead: the outcome it was about to report was not checked against the file.
    private mutating func stopAfterMigration(_ outcome: Outcome, _ failure: Failure) -> Outcome {
        do {
            return stopAfterMigration(outcome, failure, state: try readDatabaseState())
        } catch {
            return stopAfterMigration(.failed, timeLimitFailure(error.phase, step: failure.step), state: nil)
        }
    }

    /// Ends a run with the state of the file a worker read (nil when none could be read).
    mutating func stopAfterMigration(_ outcome: Outcome, _ failure: Failure, state: WorkerReport?) -> Outcome {
        self.failure = failure
        ledger.skipRemaining(plan: job.plan, through: target)
        final = state?.final
        UncountedTableWarnings.add(state?.uncountedTables, place: "after the run", to: &warnings)
        if let point = state?.point {
            ledger.settle(reachedVersion: point.version)
            // Where the last launch left the file, as the file itself says.
            if let last = launches.indices.last { launches[last].reachedVersion = point.version }
        }
        return outcome
    }

    /// What the file holds now, read by a verification worker (quick check, no schema
    /// comparison). Best effort: a worker that cannot start or dies here leaves the state
    /// unknown (null in the report) rather than hiding the outcome. Not so the job's
    /// deadline: that throws, so that the job ends `time_limit` rather than on what an
    /// unknown state would be taken for (a crash loop).
    private func readDatabaseState() throws(OutOfJobTime) -> WorkerReport? {
        guard !launcher.cancellation.isCancelled else { return nil }
        do {
            return try runReportingWorker(.verify, extraArguments: ["--final-only"])
        } catch let timeLimit as OutOfJobTime {
            throw timeLimit
        } catch {
            return nil
        }
    }

    func report(_ outcome: Outcome) -> Report {
        let reporting = ContinuousClock.now
        var space = self.space
        if let stats = SpaceStats.read(path: job.directory.spaceStats), stats.run.peakTotalBytes > 0 {
            space.peakBytes = stats.run.peakTotalBytes
            space.peakGrowthBytes = max(0, stats.run.peakTotalBytes - (space.initialBytes ?? 0))
            space.byClass = stats.run.peakBytesByClass
            let reachedTarget = [.completed, .completedAfterKills, .verificationFailed].contains(outcome)
            space.minFreeBytes = reachedTarget ? minimumFreeBytes(initialBytes: space.initialBytes ?? 0) : nil
        }
        if hasWorkCopy {
            space.finalBytes = workCopyBytes
        }
        var phases = self.phases
        phases.reportMs = milliseconds(ContinuousClock.now - reporting)
        return Report(
            jobID: job.id, outcome: outcome, failure: outcome == .completed || outcome == .completedAfterKills ? nil : failure,
            plan: PlanSummary(name: job.plan.name, sha256: job.plan.sha256, targetVersion: target, runner: job.plan.runner),
            options: job.options, sqlite: launcher.engine.report(for: job.device), input: input, launches: launches,
            steps: stepsWithBatchSizes, space: space,
            final: final, warnings: warnings + ledger.warnings,
            timings: Timings(totalMs: milliseconds(ContinuousClock.now - started), uploadMs: job.uploadMs, phases: phases),
            killSweep: killSweep, diskFullSweep: diskFullSweep, powerLossSweep: powerLossSweep, firstLaunch: firstLaunchPath)
    }

    /// The ledger's steps, each chunked one with the rows its plan commits per batch.
    private var stepsWithBatchSizes: [StepReport] {
        ledger.entries.map { entry in
            var step = entry
            step.batchRows = job.plan.step(version: entry.version)?.action.batchRows
            return step
        }
    }

    /// The least free space with which the run succeeds: the highest point any step
    /// reached. Not the run's own peak: in WAL mode that includes the checkpoint when the
    /// last connection closes, which SQLite skips silently when the disk is full (the WAL
    /// stays, the data is safe), so a phone with less space still completes.
    private func minimumFreeBytes(initialBytes: Int64) -> Int64 {
        let stepPeak = ledger.entries.compactMap(\.peakBytes).max() ?? initialBytes
        return max(0, stepPeak - initialBytes)
    }

    // MARK: - Files and workers

    /// The work copy's bytes on disk: the database and its WAL.
    var workCopyBytes: Int64 {
        (fileSize(job.directory.work.path) ?? 0) + (fileSize(job.directory.work.wal) ?? 0)
    }

    /// Copies the upload (and its WAL) to the work copy inside the kernel, in place of any
    /// earlier one, and answers the milliseconds it took. The hash of the upload comes
    /// after (`UploadReading`, beside the launches): hashing during the copy gained nothing,
    /// and one pass that reads, hashes and writes cost more than the kernel's copy (the
    /// performance doc has the figures).
    static func makeWorkCopy(_ job: Job, durable: Bool) throws -> Int {
        let manager = FileManager.default
        let work = job.directory.work
        for file in work.all where manager.fileExists(atPath: file) {
            try manager.removeItem(atPath: file)
        }
        let copying = ContinuousClock.now
        try job.input.copy(to: work, durable: durable)
        return milliseconds(ContinuousClock.now - copying)
    }

    /// Runs the inspecting worker (on the upload where it lies, or on the work copy),
    /// timing it as the counts' phase.
    mutating func inspect(_ inspector: WorkerLauncher.Started) -> Result<WorkerReport?, OutOfJobTime> {
        let counting = ContinuousClock.now
        defer { phases.countMs = milliseconds(ContinuousClock.now - counting) }
        return Result { () throws(OutOfJobTime) in try runReportingWorker(inspector) }
    }

    /// - Parameter startVersion: where the input stands as the plan's runner keeps versions
    ///   (GRDB's are not in the header); the header's `user_version` when nil.
    func writeInstructions(tablesBefore: [String: Int64]?, startVersion: Int? = nil) throws {
        let instructions = WorkerInstructions(
            plan: String(decoding: job.plan.document, as: UTF8.self), target: job.options.target,
            spaceCheck: job.options.spaceCheck, verify: job.options.verify, connection: job.device.connection,
            sqliteVersion: job.device.sqliteVersion, sqliteCheck: job.options.sqliteCheck, tablesBefore: tablesBefore,
            startVersion: startVersion ?? input.userVersion, deviceSpeed: job.options.deviceSpeed,
            deviceWatchdogMs: job.options.deviceSpeed == nil ? nil : job.options.watchdogMs)
        let data = try JSONEncoder().encode(instructions)
        // Replaced whole (a new file renamed over it): launch 1's worker may be reading the
        // first version while the inspection's counts are added.
        try data.write(to: URL(fileURLWithPath: job.directory.workerInstructions), options: .atomic)
    }

    /// Runs an `inspect` or `verify` worker and decodes the one line it prints; nil when
    /// the worker died or printed nothing usable (a line its death cut short included).
    /// Throws when the worker cannot be started (Preflight's failure, not the file's), and
    /// `OutOfJobTime` when the job's deadline killed it.
    func runReportingWorker(_ task: Worker.Task, extraArguments: [String] = []) throws -> WorkerReport? {
        try runReportingWorker(launcher.start(task, extraArguments: extraArguments))
    }

    /// Runs a worker started already (`WorkerLauncher.start`), as `runReportingWorker(_:extraArguments:)`.
    func runReportingWorker(_ worker: WorkerLauncher.Started) throws(OutOfJobTime) -> WorkerReport? {
        let task = worker.task
        let run = launcher.run(worker)
        if run.killedByJobDeadline {
            // The verifier builds its fresh install in this file and removes it when done:
            // while it is there, the replay of the plan was what ran out of time.
            let replaying = FileManager.default.fileExists(atPath: job.directory.freshInstall)
            throw OutOfJobTime(
                phase: task == .inspect ? .check : task == .fingerprint ? .sweep : replaying ? .replay : .verify)
        }
        guard let line = run.lines.last else { return nil }
        return try? JSONDecoder().decode(WorkerReport.self, from: Data(line))
    }
}

/// What only the report needs from the upload: its SHA-256 and its WAL's check (which
/// reads every frame).
struct UploadReading: Sendable {
    /// The hash in hex.
    var sha256: String
    var elapsedMs: Int
    /// What the WAL check found (nil: nothing, or no WAL).
    var walFinding: WALFinding?

    /// Hashes the database at `path` (unless its hash is `knownSHA256`), and with `walCheck`
    /// compares that WAL with it; throws when the database cannot be read.
    static func read(
        _ path: String, knownSHA256: String?, walCheck: (wal: String, database: DatabaseHeader)?
    ) throws(FileError) -> UploadReading {
        let started = ContinuousClock.now
        let sha256: String
        if let knownSHA256 { sha256 = knownSHA256 } else { sha256 = try sha256OfFile(path) }
        return UploadReading(
            sha256: sha256, elapsedMs: milliseconds(ContinuousClock.now - started),
            walFinding: walCheck.flatMap { WALFinding.check(walPath: $0.wal, databasePath: path, database: $0.database) })
    }
}

/// SHA-256 of a file, read in pieces (`readPieces`).
func sha256OfFile(_ path: String) throws(FileError) -> String {
    let source = open(path, O_RDONLY | O_CLOEXEC)
    guard source >= 0 else { throw FileError("cannot open", path) }
    defer { close(source) }
    var hasher = SHA256()
    try readPieces(of: source, path: path) { hasher.update(buffer: $0) }
    return hasher.finalizeHex()
}

private func signalName(_ signal: Int32) -> String {
    switch signal {
    case SIGSEGV: return "SIGSEGV"
    case SIGBUS: return "SIGBUS"
    case SIGABRT: return "SIGABRT"
    case SIGKILL: return "SIGKILL"
    case SIGXFSZ: return "SIGXFSZ, file size limit"
    case SIGXCPU: return "SIGXCPU, CPU time limit"
    case SIGILL: return "SIGILL"
    case SIGTRAP: return "SIGTRAP"
    default: return "signal \(signal)"
    }
}
