import Foundation

/// Admission and slots. An upload in flight holds no place: it holds only the bytes it has
/// written to disk, against a budget of bytes in flight (`uploadBudget.bytes`), and counts
/// against the uploads in flight (`uploadBudget.uploads`, large: libmicrohttpd's event loop
/// makes an idle one cheap). Once its body is complete, its job is admitted (`admit`): at
/// most `maxRunning` jobs run, at most `queueLength` more wait for a slot in the order they
/// were admitted; anyone beyond both is turned away (503), and a request that comes while
/// every place is taken is turned away before its upload is read.
///
/// Fair shares: one client (an address, or a token where tokens are configured) has at
/// most `share.uploads` uploads in flight and holds at most `share.jobs` places (waiting or
/// running); past either it is turned away (429) while the other places stay open to
/// everyone else. Ten clients trickling uploads then hold bytes, not places: a real request
/// from an eleventh is admitted as soon as its body is in.
///
/// A ticket is given back exactly once: by `run` (the job ran, or gave up waiting), by a
/// refused `admit`, or by `withdraw` (the upload never got that far).
final class JobScheduler: @unchecked Sendable {
    /// An upload in flight, then the place of its admitted job.
    struct Ticket: Sendable, Hashable {
        fileprivate let number: Int
        /// Who holds it, as `beginUpload` was told.
        let client: String
    }

    /// What one client may hold at once (`max_uploads_per_client`, `max_jobs_per_client`).
    struct Share: Sendable, Equatable {
        var uploads: Int
        var jobs: Int

        /// No share smaller than the whole: for a scheduler whose clients are not told apart.
        static let unlimited = Share(uploads: .max, jobs: .max)
    }

    /// What all uploads in flight may hold at once (`max_uploads_in_flight`,
    /// `max_upload_bytes_in_flight`).
    struct UploadBudget: Sendable, Equatable {
        var uploads: Int
        var bytes: Int64

        static let unlimited = UploadBudget(uploads: .max, bytes: .max)
    }

    /// Why an upload or a job was not admitted.
    enum Refusal: Error, Equatable {
        /// Every slot and queue place is taken (503).
        case full
        /// The uploads in flight are `limit` already (503).
        case uploads(limit: Int)
        /// The uploads in flight hold `limit` bytes of disk already (503).
        case uploadBytes(limit: Int64)
        /// The client already has `limit` uploads arriving (429).
        case clientUploads(limit: Int)
        /// The client already holds `limit` places (429).
        case clientJobs(limit: Int)
    }

    struct Load: Sendable, Equatable {
        var running: Int
        /// Admitted and waiting for a slot.
        var queued: Int
        /// Uploads in flight, which hold no place.
        var uploading: Int
    }

    let maxRunning: Int
    let queueLength: Int
    let share: Share
    let uploadBudget: UploadBudget
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var nextNumber = 0
    /// Uploads in flight, with the bytes each has written.
    private var uploading: [Int: Int64] = [:]
    private var uploadBytes: Int64 = 0
    private var waiting: [Int] = []
    private var running: Set<Int> = []
    /// Slots lent to running jobs for more of their work at once (a matrix's cells).
    private var lent = 0
    /// Per client: its places (waiting or running), and its uploads in flight.
    private var jobsByClient: [String: Int] = [:]
    private var uploadsByClient: [String: Int] = [:]

    init(maxRunning: Int, queueLength: Int, share: Share = .unlimited, uploadBudget: UploadBudget = .unlimited) {
        self.maxRunning = maxRunning
        self.queueLength = queueLength
        self.share = share
        self.uploadBudget = uploadBudget
    }

    /// An upload of `client` may start: it holds no place, only its bytes from now on
    /// (`take`). Refused when every place is taken already, so that nobody uploads only to
    /// be turned away at the end.
    func beginUpload(for client: String) throws(Refusal) -> Ticket {
        condition.lock()
        defer { condition.unlock() }
        // The client's own share first: a client over it learns so even when the server is full.
        if jobsByClient[client, default: 0] >= share.jobs { throw .clientJobs(limit: share.jobs) }
        if uploadsByClient[client, default: 0] >= share.uploads { throw .clientUploads(limit: share.uploads) }
        guard waiting.count + running.count < maxRunning + queueLength else { throw .full }
        guard uploading.count < uploadBudget.uploads else { throw .uploads(limit: uploadBudget.uploads) }
        nextNumber += 1
        uploading[nextNumber] = 0
        uploadsByClient[client, default: 0] += 1
        return Ticket(number: nextNumber, client: client)
    }

    /// The upload of `ticket` writes `count` more bytes to disk, within the budget of
    /// bytes in flight; refused (and nothing taken) past it.
    func take(_ count: Int, for ticket: Ticket) throws(Refusal) {
        condition.lock()
        defer { condition.unlock() }
        guard let held = uploading[ticket.number] else { return }
        guard uploadBytes + Int64(count) <= uploadBudget.bytes else { throw .uploadBytes(limit: uploadBudget.bytes) }
        uploading[ticket.number] = held + Int64(count)
        uploadBytes += Int64(count)
    }

    /// The upload of `ticket` is complete: its job takes a place, in its client's share,
    /// and its bytes leave the budget of uploads in flight. A refusal gives the ticket back.
    func admit(_ ticket: Ticket) throws(Refusal) {
        condition.lock()
        defer { condition.unlock() }
        guard endUpload(ticket) else { return }
        if jobsByClient[ticket.client, default: 0] >= share.jobs { throw .clientJobs(limit: share.jobs) }
        guard waiting.count + running.count < maxRunning + queueLength else { throw .full }
        waiting.append(ticket.number)
        jobsByClient[ticket.client, default: 0] += 1
    }

    /// Waits until the admitted job may run (in the order of admission), runs `job` in
    /// its slot, and gives the place back when `job` returns or throws.
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

    /// Gives back what an upload that will not become a job holds: its upload failed or
    /// was abandoned.
    func withdraw(_ ticket: Ticket) {
        condition.lock()
        defer { condition.unlock() }
        _ = endUpload(ticket)
    }

    /// Ends the upload of `ticket` (under the lock), its bytes given back; false when it
    /// had ended already.
    private func endUpload(_ ticket: Ticket) -> Bool {
        guard let held = uploading.removeValue(forKey: ticket.number) else { return false }
        uploadBytes -= held
        Self.decrement(&uploadsByClient, ticket.client)
        return true
    }

    var load: Load {
        condition.lock()
        defer { condition.unlock() }
        return Load(running: running.count + lent, queued: waiting.count, uploading: uploading.count)
    }

    /// Seconds a turned-away client should wait: a rough guess from the queue's length.
    var retryAfterSeconds: Int { 5 + 5 * (queueLength / max(1, maxRunning)) }

    // MARK: - Slots

    private func waitForSlot<Failure: Error>(_ ticket: Ticket, checking check: () throws(Failure) -> Void) throws(Failure) {
        condition.lock()
        defer { condition.unlock() }
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
