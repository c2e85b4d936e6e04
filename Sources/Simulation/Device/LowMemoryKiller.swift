import Foundation
import Glibc
import MigrationCore

/// The phone's low-memory killer, watching one migrating worker: it reads the worker's
/// resident memory every few milliseconds and, past the device's `memory_limit_bytes`,
/// ends it with SIGKILL, as Android's lmkd ends an app (no signal handler, no cleanup; the
/// next open rolls the step back). An address-space limit (`RLIMIT_AS`) would not do: it
/// counts memory the process never touches, and makes allocations fail instead of killing.
///
/// Without a limit it only watches, so that a step cut by any kill still has the peak
/// memory seen until then.
final class LowMemoryKiller: @unchecked Sendable {
    /// What the watcher saw of one worker.
    struct Observation: Sendable, Equatable {
        /// The worker's peak resident bytes at the last look: since its current step
        /// began, as the worker resets the peak at each step's start.
        var stepPeakBytes: Int64?
        /// Resident bytes when it killed the worker; nil when it did not.
        var killedAtBytes: Int64?
    }

    static let pollInterval = DispatchTimeInterval.milliseconds(5)

    private let pid: pid_t
    private let limitBytes: Int64?
    private let lock = NSLock()
    private var observation = Observation()
    private var poller: PollingThread?

    /// Starts watching `pid` on a thread of its own.
    init(watching pid: pid_t, limitBytes: Int64?) {
        self.pid = pid
        self.limitBytes = limitBytes
        poller = PollingThread(every: Self.pollInterval) { [self] in look() }
    }

    /// Stops watching and answers what it saw. Call it before the worker is reaped, so
    /// that the pid it may kill is never another process's.
    func stop() -> Observation {
        poller?.stop()
        return lock.withLock { observation }
    }

    /// One look at the worker; false once it was killed.
    private func look() -> Bool {
        guard let memory = ProcessMemory.read(pid: pid) else { return true }
        lock.withLock { observation.stepPeakBytes = memory.peakResidentBytes }
        guard let limitBytes, memory.residentBytes > limitBytes else { return true }
        lock.withLock { observation.killedAtBytes = memory.residentBytes }
        kill(pid, SIGKILL)
        return false
    }
}

extension LowMemoryKiller.Observation {
    /// The run's failure when the killer ended the worker during `step` (the `step_started`
    /// event of the step it cut), or nil when it did not kill.
    func failure(step: MigrationEvent?, limitBytes: Int64?) -> Failure? {
        guard let killedAtBytes else { return nil }
        let during = step.map { " during step \($0.version ?? 0) (\"\($0.name ?? "")\")" } ?? ""
        return Failure(
            kind: Failure.Kind.memory, step: step?.version,
            message: "the low-memory killer ended the app\(during): it held \(ByteCount.text(killedAtBytes)) of memory, over the device's memory_limit_bytes of \(ByteCount.text(limitBytes ?? 0)); the step rolled back")
    }
}

extension Failure.Kind {
    /// The worker held more memory than the device's `memory_limit_bytes` and was killed.
    public static let memory = Failure.Kind(rawValue: "memory")
}
