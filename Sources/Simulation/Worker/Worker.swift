import CSQLite
import Foundation
import Glibc
import MigrationCore

/// `preflight worker`: one process that opens the job's database with SQLite. The
/// parent (the CLI or the server) never does: a hostile file can crash a worker, never
/// the service.
///
///     preflight worker inspect|migrate|verify --job DIR --parent PID [--final-only]
///
/// `inspect` counts the input's rows before anything runs; `migrate` is one launch of
/// the app (events as JSON lines on stdout); `verify` checks the migrated file and
/// folds its WAL into the main file.
public enum Worker {
    public enum Task: String { case inspect, migrate, verify }

    /// The environment variable that carries a test-only `FaultInjection` specification.
    public static let faultVariable = "PREFLIGHT_TEST_FAULT"

    public static func main(_ arguments: [String]) -> Int32 {
        guard let taskName = arguments.first, let task = Task(rawValue: taskName),
            let directory = value(of: "--job", in: arguments).map(JobDirectory.init(existingAt:)),
            let parent = value(of: "--parent", in: arguments).flatMap({ pid_t($0) })
        else {
            FileHandle.standardError.write(Data("usage: preflight worker inspect|migrate|verify --job DIR --parent PID\n".utf8))
            return 2
        }
        WorkerSandbox.apply(parentPID: parent, jobDirectory: directory.path)
        do {
            let instructions = try JSONDecoder().decode(
                WorkerInstructions.self,
                from: Data(contentsOf: URL(fileURLWithPath: directory.workerInstructions)))
            let plan = try PlanDecoder.decode(Array(instructions.plan.utf8))
            switch task {
            case .inspect:
                EventWriter.write(inspect(directory.work.path, plan: plan))
            case .migrate:
                let launch = value(of: "--launch", in: arguments).flatMap { Int($0) } ?? 1
                try migrate(directory, plan: plan, instructions: instructions, launch: launch)
            case .verify:
                let finalOnly = arguments.contains("--final-only")
                EventWriter.write(try verify(directory, plan: plan, instructions: instructions, finalOnly: finalOnly))
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("preflight worker: \(error)\n".utf8))
            return 1
        }
    }

    private static func value(of option: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: option), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    // MARK: - Tasks

    /// Counts the input's rows without changing it: the WAL is read but not folded into
    /// the file, so that launch 1 finds the file exactly as the device had it.
    private static func inspect(_ path: String, plan: Plan) -> WorkerReport {
        do {
            let connection = try Connection(path: path)
            connection.keepWALOnClose()
            _ = try connection.integer("SELECT count(*) FROM sqlite_schema")
            let check = try connection.rows("PRAGMA quick_check(1)").first?.first?.textValue ?? "ok"
            guard check == "ok" else { return WorkerReport(readable: "the database is damaged: \(check)") }
            return WorkerReport(
                tables: try TableCounts.count(connection),
                journalMode: try connection.scalar("PRAGMA journal_mode").textValue, readable: "ok",
                point: try DurablePoint(connection, plan: plan))
        } catch {
            return WorkerReport(readable: "SQLite cannot read the file: \(error.message)")
        }
    }

    private static func migrate(
        _ directory: JobDirectory, plan: Plan, instructions: WorkerInstructions, launch: Int
    ) throws {
        let meter = try SpaceVFSMeter(statsPath: directory.spaceStats)
        var faults: FaultInjection?
        if let specification = ProcessInfo.processInfo.environment[faultVariable] {
            faults = try FaultInjection.forLaunch(launch, in: specification)
        }
        let settings = MigrationSettings(
            target: instructions.target, spaceCheck: instructions.spaceCheck, connection: instructions.connection,
            sqliteVersion: instructions.sqliteCheck == .fail ? instructions.sqliteVersion : nil)
        _ = Migrator(plan: plan, settings: settings, spaceMeter: meter, hooks: faults).migrate(databaseAt: directory.work.path) { event in
            var event = event
            ProcessMemory.measureStep(&event)
            EventWriter.write(event)
        }
    }

    private static func verify(
        _ directory: JobDirectory, plan: Plan, instructions: WorkerInstructions, finalOnly: Bool
    ) throws -> WorkerReport {
        // The default VFS: verification is Preflight's check, not part of the device's
        // launch, so it neither counts toward the run's space nor is held to its quota.
        let connection = try Connection(path: directory.work.path)
        let verifier = Verifier(
            plan: plan, target: instructions.target ?? plan.newestVersion,
            mode: finalOnly ? .quick : instructions.verify, freshInstallPath: directory.freshInstall,
            connection: instructions.connection)
        var verification = try verifier.verify(
            connection: connection, tablesBefore: instructions.tablesBefore ?? [:], startVersion: instructions.startVersion)
        if finalOnly {
            // The run did not reach its target: the schema is legitimately not the fresh
            // install's, so only the state is reported.
            verification.final.schemaMatchesFreshInstall = nil
            verification.final.schemaDiff = nil
        }
        let point = try DurablePoint(connection, plan: plan)
        // One file for `--out` and downloads; a WAL database stays WAL (its header says so).
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return WorkerReport(final: verification.final, problems: finalOnly ? nil : verification.problems, point: point)
    }
}
