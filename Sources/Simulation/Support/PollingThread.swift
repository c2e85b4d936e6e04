import Foundation

/// A thread of its own that calls `tick` every `interval` until `tick` answers false or
/// `stop` is called; `stop` wakes it at once instead of waiting out the interval, since
/// the job waits for it after each launch. The runner's watchers of a worker use it: its
/// memory (`LowMemoryKiller`) and its files' sizes (`SpaceSampler`).
final class PollingThread: @unchecked Sendable {
    private let lock = NSLock()
    private var stopping = false
    private let wake = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    init(every interval: DispatchTimeInterval, _ tick: @escaping @Sendable () -> Bool) {
        Thread.detachNewThread { [self] in
            while !lock.withLock({ stopping }), tick() {
                _ = wake.wait(timeout: .now() + interval)
            }
            ended.signal()
        }
    }

    /// Ends the thread and waits for it: no `tick` runs after this returns.
    func stop() {
        lock.withLock { stopping = true }
        wake.signal()
        ended.wait()
    }
}
