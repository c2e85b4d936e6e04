import Dispatch
import Glibc
import Simulation
import Synchronization

/// SIGINT (Ctrl-C) and SIGTERM while `preflight run` rehearses: the job is cancelled (its
/// worker killed at once, no other started), so that the run returns, removes its job
/// directory, which holds a full copy of the user's database, and exits 128 + the signal.
///
/// The signals arrive as events on a queue of their own (libdispatch), never in a signal
/// handler; the workers are in process groups of their own (`ChildProcess`), so a Ctrl-C
/// at the terminal reaches this process only, and a worker dies when the job is cancelled,
/// after `received` is set.
final class StopSignals: @unchecked Sendable {
    private let signal = Mutex<Int32?>(nil)
    /// Only touched on the thread that made them (`release`).
    private var sources: [any DispatchSourceSignal] = []

    init(cancelling cancellation: JobCancellation) {
        let queue = DispatchQueue(label: "preflight.run.signals")
        for number in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in
                self?.signal.withLock { $0 = $0 ?? number }
                cancellation.cancel()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The first stop signal that arrived, if any.
    var received: Int32? { signal.withLock { $0 } }

    func release() {
        for source in sources { source.cancel() }
        sources.removeAll()
    }
}
