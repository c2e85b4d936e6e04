import Foundation

/// Admission and slots: at most `maxRunning` jobs run, at most `queueLength` more are
/// admitted (uploading, or uploaded and waiting for a slot, in arrival order); anyone
/// beyond both is turned away (503) before their upload is read.
///
/// Fair shares: one client (an address, or a token where tokens are configured) holds at
/// most `share.uploads` places whose upload is still arriving and `share.jobs` places in
/// all (uploading, waiting or running); past either it is turned away (429) while the
/// other places stay open to everyone else. Without the shares, a client trickling ten
/// uploads would hold every place and lock every other client out while no job runs.
///
/// A ticket is given back exactly once: by `run` (the job ran, or gave up waiting), or
/// by `withdraw` (the job never got that far).
final class JobScheduler: @unchecked Sendable {
    /// A place held by one admitted job.
    struct Ticket: Sendable, Hashable {
        fileprivate let number: Int
        /// Who holds it, as `admit` was told.
        let client: String
    }

    /// What one client may hold at once (`max_uploads_per_client`, `max_jobs_per_client`).
    struct Share: Sendable, Equatable {
        var uploads: Int
        var jobs: Int

        /// No share smaller than the whole: for a scheduler whose clients are not told apart.
        static let unlimited = Share(uploads: .max, jobs: .max)
    }

    /// Why a job was not admitted.
    enum Refusal: Error, Equatable {
        /// Every slot and queue place is taken (503).
        case full
        /// The client already has `limit` uploads arriving (429).
        case clientUploads(limit: Int)
        /// The client already holds `limit` places (429).
        case clientJobs(limit: Int)
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
    let share: Share
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var nextNumber = 0
    private var uploading: Set<Int> = []
    private var waiting: [Int] = []
    private var running: Set<Int> = []
    /// Slots lent to running jobs for more of their work at once (a matrix's cells).
    private var lent = 0
    /// Per client: its places in all, and of those the ones still uploading.
    private var jobsByClient: [String: Int] = [:]
    private var uploadsByClient: [String: Int] = [:]

    init(maxRunning: Int, queueLength: Int, share: Share = .unlimited) {
        self.maxRunning = maxRunning
        self.queueLength = queueLength
        self.share = share
    }

    /// A place for a new job of `client`, its upload arriving from now.
    func admit(for client: String) throws(Refusal) -> Ticket {
        condition.lock()
        defer { condition.unlock() }
        // The client's own share first: a client over it learns so even when the server is full.
        if jobsByClient[client, default: 0] >= share.jobs { throw .clientJobs(limit: share.jobs) }
        if uploadsByClient[client, default: 0] >= share.uploads { throw .clientUploads(limit: share.uploads) }
        guard uploading.count + waiting.count + running.count < maxRunning + queueLength else { throw .full }
        nextNumber += 1
        uploading.insert(nextNumber)
        jobsByClient[client, default: 0] += 1
        uploadsByClient[client, default: 0] += 1
        return Ticket(number: nextNumber, client: client)
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
        guard uploading.remove(ticket.number) != nil else { return }
        Self.decrement(&uploadsByClient, ticket.client)
        Self.decrement(&jobsByClient, ticket.client)
    }

    var load: Load {
        condition.lock()
        defer { condition.unlock() }
        return Load(running: running.count + lent, queued: uploading.count + waiting.count, uploading: uploading.count)
    }

    /// Seconds a turned-away client should wait: a rough guess from the queue's length.
    var retryAfterSeconds: Int { 5 + 5 * (queueLength / max(1, maxRunning)) }

    // MARK: - Slots

    private func waitForSlot<Failure: Error>(_ ticket: Ticket, checking check: () throws(Failure) -> Void) throws(Failure) {
        condition.lock()
        defer { condition.unlock() }
        if uploading.remove(ticket.number) != nil { Self.decrement(&uploadsByClient, ticket.client) }
        waiting.append(ticket.number)
        while true {
            if waiting.first == ticket.number, running.count + lent < maxRunning {
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
                Self.decrement(&jobsByClient, ticket.client)
                condition.broadcast()
                throw error
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.1))
        }
    }

    /// Lends a running job one more slot (a matrix's next cell): only a free slot that no
    /// admitted job waits for, so that a matrix counts against the slots as its cells
    /// would and never keeps another job waiting longer than one cell.
    func borrowSlot() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard waiting.isEmpty, running.count + lent < maxRunning else { return false }
        lent += 1
        return true
    }

    /// Gives a lent slot back.
    func returnSlot() {
        condition.lock()
        defer { condition.unlock() }
        lent -= 1
        condition.broadcast()
    }

    private func leaveSlot(_ ticket: Ticket) {
        condition.lock()
        defer { condition.unlock() }
        running.remove(ticket.number)
        Self.decrement(&jobsByClient, ticket.client)
        condition.broadcast()
    }

    /// One place fewer for `client`; a client holding none is forgotten.
    private static func decrement(_ counts: inout [String: Int], _ client: String) {
        let left = counts[client, default: 0] - 1
        counts[client] = left > 0 ? left : nil
    }
}
