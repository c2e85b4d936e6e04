import Simulation
import Synchronization

/// The server's life after SIGTERM: it stops taking jobs, lets running ones finish
/// within the grace period, then cancels the rest.
final class Lifecycle: Sendable {
    private struct State {
        var draining = false
        /// Jobs running now, by job id.
        var running: [String: JobCancellation] = [:]
        /// Exchanges that have begun and not ended: their answer is not sent yet.
        var inFlight = 0
        /// The grace period is over: every job, even one starting now, is cancelled.
        var cancelling = false
    }

    private let state = Mutex(State())

    var isDraining: Bool { state.withLock { $0.draining } }

    func beginDraining() { state.withLock { $0.draining = true } }

    /// An exchange begins (its headers are in); `Daemon` calls it and `leave` in pairs.
    func enter() { state.withLock { $0.inFlight += 1 } }

    /// An exchange ended: answered, or broken off.
    func leave() { state.withLock { $0.inFlight -= 1 } }

    var inFlight: Int { state.withLock { $0.inFlight } }

    var runningJobs: Int { state.withLock { $0.running.count } }

    func register(_ cancellation: JobCancellation, id: String) {
        let cancelNow = state.withLock { state -> Bool in
            state.running[id] = cancellation
            return state.cancelling
        }
        if cancelNow { cancellation.cancel() }
    }

    func unregister(id: String) { state.withLock { $0.running[id] = nil } }

    /// Kills every running job's worker; their handlers then answer and clean up.
    func cancelAll() {
        let all = state.withLock { state -> [JobCancellation] in
            state.cancelling = true
            return Array(state.running.values)
        }
        for cancellation in all { cancellation.cancel() }
    }
}
