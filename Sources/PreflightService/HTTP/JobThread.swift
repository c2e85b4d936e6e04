import Foundation
import Synchronization

/// A job's work on a thread of its own, so that the thread that asked for it (the one
/// that waits while the connection is suspended, `Daemon`) can keep watch over its
/// client's socket while it runs: the plan's decoding and the run alike.
enum JobThread {
    /// Runs `work` on a new thread, calling `watch` on this one every 100 ms until it
    /// ends; answers what it answered.
    static func run<Value: Sendable>(watch: () -> Void, _ work: @escaping @Sendable () -> Value) -> Value {
        let box = ResultBox<Value>()
        let thread = Thread { box.set(work()) }
        // As much stack as a main thread has: a secondary thread's default is smaller on
        // some platforms (512 KiB on Darwin).
        thread.stackSize = 8 << 20
        thread.start()
        while true {
            if let result = box.wait(milliseconds: 100) { return result }
            watch()
        }
    }
}

/// The result of a job's work, handed from the job's thread to the one watching.
private final class ResultBox<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func set(_ result: Value) {
        value.withLock { $0 = result }
        done.signal()
    }

    /// The result once it is there, or nil after `milliseconds`; only one wait can succeed.
    func wait(milliseconds: Int) -> Value? {
        guard done.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else { return nil }
        return value.withLock { $0 }
    }
}
