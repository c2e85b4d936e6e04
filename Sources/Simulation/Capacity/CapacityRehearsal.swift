import Foundation
import MigrationCore
import Synchronization

/// Runs a capacity search (docs/CONTRACT.md §8): each size is a database synthesized in a worker
/// from the plan's own SQL at `from_version`, then rehearsed by the real `JobRunner` (real
/// workers, real watchdog kills, the space VFS's accounting), exactly as `preflight run`
/// rehearses a file. Used by `preflight capacity` and `POST /v1/capacity` alike.
///
/// The search directory (a `JobDirectory`) holds the sample as its `input` when there is
/// one; each size gets a job directory of its own under `points/`, removed once measured.
public final class CapacityRehearsal: WorkerStarting, Sendable {
    let workerExecutable: String

    public init(workerExecutable: String) {
        self.workerExecutable = workerExecutable
    }

    public func run(
        _ request: CapacityRequest, directory: JobDirectory, cancellation: JobCancellation,
        progress: (String) -> Void = { _ in }
    ) throws(CapacityError) -> CapacityAnswer {
        let started = ContinuousClock.now
        let deadline = started + .seconds(request.maxSeconds)
        let synthesis = Job(directory: directory, plan: request.plan, options: request.options, device: request.device)
        let launcher = WorkerLauncher(
            executable: workerExecutable, job: synthesis, jobID: synthesis.id, cancellation: cancellation, jobDeadline: deadline)
        let sample = try measureSample(directory, request: request, launcher: launcher)
        let fromVersion = request.fromVersion ?? sample?.userVersion ?? 1
        guard (1..<request.target).contains(fromVersion) else {
            throw CapacityError(
                code: "invalid_from",
                "from_version must be from 1 to \(request.target - 1) (below the target, v\(request.target)), got \(fromVersion)")
        }
        let table = try growingTable(request, sample: sample, fromVersion: fromVersion)
        // The sample's part of each size's cache key, read once. A sample that cannot be
        // hashed stops the search: keyed as no sample, its sizes would take files made
        // without its shape.
        var sampleSHA256: String?
        if sample != nil {
            do {
                sampleSHA256 = try sha256OfFile(directory.input.path)
            } catch {
                throw CapacityError(code: "internal", "cannot read the sample to key its synthesized files: \(error)")
            }
        }
        var search = PredictingSearch(request: request, fromVersion: fromVersion)
        var costs: [Int: [CostFit.Sample]] = [:]
        var stoppedByTime = false
        var grown = GrownFile(path: directory.path + "/grown.db")
        while true {
            if cancellation.isCancelled { throw CapacityError(code: "cancelled", "the capacity search was stopped") }
            guard case .tryRows(let rows) = search.next() else { break }
            guard ContinuousClock.now < deadline else {
                stoppedByTime = true
                break
            }
            let sizes = search.sideBySide(rows, limit: request.sideBySide)
            let measured = try rehearse(
                sizes.map { proportions(of: table, rows: $0, sample: sample) }, table: table, request: request,
                fromVersion: fromVersion, directory: directory, grown: &grown, sampleSHA256: sampleSHA256, launcher: launcher,
                cancellation: cancellation, deadline: deadline, progress: progress)
            for (point, report) in measured {
                let first = report.launches.first
                search.record(point, firstLaunch: (first?.deviceMs, first?.ended == .killed))
                if point.outcome == .completed {
                    for step in report.steps where step.status == .applied {
                        costs[step.version, default: []].append(
                            CostFit.Sample(
                                rows: point.rows, elapsedMs: step.deviceMs ?? step.elapsedMs, growthBytes: step.peakGrowthBytes))
                    }
                }
                progress(Self.progressLine(point, table: table, report: report))
            }
            if measured.count < sizes.count {
                stoppedByTime = true
                break
            }
        }
        if cancellation.isCancelled { throw CapacityError(code: "cancelled", "the capacity search was stopped") }
        if search.points.isEmpty {
            throw CapacityError(
                code: "time_limit", "max_seconds (\(request.maxSeconds) s) ran out before the first size was rehearsed")
        }
        let limit = Self.limit(search: search.search, points: search.points, stoppedByTime: stoppedByTime)
        let versions = (request.plan.migrationPath(from: fromVersion, to: request.target) ?? []).map(\.version)
        var answer = CapacityAnswer(
            plan: request.plan.name, device: request.options.device, runner: request.plan.runner, fromVersion: fromVersion,
            table: table, points: search.points.keys.sorted().compactMap { search.points[$0] }, limit: limit,
            fit: CostFit.fit(versions: versions, samples: costs), method: search.method, prediction: search.prediction,
            wallMs: Int(((ContinuousClock.now - started) / .milliseconds(1)).rounded()))
        if stoppedByTime {
            answer.stoppedBy = .maxSeconds
        } else if search.search.next(search.search.currentBoundary()) == .heldToMaxRows {
            answer.stoppedBy = .maxRows
        }
        return answer
    }

    /// The first size that did not complete in one launch, and how well it is known.
    static func limit(search: CapacitySearch, points: [Int: CapacityPoint], stoppedByTime: Bool) -> CapacityLimit? {
        guard let broke = search.bracket(.completes).broke, let point = points[broke] else { return nil }
        let reason: CapacityLimit.Reason
        switch search.next(.completes) {
        case .narrowed: reason = .narrowed
        case .brokeAtSmallest: reason = .smallestSize
        default: reason = stoppedByTime ? .maxSeconds : .narrowed
        }
        return CapacityLimit(
            rows: point.rows, bytes: point.bytes, outcomeBeyond: point.outcome, step: point.brokenStep, reason: reason)
    }

    // MARK: - The sizes

    /// Synthesizes each size in turn and rehearses them side by side, each rehearsal started
    /// as soon as its file is made; answers them in the order given, up to the first the
    /// search's time ran out for. On the device clock a launch's time is the work it did,
    /// so that two rehearsals sharing the machine measure what each would alone.
    private func rehearse(
        _ sizes: [[String: Int]], table: String, request: CapacityRequest, fromVersion: Int, directory: JobDirectory,
        grown: inout GrownFile, sampleSHA256: String?, launcher: WorkerLauncher, cancellation: JobCancellation,
        deadline: ContinuousClock.Instant, progress: (String) -> Void
    ) throws(CapacityError) -> [(CapacityPoint, Report)] {
        let results = Mutex<[Int: Result<(CapacityPoint, Report)?, CapacityError>]>([:])
        let group = DispatchGroup()
        var failure: CapacityError?
        for (index, rows) in sizes.enumerated() {
            let point: (directory: JobDirectory, cached: Bool)
            do throws(CapacityError) {
                guard
                    let made = try synthesize(
                        rows, table: table, request: request, fromVersion: fromVersion, directory: directory, grown: &grown,
                        sampleSHA256: sampleSHA256, launcher: launcher, cancellation: cancellation, deadline: deadline,
                        progress: progress)
                else { break }
                point = made
            } catch {
                failure = error
                break
            }
            group.enter()
            Thread.detachNewThread { [self] in
                let result = Result { () throws(CapacityError) in
                    try rehearse(
                        point.directory, rows: rows[table] ?? 0, cached: point.cached, request: request, cancellation: cancellation,
                        deadline: deadline)
                }
                results.withLock { $0[index] = result }
                group.leave()
            }
        }
        group.wait()
        if let failure { throw failure }
        var measured: [(CapacityPoint, Report)] = []
        for index in sizes.indices {
            guard let result = results.withLock({ $0[index] }), let point = try result.get() else { break }
            measured.append(point)
        }
        return measured
    }

    /// The search's last synthesized file, kept to grow the next size from (`Synthesizer.grow`):
    /// each size is a copy of it.
    struct GrownFile {
        let path: String
        /// The rows it holds; nil before the first size.
        var rows: [String: Int]?
    }

    /// Makes the file of one size in a job directory of its own (its `input`), from the
    /// synthesis cache when it holds it, else grown from the size made before where that
    /// makes the same file; answers whether it came from the cache; nil when the search's
    /// time ran out first.
    private func synthesize(
        _ rows: [String: Int], table: String, request: CapacityRequest, fromVersion: Int, directory: JobDirectory,
        grown: inout GrownFile, sampleSHA256: String?, launcher: WorkerLauncher, cancellation: JobCancellation,
        deadline: ContinuousClock.Instant, progress: (String) -> Void
    ) throws(CapacityError) -> (directory: JobDirectory, cached: Bool)? {
        let order = SynthesisOrder(
            plan: String(decoding: request.plan.document, as: UTF8.self), version: fromVersion, rows: rows, seed: SynthesisRequest.rehearsalSeed,
            sample: hasSample(directory) ? directory.input.path : nil, out: grown.path, grownFrom: grown.rows)
        // Whatever the worker left is not known to hold any rows until it answers.
        grown.rows = nil
        let make = { () throws(SynthesisError) -> SynthesisSummary in
            let line: SynthesisLine?
            do throws(CapacityError) {
                line = try Self.runSynthesisWorker(.synthesize, order: order, directory: directory, launcher: launcher)
            } catch {
                throw SynthesisError(code: error.code, message: error.message)
            }
            guard let line else { throw SynthesisError(code: Failure.Kind.timeLimit.rawValue, message: "") }
            if let code = line.errorCode {
                throw SynthesisError(code: code, message: "cannot synthesize \(rows[table] ?? 0) rows of \(table): \(line.errorMessage ?? code)")
            }
            return SynthesisSummary(tables: line.tables ?? [:], bytes: line.bytes ?? 0, journalMode: line.journalMode ?? "delete")
        }
        let cached: Bool
        do throws(SynthesisError) {
            if let cache = request.synthesisCache {
                let key = SynthesisKey(
                    plan: request.plan, version: fromVersion, rows: rows, seed: SynthesisRequest.rehearsalSeed, sampleSHA256: sampleSHA256)
                cached = try cache.provide(
                    key, at: grown.path, placement: .copy, deadline: deadline, cancellation: cancellation,
                    note: { progress("capacity: \($0)") }, make: make
                ).cached
            } else {
                _ = try make()
                cached = false
            }
        } catch where error.code == Failure.Kind.timeLimit.rawValue {
            return nil
        } catch {
            throw CapacityError(code: error.code, error.message)
        }
        grown.rows = rows
        do {
            let point = try JobDirectory.create(parent: directory.path + "/points")
            // Each size rehearses a copy: the grown file goes on growing beside it.
            try JobInput(database: grown.path, wal: DatabaseFiles(grown.path).wal).copy(to: point.input, durable: false)
            return (point, cached)
        } catch {
            throw CapacityError(code: "internal", "cannot copy the synthesized file to a size's job directory: \(error)")
        }
    }

    /// Rehearses the file made in `point` and removes it; nil when the search's time ran out first.
    private func rehearse(
        _ point: JobDirectory, rows: Int, cached: Bool, request: CapacityRequest, cancellation: JobCancellation,
        deadline: ContinuousClock.Instant
    ) throws(CapacityError) -> (CapacityPoint, Report)? {
        defer { Self.remove(point) }
        // The rehearsal gets what is left of the search's time once the file is made.
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return nil }
        let wholeSeconds = Int(seconds(remaining).rounded(.up))
        let job = Job(
            directory: point, plan: request.plan, options: request.sizeOptions, device: request.device,
            maxJobSeconds: max(1, wholeSeconds))
        let report = JobRunner(workerExecutable: workerExecutable).run(job, cancellation: cancellation).report
        if report.failure?.kind == Failure.Kind.timeLimit || cancellation.isCancelled { return nil }
        let steps = report.steps.map {
            CapacityPoint.StepCost(version: $0.version, elapsedMs: $0.elapsedMs, deviceMs: $0.deviceMs, peakBytes: $0.peakBytes)
        }
        var capacityPoint = CapacityPoint(
            rows: rows, bytes: report.input.bytes, outcome: report.outcome, launches: report.launches.count,
            elapsedMs: report.launches.map(\.elapsedMs).reduce(0, +), peakBytes: report.space.peakBytes, steps: steps)
        capacityPoint.deviceMs = report.options.clock == .device
            ? report.launches.compactMap(\.deviceMs).reduce(0, +) : nil
        capacityPoint.brokenStep = Self.brokenStep(report)
        capacityPoint.cached = cached
        return (capacityPoint, report)
    }

    /// Best effort: a size's files are gone with the search directory at the latest.
    private static func remove(_ point: JobDirectory) {
        try? FileManager.default.removeItem(atPath: point.path)
    }

    /// The step that broke first: the first the run left unapplied in some launch (cut by
    /// the watchdog, or failed), else the one that failed; when no launch left one, the
    /// last step the first killed launch applied, after whose commit the kill came (right
    /// at a boundary, a launch can outlast its watchdog while it closes).
    static func brokenStep(_ report: Report) -> Int? {
        guard report.outcome != .completed else { return nil }
        if let unapplied = report.steps.first(where: { $0.status != .applied && $0.status != .skipped }) {
            return unapplied.version
        }
        if let failed = report.failure?.step { return failed }
        guard let killed = report.launches.first(where: { $0.ended == .killed })?.launch else { return nil }
        return report.steps.last { $0.launch == killed && $0.status == .applied }?.version
    }

    private static func progressLine(_ point: CapacityPoint, table: String, report: Report) -> String {
        let launches = point.launches == 1 ? "1 launch" : "\(point.launches) launches"
        return "capacity: \(CountText.grouped(point.rows)) rows of \(table) (\(ByteCount.text(point.bytes))): "
            + "\(point.outcome.rawValue) in \(launches), \(point.elapsedMs) ms"
            + (point.brokenStep.map { ", v\($0) broke first" } ?? "")
    }

    // MARK: - The sample and the growing table

    private struct SampleSummary {
        var userVersion: Int
        var tableRows: [String: Int]
    }

    private func hasSample(_ directory: JobDirectory) -> Bool {
        (fileSize(directory.input.path) ?? 0) > 0
    }

    /// The sample's version and row counts, read by a worker; nil without a sample.
    private func measureSample(_ directory: JobDirectory, request: CapacityRequest, launcher: WorkerLauncher)
        throws(CapacityError) -> SampleSummary?
    {
        guard hasSample(directory) else { return nil }
        let order = SynthesisOrder(
            plan: String(decoding: request.plan.document, as: UTF8.self), version: 0, rows: [:], seed: SynthesisRequest.rehearsalSeed,
            sample: directory.input.path, out: "")
        guard let line = try Self.runSynthesisWorker(.sample, order: order, directory: directory, launcher: launcher) else {
            throw CapacityError(code: "time_limit", "max_seconds (\(request.maxSeconds) s) ran out while the sample was read")
        }
        if let code = line.errorCode {
            throw CapacityError(code: code, "cannot read the sample database: \(line.errorMessage ?? code)")
        }
        return SampleSummary(userVersion: line.userVersion ?? 0, tableRows: line.tableRows ?? [:])
    }

    /// Runs a `sample` or `synthesize` worker and decodes its line; nil when the search's
    /// deadline killed it. Also `preflight synthesize`'s worker (`SynthesisInWorker`).
    static func runSynthesisWorker(
        _ task: Worker.Task, order: SynthesisOrder, directory: JobDirectory, launcher: WorkerLauncher
    ) throws(CapacityError) -> SynthesisLine? {
        let run: WorkerLauncher.Run
        do {
            try JSONEncoder().encode(order).write(to: URL(fileURLWithPath: SynthesisOrder.path(in: directory)))
            run = try launcher.run(task)
        } catch {
            throw CapacityError(code: "internal", "cannot start the \(task.rawValue) worker: \(error)")
        }
        if run.killedByJobDeadline { return nil }
        guard let last = run.lines.last, let line = try? JSONDecoder().decode(SynthesisLine.self, from: Data(last)) else {
            throw CapacityError(
                code: "worker_crashed", "the \(task.rawValue) worker ended without an answer (\(run.termination))")
        }
        return line
    }

    /// `--table`, else the sample's largest table, else the first table a step after
    /// `fromVersion` rewrites or fills.
    private func growingTable(_ request: CapacityRequest, sample: SampleSummary?, fromVersion: Int) throws(CapacityError) -> String {
        if let table = request.table { return table }
        if let sample, let largest = sample.tableRows.filter({ !$0.key.hasPrefix("sqlite_") })
            .max(by: { ($0.value, $1.key) < ($1.value, $0.key) })
        {
            return largest.key
        }
        for step in request.plan.migrationPath(from: fromVersion, to: request.target) ?? [] {
            if let table = RewrittenTable.of(step.action) { return table }
        }
        throw CapacityError(
            code: "no_table",
            "no step after v\(fromVersion) rewrites a table that could grow and there is no sample: name the table with --table (table= over HTTP)")
    }

    /// Row counts for one size: the growing table at `rows`, the sample's other tables in
    /// the sample's proportions to it (none without a sample).
    private func proportions(of table: String, rows: Int, sample: SampleSummary?) -> [String: Int] {
        var result = [table: rows]
        guard let sample else { return result }
        let base = sample.tableRows[table] ?? 0
        for (name, count) in sample.tableRows where name != table && !name.hasPrefix("sqlite_") {
            result[name] = base > 0 ? Int((Double(count) / Double(base) * Double(rows)).rounded()) : count
        }
        return result
    }
}
