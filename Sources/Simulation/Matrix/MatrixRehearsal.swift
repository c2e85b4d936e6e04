import Foundation
import MigrationCore

/// Runs a matrix (docs/CONTRACT.md §11): each row × device cell is an ordinary rehearsal by the
/// real `JobRunner` (real workers, real watchdog kills), as `preflight run` rehearses one
/// file; the versions without a fixture are synthesized once, in a sandboxed worker, and
/// shared by their row's cells. Cells and syntheses run side by side, as many at once as
/// `parallelism` (and the `slots`) allow: a synthesis runs while the cells of the rows
/// that are ready run. Used by `preflight matrix` and `POST /v1/matrix` alike.
///
/// Everything happens inside `directory`: `synthesized/<id>/` per synthesized version,
/// `cells/<id>/` per cell (removed once measured), `fresh-install.db` (the empty file),
/// under GRDB `fixture-versions/<id>/` per fixture read (removed once read).
public final class MatrixRehearsal: WorkerStarting, Sendable {
    let workerExecutable: String

    public init(workerExecutable: String) {
        self.workerExecutable = workerExecutable
    }

    /// Runs the cells of `request` (its shard's, when it has one) and answers the matrix.
    /// Past `maxSeconds` no cell starts; those not run end `failed` / `time_limit`, and
    /// the running ones end at the deadline with their workers killed.
    /// `slots`: where cells beyond the first get a slot of their own (the service's job
    /// slots); nil: `parallelism` at once.
    public func run(
        _ request: MatrixRequest, directory: JobDirectory, cancellation: JobCancellation, slots: (any MatrixSlots)? = nil,
        progress: @escaping @Sendable (String) -> Void = { _ in }
    ) -> MatrixAnswer {
        let deadline = ContinuousClock.now + .seconds(request.maxSeconds)
        let recorded = request.plan.runner.keepsUserVersion
            ? [:]
            : GRDBFixtureVersions.read(
                request, directory: directory, workerExecutable: workerExecutable, cancellation: cancellation, deadline: deadline)
        let planned = MatrixRows(request, recordedVersions: recorded).rows
        let identity = Self.identity(request, rows: planned)
        var request = request
        if let sample = request.sample, request.rows.isEmpty {
            request.rows = sampleRows(sample, request: request, directory: directory, cancellation: cancellation, deadline: deadline)
        }
        let devices = request.devices
        var cells: [MatrixWork.Cell] = []
        for rowIndex in planned.indices {
            for deviceIndex in devices.indices {
                let position = rowIndex * devices.count + deviceIndex
                if request.shard?.owns(cell: position) ?? true { cells.append(.init(row: rowIndex, device: deviceIndex)) }
            }
        }
        let work = MatrixWork(
            request: request, rows: planned, cells: cells, directory: directory, parent: cancellation, deadline: deadline,
            workerExecutable: workerExecutable, progress: progress)
        work.runAll(parallelism: max(1, request.parallelism), slots: slots)
        return work.answer(identity: identity)
    }

    /// Without `rows`, the synthesized files have the sample's row counts, read by a
    /// sandboxed worker. A sample that cannot be read leaves them empty here: each
    /// synthesis reads it again and its row's cells say why (`invalid_sample`).
    private func sampleRows(
        _ sample: String, request: MatrixRequest, directory: JobDirectory, cancellation: JobCancellation,
        deadline: ContinuousClock.Instant
    ) -> [String: Int] {
        guard let place = try? JobDirectory.create(parent: directory.path + "/sample"),
            (try? copyFile(sample, to: place.input.path)) != nil
        else { return [:] }
        let first = request.devices[0]
        let launcher = WorkerLauncher(
            executable: workerExecutable, job: Job(directory: place, plan: request.plan, options: first.options, device: first.profile),
            jobID: place.id, cancellation: cancellation, jobDeadline: deadline)
        let order = SynthesisOrder(
            plan: String(decoding: request.plan.document, as: UTF8.self), version: 0, rows: [:], seed: SynthesisRequest.rehearsalSeed,
            sample: place.input.path, out: "")
        guard let line = try? CapacityRehearsal.runSynthesisWorker(.sample, order: order, directory: place, launcher: launcher)
        else { return [:] }
        return (line.tableRows ?? [:]).filter { !$0.key.hasPrefix("sqlite_") }
    }

    /// The plan, the options and the inputs by hash (docs/CONTRACT.md §11's merge check).
    static func identity(_ request: MatrixRequest, rows: [MatrixRows.Planned]) -> MatrixIdentity {
        var options = SHA256()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for device in request.devices {
            options.update(Array((try? encoder.encode(device.options)) ?? Data()))
        }
        options.update(Array("from \(request.fromVersion)".utf8))
        for (table, count) in request.rows.sorted(by: { $0.key < $1.key }) { options.update(Array("rows \(table)=\(count)".utf8)) }
        if let sample = request.sample { options.update(Array("like \((try? sha256OfFile(sample)) ?? "unreadable")".utf8)) }
        let inputs = rows.compactMap { planned -> String? in
            guard planned.row.source == .fixture else { return nil }
            return "\(planned.row.file ?? ""):\(planned.row.sha256 ?? "unreadable")"
        }
        return MatrixIdentity(
            planSHA256: SHA256.hex(request.plan.document), optionsSHA256: options.finalizeHex(), inputs: inputs)
    }
}

/// Where the cells of a matrix beyond its first get a slot: the service lends the matrix
/// its free job slots, one cell at a time, so that a matrix counts against admission as
/// its cells would and never holds a slot another job waits for.
public protocol MatrixSlots: Sendable {
    /// A slot for one more cell, if one is free and no other job waits for it.
    func borrow() -> Bool
    /// Gives a borrowed slot back.
    func giveBack()
}
