import Foundation
import MigrationCore

/// A phase of the rehearsal ended the run: the outcome it ends with, its failure recorded.
struct RunEnded: Error {
    let outcome: Outcome
}

/// The rehearsal of one job, phase by phase: the upload's header; the work copy with the
/// inspection of what the file holds; the launches; the verification of the target, and
/// the sweeps. A phase that ends the run throws `RunEnded`.
extension JobRun {
    mutating func rehearse() -> Outcome {
        do throws(RunEnded) {
            warnings = CompatibilityWarnings.check(
                plan: job.plan, target: target, device: job.device, sqliteCheck: job.options.sqliteCheck)
            // The job's copies carry no journal: the header is read with the WAL that came
            // with them. Whether the file holds every page its header says is the
            // inspection's to find, in SQLite's words.
            let header = DatabaseHeader.read(
                path: job.input.database, journal: nil, wal: job.input.existingWAL, checksSize: false)
            let walCheck = try summarize(header)
            let workCopy = try makeWorkCopy(header: header, walCheck: walCheck)
            try take(workCopy.inspection, durable: workCopy.durable)
            try launch()
            return try verifyTarget()
        } catch {
            return error.outcome
        }
    }

    /// Ends the run before any launch changed the work copy.
    private mutating func end(_ outcome: Outcome, _ failure: Failure) -> RunEnded {
        RunEnded(outcome: stop(outcome, failure))
    }

    /// 1. The input's summary from the header's bytes alone, and the WAL to check beside the
    /// run (it reads the whole WAL, its checksums, with the hash).
    private mutating func summarize(_ header: HeaderReading) throws(RunEnded) -> (wal: String, database: DatabaseHeader)? {
        switch header {
        case .invalid(let reason):
            // Best effort: the bytes are already known not to be a database (perhaps not
            // readable at all); the hash only identifies the upload.
            let hashing = ContinuousClock.now
            input.sha256 = (try? sha256OfFile(job.input.database)) ?? ""
            phases.hashMs = milliseconds(ContinuousClock.now - hashing)
            throw end(.invalidDatabase, Failure(kind: Failure.Kind.invalidDatabase, message: reason))
        case .empty:
            input.userVersion = 0
            input.applicationID = 0
            return nil
        case .database(let fields):
            input.sqliteHeaderValid = true
            input.userVersion = Int(fields.userVersion)
            input.applicationID = fields.applicationID
            input.pageSize = fields.pageSize
            input.journalMode = fields.isWAL ? "wal" : "delete"
            if fields.isWAL && job.input.existingWAL == nil {
                warnings.append(Warning(
                    code: "wal_missing", step: nil,
                    message: "the file's header says WAL mode, but no -wal file came with it: whatever the app had committed since the last checkpoint is not in this rehearsal; upload the database together with its -wal (multipart part \"wal\", or --wal)"))
            }
            return job.input.existingWAL.map { ($0, fields) }
        }
    }

    /// 2. The workers' instructions, which every worker reads at its start; the work copy,
    /// made on a second thread; and what the file holds before anything runs, read by a
    /// worker (this is SQL on the upload). Without a WAL the worker reads the upload's main
    /// file where it lies, immutable (SQLite writes nothing, not beside it either), while
    /// the copy is made: both read the same bytes and neither waits for the other. A WAL is
    /// read only through a -shm made beside the database, and nothing is made beside the
    /// upload: then the worker reads the work copy, once it is made. Launch 1's worker
    /// starts during the copy too and waits for its go (so does that inspector), its
    /// process start and its instructions done by the time the copy is.
    ///
    /// Then what only the report needs from the upload, its hash and its WAL's check, on a
    /// second core through the launches: this thread reads the upload, the workers the work
    /// copy, and neither waits for the other. (Not beside the copy and the inspection, which
    /// keep both cores busy already.)
    private mutating func makeWorkCopy(
        header: HeaderReading, walCheck: (wal: String, database: DatabaseHeader)?
    ) throws(RunEnded) -> (inspection: Result<WorkerReport?, OutOfJobTime>?, durable: Bool) {
        do {
            try writeInstructions(tablesBefore: nil)
        } catch {
            throw end(.failed, Failure(kind: .internal, message: "cannot prepare the job directory: \(error)"))
        }
        // Launches that do not flush do not wait for the copy to reach the disk either.
        let durable = job.options.launchesFlush
            && job.input.launchesMayWrite(header: header, plan: job.plan, target: target)
        let copying = BackgroundTask { [job] in try JobRun.makeWorkCopy(job, durable: durable) }
        let readsInPlace = job.input.existingWAL == nil
        let inspector: WorkerLauncher.Started?
        do {
            inspector = header == .empty
                ? nil : try launcher.start(.inspect, extraArguments: readsInPlace ? ["--input", job.input.database] : [])
        } catch {
            throw end(.failed, workerStartFailure(error))
        }
        var inspection = readsInPlace ? inspector.map { inspect($0) } : nil
        // After an inspection in place, in what is left of the copy: the two started
        // together took from the copy's thread about what they saved.
        do {
            firstLaunch = try launcher.start(.migrate, extraArguments: launchArguments(1))
        } catch {
            throw end(.failed, workerStartFailure(error))
        }
        switch copying.wait() {
        case .success(let copyMs):
            phases.copyMs = copyMs
            hasWorkCopy = true
        case .failure(let error):
            throw end(.failed, Failure(kind: .internal, message: "cannot prepare the job directory: \(error)"))
        }
        if !readsInPlace { inspection = inspector.map { inspect($0) } }
        let initialBytes = workCopyBytes
        space.initialBytes = initialBytes
        space.freeBytes = job.options.freeBytes
        let quota = job.options.freeBytes.map { initialBytes + $0 }
        guard SpaceStats.create(path: job.directory.spaceStats, quotaBytes: quota) == 0 else {
            throw end(.failed, Failure(kind: .internal, message: "cannot create the space stats file in the job directory"))
        }
        reading = BackgroundTask { [job, walCheck] in
            try UploadReading.read(job.input.database, knownSHA256: job.input.sha256, walCheck: walCheck)
        }
        return (inspection, durable)
    }

    /// 3. What the inspection found (nil: an empty file, nothing to inspect): the input's
    /// tables, handed to the workers with the version the file stands at.
    private mutating func take(_ inspection: Result<WorkerReport?, OutOfJobTime>?, durable: Bool) throws(RunEnded) {
        guard let inspection else {
            input.tables = [:]
            return
        }
        let inspected: WorkerReport?
        switch inspection {
        case .success(let report): inspected = report
        case .failure(let timeLimit): throw end(.failed, timeLimitFailure(timeLimit.phase))
        }
        guard let inspected else {
            throw end(.invalidDatabase, Failure(kind: Failure.Kind.invalidDatabase, message: "SQLite crashed while reading the file"))
        }
        phases.checkMs = inspected.checkMs
        input.quickCheckDeviceMs = inspected.checkDevice.map { Int($0.totalMs.rounded()) }
        guard inspected.readable == "ok" else {
            throw end(.invalidDatabase, Failure(
                kind: Failure.Kind.invalidDatabase, message: inspected.readable ?? "SQLite cannot read the file"))
        }
        input.tables = inspected.tables
        UncountedTableWarnings.add(inspected.uncountedTables, place: "in the input", to: &warnings)
        if warnings.contains(where: { $0.code == "wal_missing" }), inspected.tables?.isEmpty ?? true {
            warnings.append(Warning(
                code: "wal_schema_missing", step: nil,
                message: "the main file of this WAL-mode database holds no tables yet: its schema and rows may live only in the missing -wal file, so this runs as a fresh install; upload the -wal too"))
        }
        input.journalMode = inspected.journalMode ?? input.journalMode
        // Without the counts in the instructions, the verifier's rows_lost would compare
        // with nothing and pass: a job that cannot hand them over fails instead.
        do {
            try writeInstructions(tablesBefore: inspected.tables, startVersion: inspected.point?.version)
        } catch {
            throw end(.failed, Failure(
                kind: .internal,
                message: "cannot hand the input's row counts to the workers, so lost rows could not be checked: \(error)"))
        }
        // A file at its target that holds Preflight's own unfinished work (the purge a
        // killed launch left): launch 1 finishes it, so it writes after all.
        if !durable, job.options.launchesFlush, inspected.point?.pendingStep != nil {
            do {
                try syncFile(job.directory.work.path)
            } catch {
                throw end(.failed, Failure(kind: .internal, message: "cannot prepare the job directory: \(error)"))
            }
        }
    }

    /// 4. The launches, with the verifying worker started beside the first, until the
    /// target is reached or the run ends another way.
    private mutating func launch() throws(RunEnded) {
        do {
            verifier = try launcher.start(.verify)
        } catch {
            throw end(.failed, workerStartFailure(error))
        }
        let launching = ContinuousClock.now
        let sampler = SpaceSampler(statsPath: job.directory.spaceStats, started: launching)
        samplingStarted = launching
        let migrated = launchUntilSettled()
        space.samples = sampler.stop()
        phases.launchesMs = milliseconds(ContinuousClock.now - launching)
        if let migrated { throw RunEnded(outcome: migrated) }
    }

    /// 5. The target verified (schema, integrity, rows), then the sweeps.
    private mutating func verifyTarget() throws(RunEnded) -> Outcome {
        let verification: WorkerReport?
        let verifying = ContinuousClock.now
        do {
            verification = try runReportingWorker(verifier.take() ?? launcher.start(.verify))
        } catch let timeLimit as OutOfJobTime {
            throw RunEnded(outcome: stopAfterMigration(.failed, timeLimitFailure(timeLimit.phase), state: nil))
        } catch {
            throw end(.failed, workerStartFailure(error))
        }
        phases.verifyMs = milliseconds(ContinuousClock.now - verifying)
        guard let verification, let verified = verification.final else {
            throw end(.failed, Failure(kind: Failure.Kind.workerCrashed, message: "the verification worker crashed"))
        }
        final = verified
        UncountedTableWarnings.add(verification.uncountedTables, place: "after the run", to: &warnings)
        ledger.settle(reachedVersion: target)
        // The app opens, at its target, on an empty database: that is the verdict, whatever
        // else the verification found (the lost rows it reports are the erased ones).
        if let erasure {
            failure = erasure
            return .dataErased
        }
        let problems = verification.problems ?? []
        if !problems.isEmpty {
            failure = Failure(kind: Failure.Kind.verification, message: problems.joined(separator: "; "))
            return .verificationFailed
        }
        return sweep(after: launches.count > 1 ? .completedAfterKills : .completed)
    }
}
