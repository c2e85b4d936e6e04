import Foundation
import MigrationCore

/// The versions of a GRDB plan's fixtures, read before any cell runs. GRDB keeps a file's
/// version in `grdb_migrations`, not in the header, and only SQL reads a table: each
/// fixture is read by an inspecting worker, as a rehearsal's inspection reads its input
/// (sandboxed; the fixture opened immutable where it lies, or a copy when it has a WAL,
/// which SQLite reads only through a `-shm` beside it). Knowing the versions up front puts
/// a fixture's row at its version: no file is synthesized for a version a fixture stands
/// at, the rows are in version order, and every shard plans the same rows.
enum GRDBFixtureVersions {
    /// The version each fixture stands at, by its main file's path; a fixture that is not
    /// a database, or that the worker cannot read, is left out (its row's version stays
    /// unknown, and its cells say why).
    static func read(
        _ request: MatrixRequest, directory: JobDirectory, workerExecutable: String, cancellation: JobCancellation,
        deadline: ContinuousClock.Instant
    ) -> [String: Int] {
        var versions: [String: Int] = [:]
        for fixture in request.fixtures {
            guard let database = fixture.database, !cancellation.isCancelled, ContinuousClock.now < deadline else { continue }
            let input = JobInput(database: database, wal: fixture.wal)
            guard case .database = DatabaseHeader.read(path: database, journal: nil, wal: input.existingWAL) else { continue }
            if let version = read(input, request: request, directory: directory, workerExecutable: workerExecutable,
                                  cancellation: cancellation, deadline: deadline) {
                versions[database] = version
            }
        }
        return versions
    }

    private static func read(
        _ input: JobInput, request: MatrixRequest, directory: JobDirectory, workerExecutable: String,
        cancellation: JobCancellation, deadline: ContinuousClock.Instant
    ) -> Int? {
        guard let first = request.devices.first,
            let place = try? JobDirectory.create(parent: directory.path + "/fixture-versions")
        else { return nil }
        // Best effort: the matrix's directory goes, with this in it, at the latest.
        defer { try? FileManager.default.removeItem(atPath: place.path) }
        let job = Job(directory: place, input: input, plan: request.plan, options: first.options, device: first.profile)
        let run = JobRun(
            job: job,
            launcher: WorkerLauncher(
                executable: workerExecutable, job: job, jobID: place.id, cancellation: cancellation, jobDeadline: deadline),
            progress: nil)
        do {
            try run.writeInstructions(tablesBefore: nil)
            let report: WorkerReport?
            if input.existingWAL == nil {
                report = try run.runReportingWorker(.inspect, extraArguments: ["--input", input.database])
            } else {
                try input.copy(to: place.work, durable: false)
                report = try run.runReportingWorker(.inspect)
            }
            guard let report, report.readable == "ok" else { return nil }
            return report.point?.version
        } catch {
            return nil
        }
    }
}
