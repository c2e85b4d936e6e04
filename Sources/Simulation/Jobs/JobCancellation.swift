import Glibc
import Synchronization

/// Lets another thread stop a running job: a client that went away, or a server
/// shutting down after its grace period. Cancelling kills the job's current worker at
/// once; the runner then returns promptly.
public final class JobCancellation: Sendable {
    private struct State {
        var cancelled = false
        var workerPID: pid_t?
    }

    private let state = Mutex(State())

    public init() {}

    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    public func cancel() {
        state.withLock { state in
            state.cancelled = true
            if let pid = state.workerPID { kill(pid, SIGKILL) }
        }
    }

    /// Records the worker now running, killing it at once if the job was cancelled.
    func workerStarted(_ pid: pid_t) {
        state.withLock { state in
            state.workerPID = pid
            if state.cancelled { kill(pid, SIGKILL) }
        }
    }

    /// Called before the worker is reaped, so that its pid is never signalled after reuse.
    func workerEnding() {
        state.withLock { $0.workerPID = nil }
    }
}
