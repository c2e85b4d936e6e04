import CSQLite
import CSpaceVFS
import Foundation
import Glibc
import MigrationCore

/// `preflight worker`: one process that opens the job's database with SQLite. The
/// parent (the CLI or the server) never does: a hostile file can crash a worker, never
/// the service.
///
///     preflight worker inspect|migrate|verify|fingerprint --job DIR --parent PID [--launch N] [--final-only]
///         [--kill-before-sync N | --full-at-write N | --kill-at-main-write N] [--input FILE] [--await-start]
///
/// (read by the command line parser of every other command, `WorkerCommand`, into an `Invocation`).
/// `inspect` checks the input for damage and counts its rows before anything runs
/// (`InputCheck`); `migrate` is one launch of
/// the app (events as JSON lines on stdout); `verify` checks the migrated file and
/// folds its WAL into the main file; `fingerprint` reads the file's `EndState` for a sweep.
public enum Worker {
    public enum Task: String, Sendable, CaseIterable {
        case inspect, migrate, verify, fingerprint
        /// Where the work copy stands between two launches, read as the next launch would
        /// find it: its WAL is left as the kill left it, not checkpointed.
        case standing
        /// A capacity search's: read the sample's shape, or synthesize one size (`SynthesisTask`).
        case sample, synthesize
    }

    /// The environment variable that carries a test-only `FaultInjection` specification.
    public static let faultVariable = "PREFLIGHT_TEST_FAULT"

    /// What the parent asked of this worker (`preflight worker TASK --job DIR --parent PID ...`).
    public struct Invocation: Sendable {
        public var task: Task
        public var jobDirectory: String
        /// The process that started this worker: the worker dies with it.
        public var parentPID: pid_t
        /// Which launch of the app this is (`migrate`).
        public var launch: Int
        /// `verify` of a run that stopped short of its target: the state only.
        public var finalOnly: Bool
        /// `migrate` in a sweep's replay: the fault to inject.
        public var fault: StorageFault?
        /// `inspect`: the upload's main file, read where it lies (the one file outside the
        /// job directory a worker may open, and only to read); the work copy when nil.
        public var input: String?
        /// Started ahead of its turn: once confined, it waits for its go (`StartSignal`)
        /// before it reads anything of the job.
        public var awaitsStart: Bool

        public init(
            task: Task, jobDirectory: String, parentPID: pid_t, launch: Int, finalOnly: Bool, fault: StorageFault? = nil,
            input: String? = nil, awaitsStart: Bool = false
        ) {
            self.task = task
            self.jobDirectory = jobDirectory
            self.parentPID = parentPID
            self.launch = launch
            self.finalOnly = finalOnly
            self.fault = fault
            self.input = input
            self.awaitsStart = awaitsStart
        }
    }

    public static func main(_ invocation: Invocation) -> Int32 {
        let directory = JobDirectory(existingAt: invocation.jobDirectory)
        WorkerSandbox.apply(
            parentPID: invocation.parentPID, jobDirectory: directory.path, readable: invocation.input.map { [$0] } ?? [])
        do {
            if invocation.task == .sample || invocation.task == .synthesize {
                if invocation.awaitsStart && !StartSignal.awaitGo() { return 0 }
                try SynthesisTask.main(invocation.task, directory: directory)
                return 0
            }
            // Before its go a worker reads its instructions and the plan, final by the time
            // any worker is started (the verifier's fields are added before a verifier is),
            // so that decoding them is done by its go, not after it on the job's path. A
            // verifier also builds the fresh install it compares with, which needs only
            // those: a long chain's replay is then done by the time the migration is.
            // Nothing else of the job is read before the go: the database may not be there yet.
            let (instructions, plan) = try readJob(directory)
            let freshInstall = invocation.awaitsStart && invocation.task == .verify && !invocation.finalOnly
                ? Result { () throws(Verifier.FreshInstallFailure) in
                    try verifier(directory, plan: plan, instructions: instructions, finalOnly: false).freshInstallSnapshot()
                }
                : nil
            // Not needed after all: nothing was read but that, nothing to say.
            if invocation.awaitsStart && !StartSignal.awaitGo() { return 0 }
            switch invocation.task {
            case .inspect:
                EventWriter.write(inspect(
                    invocation.input ?? directory.work.path, inPlace: invocation.input != nil, plan: plan,
                    instructions: instructions, directory: directory))
            case .migrate:
                try migrate(
                    directory, plan: plan, instructions: instructions, launch: invocation.launch, fault: invocation.fault)
            case .verify:
                EventWriter.write(try verify(
                    directory, plan: plan, instructions: instructions, finalOnly: invocation.finalOnly, freshInstall: freshInstall))
            case .fingerprint:
                EventWriter.write(try fingerprint(directory, plan: plan, platform: instructions.connection))
            case .standing:
                let connection = try Connection(path: directory.work.path)
                try instructions.connection.defineFunctions(on: connection)
                connection.keepWALOnClose()
                EventWriter.write(WorkerReport(point: try DurablePoint(connection, plan: plan)))
            case .sample, .synthesize:
                break  // Run above, before the job's instructions are read.
            }
            return 0
        } catch {
            WorkerStderr.say("\(error)")
            return 1
        }
    }

    /// The job's instructions and the plan in them.
    private static func readJob(_ directory: JobDirectory) throws -> (instructions: WorkerInstructions, plan: Plan) {
        let instructions = try JSONDecoder().decode(
            WorkerInstructions.self, from: Data(contentsOf: URL(fileURLWithPath: directory.workerInstructions)))
        return (instructions, try PlanDecoder.decode(Array(instructions.plan.utf8)))
    }

    // MARK: - Tasks

    /// Checks the input and counts its rows without changing it: the WAL is read but not
    /// folded into the file, so that launch 1 finds the file exactly as the device had it.
    /// Reading the schema finds what is not a database or is encrypted; quick_check
    /// (`InputCheck`) finds damage inside the pages and a file cut short. SQLite's
    /// SQLITE_CORRUPT from any of them is damage too.
    private static func inspect(
        _ path: String, inPlace: Bool, plan: Plan, instructions: WorkerInstructions, directory: JobDirectory
    ) -> WorkerReport {
        let model = instructions.deviceSpeed
        do {
            // In place (the upload itself, which came without a WAL): immutable, so that
            // SQLite writes nothing, not even beside it, and reads the main file alone (as
            // it would the work copy, which has no WAL either). Its journal mode is then
            // the header's, which the runner has: an immutable connection says `delete`.
            let connection = try InputCheck.open(path, immutable: inPlace, model: model, statsPath: directory.checkStats)
            if !inPlace { connection.keepWALOnClose() }
            // An index in LOCALIZED order is checked in that order, as on the phone.
            try instructions.connection.defineFunctions(on: connection)
            let journalMode = inPlace ? nil : try connection.scalar("PRAGMA journal_mode").textValue
            _ = try connection.integer("SELECT count(*) FROM sqlite_schema")
            let check = try InputCheck.run(connection, model: model)
            var report = WorkerReport(checkMs: check.elapsedMs, checkDevice: check.device)
            guard check.problems.isEmpty else {
                report.readable = InputCheck.damageMessage(
                    "PRAGMA quick_check lists \(check.problems.joined(separator: "; "))", runner: plan.runner)
                return report
            }
            let counts = try TableCounts.count(connection)
            report.tables = counts.rows
            report.uncountedTables = counts.uncounted
            report.journalMode = journalMode
            report.readable = "ok"
            report.point = try DurablePoint(connection, plan: plan)
            return report
        } catch {
            let found = "\(error.message)\(shortfall(path, withWAL: !inPlace))"
            return WorkerReport(
                readable: error.primaryCode == SQLITE_CORRUPT
                    ? InputCheck.damageMessage(found, runner: plan.runner) : "SQLite cannot read the file: \(found)")
        }
    }

    /// Why a main file may be unreadable: its header says more pages than it holds (the
    /// runner left that for SQLite to judge, `DatabaseHeader`), and it came without a WAL,
    /// or SQLite did not find the rest in the -wal that came with it. "" when it holds
    /// them, or when its size cannot be read: SQLite's own message stands then.
    private static func shortfall(_ path: String, withWAL: Bool) -> String {
        guard case .database(let header) = DatabaseHeader.read(path: path, journal: nil, wal: nil, checksSize: false),
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? UInt64,
            let shortfall = header.shortfall(fileSize: size)
        else { return "" }
        return withWAL
            ? "; \(shortfall), and SQLite does not find the rest in the -wal that came with it"
            : "; \(shortfall): the file was cut short"
    }

    private static func migrate(
        _ directory: JobDirectory, plan: Plan, instructions: WorkerInstructions, launch: Int, fault: StorageFault?
    ) throws {
        let meter = try SpaceVFSMeter(statsPath: directory.spaceStats)
        try fault?.arm(directory)
        var faults: FaultInjection?
        if let specification = ProcessInfo.processInfo.environment[faultVariable] {
            faults = try FaultInjection.forLaunch(launch, in: specification, jobDirectory: directory.path)
        }
        let settings = MigrationSettings(
            target: instructions.target, spaceCheck: instructions.spaceCheck, connection: instructions.connection,
            sqliteVersion: instructions.sqliteVersion, refusesNewerSQL: instructions.sqliteCheck == .fail)
        let clock = instructions.deviceSpeed.map { DeviceClock(model: $0, watchdogMs: instructions.deviceWatchdogMs) }
        // The device clock charges a sync from its count; waiting for this machine's disk
        // would only slow the rehearsal, and unevenly: parallel rehearsals queue on one
        // disk's flushes. The wall clock times the real flush, as the phone waits for its own.
        spacevfs_count_flushes_only(clock != nil && faults?.passesFlushesOn != true ? 1 : 0)
        spacevfs_pages_warm_at_open(clock?.model.firstLaunchCache == .warm ? 1 : 0)
        clock?.start()
        let migrator = Migrator(plan: plan, settings: settings, spaceMeter: meter, hooks: faults, workMeter: clock?.work)
        let recording = fault == .recordOperations
        _ = migrator.migrate(databaseAt: directory.work.path) { event in
            if recording, let version = event.committedVersion(under: plan.runner) { spacevfs_record_mark(Int64(version)) }
            var event = event
            ProcessMemory.measureStep(&event)
            event.device = clock?.now
            EventWriter.write(event)
        }
    }

    /// Where a sweep's replay left the file, to compare with the uninterrupted run. The
    /// default VFS, as for `verify`; a WAL stays as it is, for the rerun that may follow.
    private static func fingerprint(_ directory: JobDirectory, plan: Plan, platform: ConnectionSettings) throws -> WorkerReport {
        let connection = try Connection(path: directory.work.path)
        try platform.defineFunctions(on: connection)
        connection.keepWALOnClose()
        return WorkerReport(point: try DurablePoint(connection, plan: plan), endState: try EndState.read(connection, plan: plan))
    }

    private static func verifier(
        _ directory: JobDirectory, plan: Plan, instructions: WorkerInstructions, finalOnly: Bool
    ) -> Verifier {
        Verifier(
            plan: plan, target: instructions.target ?? plan.newestVersion,
            mode: finalOnly ? .quick : instructions.verify, freshInstallPath: directory.freshInstall,
            connection: instructions.connection, sqliteVersion: instructions.sqliteVersion)
    }

    /// - Parameter freshInstall: built already, while the worker waited for its go.
    private static func verify(
        _ directory: JobDirectory, plan: Plan, instructions: WorkerInstructions, finalOnly: Bool,
        freshInstall: Result<SchemaSnapshot, Verifier.FreshInstallFailure>?
    ) throws -> WorkerReport {
        // The default VFS: verification is Preflight's check, not part of the device's
        // launch, so it neither counts toward the run's space nor is held to its quota.
        let connection = try Connection(path: directory.work.path)
        try instructions.connection.defineFunctions(on: connection)
        let verifier = verifier(directory, plan: plan, instructions: instructions, finalOnly: finalOnly)
        // A run that did not reach its target: its schema is legitimately not the fresh
        // install's, so only the state is reported, and no fresh install is built.
        let schema: Verifier.SchemaComparison = finalOnly ? .none : freshInstall.map { .builtFreshInstall($0) } ?? .freshInstall
        let verification = try verifier.verify(
            connection: connection, tablesBefore: instructions.tablesBefore ?? [:], startVersion: instructions.startVersion,
            schema: schema)
        let point = try DurablePoint(connection, plan: plan)
        // One file for `--out` and downloads; a WAL database stays WAL (its header says so).
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return WorkerReport(
            uncountedTables: verification.uncountedTables, final: verification.final,
            problems: finalOnly ? nil : verification.problems, point: point)
    }
}
