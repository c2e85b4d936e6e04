import Foundation
import MigrationCore

/// The work of one matrix while it runs: the syntheses and the cells, taken by a pool of
/// threads as a graph in which a cell waits only for its own row's file. The cells are
/// held longest first (`MatrixCellOrder`); a free thread takes the first of them whose
/// file is ready, or makes the file of the first whose file is not begun, so that the
/// files of the long cells are made first and a cell starts as soon as its row's file
/// is there, beside the syntheses of the others. Each cell is a `JobRunner` run in a job
/// directory of its own, its input read where it lies (a fixture, or a file made for its
/// row).
final class MatrixWork: @unchecked Sendable {
    struct Cell: Sendable {
        var row: Int
        var device: Int
    }

    /// What a row's file is, as far as the matrix knows.
    private enum RowFile {
        case pending
        case synthesizing
        case ready(JobInput)
        /// It could not be made: its cells end with this.
        case unusable(Outcome, Failure)
    }

    let request: MatrixRequest
    let directory: JobDirectory
    let parent: JobCancellation
    let workerExecutable: String
    let progress: @Sendable (String) -> Void
    let deadline: ContinuousClock.Instant
    private let cells: [Cell]

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var rows: [MatrixRows.Planned]
    private var files: [RowFile]
    private var waiting: [Int]
    private var results: [Int: MatrixCell] = [:]
    private var running: [JobCancellation] = []
    private var poolDone = false

    init(
        request: MatrixRequest, rows: [MatrixRows.Planned], cells: [Cell], directory: JobDirectory, parent: JobCancellation,
        deadline: ContinuousClock.Instant, workerExecutable: String, progress: @escaping @Sendable (String) -> Void
    ) {
        self.request = request
        self.rows = rows
        self.cells = cells
        self.directory = directory
        self.parent = parent
        self.workerExecutable = workerExecutable
        self.progress = progress
        self.deadline = deadline
        waiting = MatrixCellOrder.longestFirst(cells, rows: rows.map(\.row), devices: request.devices, target: request.target)
        let needed = Set(cells.map(\.row))
        files = rows.enumerated().map { index, planned in
            switch planned.input {
            case .fixture(let input): return .ready(input)
            case .walWithoutDatabase:
                return .unusable(
                    .invalidDatabase,
                    Failure(
                        kind: Failure.Kind.invalidDatabase,
                        message: "a -wal file without its main database file: nothing can open it; give the database beside it"))
            case .freshInstall, .synthesized: return needed.contains(index) ? .pending : .unusable(.failed, Failure(kind: .notRun, message: "not this shard's"))
            }
        }
    }

    // MARK: - The pool

    /// Runs every cell (and the syntheses they need) on `parallelism` threads; returns
    /// when all are done or the time is up.
    func runAll(parallelism: Int, slots: (any MatrixSlots)?) {
        let watcher = Thread { [self] in watchParent() }
        watcher.start()
        let group = DispatchGroup()
        for index in 0..<parallelism {
            group.enter()
            Thread.detachNewThread { [self] in
                // The first thread has the matrix's own slot; the others borrow one per task.
                work(borrowing: index == 0 ? nil : slots)
                group.leave()
            }
        }
        group.wait()
        condition.lock()
        poolDone = true
        condition.unlock()
    }

    private enum Task {
        case synthesize(row: Int, version: Int)
        case freshInstall(row: Int)
        case cell(Int)
    }

    private func work(borrowing slots: (any MatrixSlots)?) {
        while true {
            if let slots, !slots.borrow() {
                // No slot to spare now: another job has it, or waits for it.
                condition.lock()
                let more = !waiting.isEmpty && !isOver
                if more { _ = condition.wait(until: Date(timeIntervalSinceNow: 0.2)) }
                condition.unlock()
                if more { continue } else { return }
            }
            guard let task = next() else {
                slots?.giveBack()
                return
            }
            switch task {
            case .synthesize(let row, let version): synthesize(row: row, version: version)
            case .freshInstall(let row): makeFreshInstall(row: row)
            case .cell(let index): rehearse(index)
            }
            slots?.giveBack()
        }
    }

    /// Whether no task may start any more: the time is up or the matrix was stopped.
    private var isOver: Bool { parent.isCancelled || ContinuousClock.now >= deadline }

    /// The next task: for the first waiting cell (longest first) that can go on, the cell
    /// itself when its row's file is there, else the making of that file; waiting while
    /// only files in the making can make one; nil when there is none left (or the time is up).
    private func next() -> Task? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if isOver { return nil }
            var making = false
            for (position, index) in waiting.enumerated() {
                let row = cells[index].row
                switch files[row] {
                case .ready, .unusable:
                    return .cell(waiting.remove(at: position))
                case .pending:
                    files[row] = .synthesizing
                    if case .synthesized(let version) = rows[row].input { return .synthesize(row: row, version: version) }
                    return .freshInstall(row: row)
                case .synthesizing:
                    making = true
                }
            }
            if !making { return nil }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.2))
        }
    }

    /// Cancels the running cells when the matrix is stopped (a signal, a client gone).
    private func watchParent() {
        while true {
            condition.lock()
            let done = poolDone
            if parent.isCancelled { running.forEach { $0.cancel() } }
            condition.unlock()
            if done { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    private var remainingSeconds: Int { max(1, Int(seconds(deadline - ContinuousClock.now).rounded(.up))) }

    // MARK: - Row files

    private func synthesize(row: Int, version: Int) {
        let file: RowFile
        var made: SynthesizedFile?
        do {
            let place = try JobDirectory.create(parent: directory.path + "/synthesized")
            let first = request.devices[0]
            let synthesized = try SynthesisInWorker.synthesize(
                plan: request.plan, version: version, rows: request.rows, seed: SynthesisRequest.rehearsalSeed, sample: request.sample,
                job: Job(directory: place, plan: request.plan, options: first.options, device: first.profile),
                workerExecutable: workerExecutable, maxSeconds: remainingSeconds, cancellation: parent,
                cache: request.synthesisCache, placement: .link, note: { [progress] in progress("matrix: v\(version): \($0)") })
            // Hashed once for all the row's cells; unreadable, each cell's own hash fails as a run's does.
            file = .ready(JobInput(database: synthesized.path, wal: nil, sha256: synthesized.sha256 ?? (try? sha256OfFile(synthesized.path))))
            made = synthesized
        } catch let error as SynthesisError {
            file = .unusable(.failed, Failure(kind: Failure.Kind(rawValue: error.code), message: "cannot synthesize v\(version): \(error.message)"))
        } catch {
            file = .unusable(.failed, Failure(kind: .internal, message: "cannot synthesize v\(version): \(error)"))
        }
        condition.lock()
        files[row] = file
        if let made {
            rows[row].row.bytes = made.summary.bytes
            rows[row].row.tables = made.summary.tables.mapValues { Int64($0) }
            rows[row].row.cached = made.cached
        }
        condition.broadcast()
        condition.unlock()
        if let made {
            progress("matrix: v\(version) \(made.cached ? "from the synthesis cache" : "synthesized") (\(ByteCount.text(made.summary.bytes)))")
        }
    }

    /// The fresh install's file: empty, as an app finds it on its first launch.
    private func makeFreshInstall(row: Int) {
        let path = directory.path + "/fresh-install.db"
        let file: RowFile = FileManager.default.createFile(atPath: path, contents: Data())
            ? .ready(JobInput(database: path, wal: nil))
            : .unusable(.failed, Failure(kind: .internal, message: "cannot create the fresh install's empty file"))
        condition.lock()
        files[row] = file
        condition.broadcast()
        condition.unlock()
    }

    // MARK: - Cells

    private func rehearse(_ index: Int) {
        let cell = cells[index]
        let device = request.devices[cell.device]
        condition.lock()
        let file = files[cell.row]
        let label = rows[cell.row].row.label(unique: true)
        condition.unlock()
        let result: MatrixCell
        switch file {
        case .ready(let input):
            result = run(input, device: device)
        case .unusable(let outcome, let failure):
            result = MatrixCell(notRun: outcome, failure: failure)
        case .pending, .synthesizing:
            return  // `next` hands out only settled rows.
        }
        condition.lock()
        results[index] = result
        if case .fixture = rows[cell.row].input, rows[cell.row].row.tables == nil {
            rows[cell.row].row.tables = result.report?.input.tables
        }
        let done = results.count
        condition.unlock()
        progress("matrix: [\(done)/\(cells.count)] \(label) on \(device.name): \(Self.describe(result))")
    }

    private func run(_ input: JobInput, device: MatrixDevice) -> MatrixCell {
        let place: JobDirectory
        do {
            place = try JobDirectory.create(parent: directory.path + "/cells")
        } catch {
            return MatrixCell(notRun: .failed, failure: Failure(kind: .internal, message: "cannot create a job directory: \(error)"))
        }
        // Best effort: a cell's files are gone with the matrix's directory at the latest.
        defer { try? FileManager.default.removeItem(atPath: place.path) }
        let cancellation = JobCancellation()
        condition.lock()
        running.append(cancellation)
        condition.unlock()
        defer {
            condition.lock()
            running.removeAll { $0 === cancellation }
            condition.unlock()
        }
        let job = Job(
            directory: place, input: input, plan: request.plan, options: device.options, device: device.profile,
            maxJobSeconds: remainingSeconds)
        return MatrixCell(report: JobRunner(workerExecutable: workerExecutable).run(job, cancellation: cancellation).report)
    }

    static func describe(_ cell: MatrixCell) -> String {
        let launches = cell.launches == 1 ? "1 launch" : "\(cell.launches) launches"
        let time = cell.deviceMs.map { "device \($0) ms" } ?? "\(cell.elapsedMs) ms"
        let failure = cell.failure.flatMap { $0.kind.rawValue == cell.outcome.rawValue ? nil : " (\($0.kind))" } ?? ""
        return "\(cell.outcome.rawValue)\(failure) in \(launches), \(time)"
    }

    // MARK: - The answer

    func answer(identity: MatrixIdentity) -> MatrixAnswer {
        condition.lock()
        defer { condition.unlock() }
        var answerRows = rows.map(\.row)
        for (index, cell) in cells.enumerated() {
            let result = results[index] ?? MatrixCell(
                notRun: .failed,
                failure: Failure(
                    kind: Failure.Kind.timeLimit,
                    message: parent.isCancelled
                        ? "the matrix was stopped before this cell ran"
                        : "the matrix's max_seconds (\(request.maxSeconds) s) ran out before this cell ran",
                    phase: "matrix"))
            answerRows[cell.row].cells[request.devices[cell.device].name] = result
        }
        return MatrixAnswer(
            plan: request.plan.name, devices: request.devices.map(\.name), fromVersion: request.fromVersion,
            targetVersion: request.target, rows: answerRows, identity: identity, shard: request.shard)
    }
}
