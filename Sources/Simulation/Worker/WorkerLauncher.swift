import Foundation
import Glibc
import MigrationCore

/// Starts `preflight worker` processes for a job and collects what they print.
struct WorkerLauncher {
    let executable: String
    let job: Job
    /// The job the workers' stderr lines name (`WorkerStderr`): a sweep's replays run in
    /// a directory of their own inside the job's.
    let jobID: String
    let cancellation: JobCancellation
    /// When the job's `max_job_seconds` run out: every worker is killed then, whatever it does.
    let jobDeadline: ContinuousClock.Instant?

    /// The job's time is up.
    var isPastJobDeadline: Bool { jobDeadline.map { ContinuousClock.now >= $0 } ?? false }

    /// What one worker process did.
    struct Run {
        var lines: [[UInt8]] = []
        var termination: ChildProcess.Termination = .exited(0)
        /// The watchdog killed it at the deadline.
        var killedByWatchdog = false
        /// It was killed because the job's own deadline came first (`max_job_seconds`).
        var killedByJobDeadline = false
        var elapsedMs = 0
        /// When the process started, less its wait for the go: the instant `elapsedMs` counts from.
        var startedAt: ContinuousClock.Instant?
        /// What the low-memory killer saw of a `migrate` worker (and whether it killed it).
        var memory: LowMemoryKiller.Observation?
    }

    /// A worker process started ahead of its turn, waiting for its go: by then it has
    /// loaded its binary and confined itself, so that this is not on the job's path. Run it once (`run(_:)`), or `discard()` it.
    final class Started {
        let task: Worker.Task
        fileprivate let child: ChildProcess
        fileprivate var ran = false

        var pid: pid_t { child.pid }

        fileprivate init(task: Worker.Task, child: ChildProcess) {
            self.task = task
            self.child = child
        }

        /// Ends a worker the job no longer needs (it has not read anything of the job yet).
        func discard() {
            guard !ran else { return }
            ran = true
            child.kill()
            _ = child.wait()
        }

        deinit { discard() }
    }

    /// Starts a `task` worker that waits for its go (`--await-start`).
    func start(_ task: Worker.Task, extraArguments: [String] = []) throws -> Started {
        Started(task: task, child: try ChildProcess(
            executable: executable,
            arguments: ["worker", task.rawValue, "--job", job.directory.path, "--parent", String(getpid()), "--await-start"]
                + extraArguments,
            environment: environment(for: task)))
    }

    /// Starts `task` and runs it at once (`run(_:watchdogMs:onLine:)`).
    func run(_ task: Worker.Task, extraArguments: [String] = []) throws -> Run {
        run(try start(task, extraArguments: extraArguments))
    }

    /// Gives `started` its go and reads it to its end. With `watchdogMs` (the device's
    /// time, scaled by the options' `time_scale`), the process is SIGKILLed when that
    /// much wall-clock time has passed since it was started, less the time it waited for
    /// its go (`ChildProcess.go`): process start is part of a phone's launch, the wait is
    /// not. A `migrate` worker is watched by the device's low-memory killer. Every worker
    /// is also killed at the job's deadline, which takes precedence when both have passed.
    func run(
        _ started: Started, watchdogMs: Int? = nil, onLine: (_ line: [UInt8], _ atMs: Int) -> Void = { _, _ in }
    ) -> Run {
        let child = started.child
        started.ran = true
        cancellation.workerStarted(child.pid)
        child.go()
        let killer = started.task == .migrate ? LowMemoryKiller(watching: child.pid, limitBytes: job.device.memoryLimitBytes) : nil
        let watchdog = watchdogMs.map { child.startedAt + job.options.realDuration(ofDeviceMs: $0) }
        let deadline = [watchdog, jobDeadline].compactMap { $0 }.min()
        var run = Run()
        var expired = false
        while true {
            let (line, lineExpired) = child.readLine(deadline: deadline, shouldStop: { cancellation.isCancelled })
            if let line {
                run.lines.append(line)
                onLine(line, milliseconds(ContinuousClock.now - child.startedAt))
                if let deadline, ContinuousClock.now >= deadline {
                    expired = true
                    break
                }
                continue
            }
            expired = lineExpired
            break
        }
        if expired {
            run.killedByJobDeadline = isPastJobDeadline
            run.killedByWatchdog = !run.killedByJobDeadline
        }
        if expired || cancellation.isCancelled { child.kill() }
        run.memory = killer?.stop()
        cancellation.workerEnding()
        run.termination = child.wait()
        run.elapsedMs = milliseconds(ContinuousClock.now - child.startedAt)
        run.startedAt = child.startedAt
        return run
    }

    /// The SQLite the job's device runs on (`SQLiteEngine.forDevice`).
    var engine: SQLiteEngine {
        SQLiteEngine.forDevice(job.device, among: SQLiteEngine.installed(forExecutable: executable))
    }

    /// A minimal environment: temp files in the job's own directory (so that the space
    /// VFS sees them where the quota applies), the job's id, the device's engine first on
    /// the loader's path, nothing else of the parent's but the test-only fault hook.
    ///
    /// A synthesis (`sample`, `synthesize`) runs on this machine's SQLite: the files it makes
    /// are the same whichever device asked (a matrix row's file serves every device's cell),
    /// and the same as `preflight synthesize` makes.
    private func environment(for task: Worker.Task) -> [String: String] {
        // No Swift backtracer: a crashing worker should die at once, as an app does.
        var result = [
            "SQLITE_TMPDIR": job.directory.path, "TMPDIR": job.directory.path, "PATH": "/usr/bin:/bin",
            "SWIFT_BACKTRACE": "enable=no", WorkerStderr.jobVariable: jobID,
        ]
        if let directory = engine.directory, task != .sample, task != .synthesize {
            result["LD_LIBRARY_PATH"] = directory
        }
        if let fault = ProcessInfo.processInfo.environment[Worker.faultVariable] {
            result[Worker.faultVariable] = fault
        }
        return result
    }
}

/// A worker killed at the job's deadline (`max_job_seconds`), and what it was doing.
struct OutOfJobTime: Error {
    /// `failure.phase` of a `time_limit` failure (docs/CONTRACT.md §3).
    enum Phase: String {
        case check, launch, verify, replay, sweep

        var activity: String {
            switch self {
            case .check: return "check of the uploaded file"
            case .launch: return "launches"
            case .verify: return "verification"
            case .replay: return "fresh-install replay of the plan (schema comparison)"
            case .sweep: return "kill, disk-full or power-loss sweep (the run replayed with a fault at each point)"
            }
        }
    }

    let phase: Phase
}
