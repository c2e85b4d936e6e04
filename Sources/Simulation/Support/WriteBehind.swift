import CProcess
import Foundation

/// Sends a file's pages to the disk while the file is still being written: a thread of
/// its own hands each range the writer reports to the kernel's writeback, so that the
/// sync at the end finds most of the file written already.
///
/// A thread, not the writer itself, because starting the writeback waits whenever the
/// disk's queue is full: on the copying thread it made a large copy take about twice as
/// long.
final class WriteBehind: @unchecked Sendable {
    private let descriptor: Int32
    private let condition = NSCondition()
    // Guarded by `condition`: how far the writer has written, and whether it is done.
    private var written: Int64 = 0
    private var stopping = false
    private let stopped = DispatchSemaphore(value: 0)
    private var joined = false

    /// Starts following `descriptor`, which must stay open until `stop()` returns.
    init(_ descriptor: Int32) {
        self.descriptor = descriptor
        Thread.detachNewThread { [self] in follow() }
    }

    /// The writer has written the file's first `bytes`.
    func wrote(through bytes: Int64) {
        condition.lock()
        written = bytes
        condition.signal()
        condition.unlock()
    }

    /// Hands over what is left and waits for the thread to end; later calls return at once.
    func stop() {
        guard !joined else { return }
        joined = true
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
        stopped.wait()
    }

    private func follow() {
        var handedOver: Int64 = 0
        while true {
            condition.lock()
            while written == handedOver && !stopping { condition.wait() }
            let through = written
            condition.unlock()
            if through == handedOver { break }
            // Only a head start: the caller's fdatasync is what makes the file durable and
            // what reports a failing disk.
            _ = preflight_start_writeback(descriptor, handedOver, through - handedOver)
            handedOver = through
        }
        stopped.signal()
    }
}
