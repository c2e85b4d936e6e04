import Foundation

/// Admission and slots: at most `maxRunning` jobs run, at most `queueLength` more are
/// admitted (uploading, or uploaded and waiting for a slot, in arrival order); anyone
/// beyond both is turned away (503) before their upload is read.
///
/// A ticket is given back exactly once: by `run` (the job ran, or gave up waiting), or
/// by `withdraw` (the job never got that far).
final class JobScheduler: @unchecked Sendable {
    /// A place held by one admitted job.
    struct Ticket: Sendable, Hashable {
        fileprivate let number: Int
    }

    struct Load: Sendable, Equatable {
        var running: Int
        /// Admitted and not running: uploading or waiting for a slot.
        var queued: Int
        /// Of `queued`, those whose upload is still arriving.
        var uploading: Int
    }

    let maxRunning: Int
    let queueLength: Int
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var nextNumber = 0
    private var uploading: Set<Int> = []
    private var waiting: [Int] = []
    private var running: Set<Int> = []

    init(maxRunning: Int, queueLength: Int) {
        self.maxRunning = maxRunning
        self.queueLength = queueLength
    }

    /// A place for a new job, or nil when every slot and queue place is taken.
    func admit() -> Ticket? {
        condition.lock()
        defer { condition.unlock() }
        guard uploading.count + waiting.count + running.count < maxRunning + queueLength else { return nil }
        nextNumber += 1
        uploading.insert(nextNumber)
        return Ticket(number: nextNumber)
    }

    /// Waits until the job may run (in the arrival order of finished uploads), runs
    /// `job` in its slot, and gives the place back when `job` returns or throws.
    ///
    /// While it waits, `check` is called every 100 ms: what it throws (the client left,
    /// the server stops) ends the wait, gives the place back, and is rethrown.
    func run<Value, Failure: Error>(
        _ ticket: Ticket, checking check: () throws(Failure) -> Void, _ job: () throws(Failure) -> Value
    ) throws(Failure) -> Value {
        try waitForSlot(ticket, checking: check)
        defer { leaveSlot(ticket) }
        return try job()
    }

    /// Gives back the place of an admitted job that will not run: its upload failed or
    /// was abandoned.
    func withdraw(_ ticket: Ticket) {
        condition.lock()
        defer { condition.unlock() }
        uploading.remove(ticket.number)
    }

    var load: Load {
        condition.lock()
        defer { condition.unlock() }
        return Load(running: running.count, queued: uploading.count + waiting.count, uploading: uploading.count)
    }

    /// Seconds a turned-away client should wait: a rough guess from the queue's length.
    var retryAfterSeconds: Int { 5 + 5 * (queueLength / max(1, maxRunning)) }

    // MARK: - Slots

    private func waitForSlot<Failure: Error>(_ ticket: Ticket, checking check: () throws(Failure) -> Void) throws(Failure) {
        condition.lock()
        defer { condition.unlock() }
        uploading.remove(ticket.number)
        waiting.append(ticket.number)
        while true {
            if waiting.first == ticket.number, running.count < maxRunning {
                waiting.removeFirst()
                running.insert(ticket.number)
                // The next in line may fit too.
                condition.broadcast()
                return
            }
            do {
                try check()
            } catch {
                waiting.removeAll { $0 == ticket.number }
                condition.broadcast()
                throw error
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.1))
        }
    }

    private func leaveSlot(_ ticket: Ticket) {
        condition.lock()
        defer { condition.unlock() }
        running.remove(ticket.number)
        condition.broadcast()
    }
}
