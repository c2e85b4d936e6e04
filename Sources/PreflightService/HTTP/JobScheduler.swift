import Foundation

/// Admission and slots: at most `maxRunning` jobs run, at most `queueLength` more are
/// admitted (uploading, or uploaded and waiting for a slot, in arrival order); anyone
/// beyond both is turned away (503) before their upload is read.
final class JobScheduler: @unchecked Sendable {
    /// A place held by one admitted job until `finish`.
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

    /// Waits until the job may run, in arrival order of finished uploads. Polls
    /// `giveUp` (the client left, the server stops) every 100 ms; answers false if it
    /// gave up, and the ticket is then finished.
    func waitForSlot(_ ticket: Ticket, giveUp: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        uploading.remove(ticket.number)
        waiting.append(ticket.number)
        while true {
            if waiting.first == ticket.number, running.count < maxRunning {
                waiting.removeFirst()
                running.insert(ticket.number)
                condition.broadcast()
                return true
            }
            if giveUp() {
                waiting.removeAll { $0 == ticket.number }
                condition.broadcast()
                return false
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.1))
        }
    }

    /// Gives the place back, whatever state the job was in; finishing twice is harmless.
    func finish(_ ticket: Ticket) {
        condition.lock()
        defer { condition.unlock() }
        uploading.remove(ticket.number)
        waiting.removeAll { $0 == ticket.number }
        running.remove(ticket.number)
        condition.broadcast()
    }

    var load: Load {
        condition.lock()
        defer { condition.unlock() }
        return Load(running: running.count, queued: uploading.count + waiting.count, uploading: uploading.count)
    }

    /// Seconds a turned-away client should wait: a rough guess from the queue's length.
    var retryAfterSeconds: Int { 5 + 5 * (queueLength / max(1, maxRunning)) }
}
