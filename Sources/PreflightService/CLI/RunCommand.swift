import Foundation
import Glibc
import MigrationCore
import Simulation

/// `preflight run`: rehearses a plan on a copy of a database file and prints the report.
///
///     preflight run --db FILE [--wal FILE] --plan PLAN.json|DIR [--out FILE]
///                   [--format json|text|junit|html] [--devices-dir DIR] [--max-seconds S]
///                   [run options as --kebab-case]
///
/// Exit status: 0 for `completed` (with every point of a sweep survived), 1 for any other
/// outcome or a point that did not survive, 2 for bad usage or an
/// invalid plan, 128 + the signal for a run stopped by SIGINT (130) or SIGTERM (143),
/// which first removes its job directory (a full copy of the database) and its workers.
/// `--db` is never written to.
public enum RunCommand {
    /// The run options of docs/CONTRACT.md §2 as flags: `OptionResolver`'s names in kebab case
    /// (`watchdog_ms` is `--watchdog-ms`); the resolver reads their values.
    static let optionFlags = OptionResolver.names.map { (flag: $0.replacingOccurrences(of: "_", with: "-"), option: $0) }

    static let syntax = CommandSyntax(
        command: "preflight run",
        flags: [
            .init("db", value: "FILE"), .init("wal", value: "FILE"), .init("plan", value: "PLAN"), .init("out", value: "FILE"),
            .init("format", value: "FORMAT"), .init("devices-dir", value: "DIR"), .init("max-seconds", value: "S"),
        ] + optionFlags.map { .init($0.flag, value: "VALUE") },
        usage: """
            usage: preflight run --db FILE [--wal FILE] --plan PLAN.json|DIR [--out FILE]
                                 [--format json|text|junit|html] [--devices-dir DIR] [--max-seconds S] [run options]

            Rehearses the plan on a copy of the database under the device's watchdog and free
            space, and prints the report on stdout (progress on stderr). FILE is never written to.

              --db FILE           the database, as pulled from a device
              --wal FILE          its -wal file, when it has one
              --plan PLAN         a plan (JSON), or a folder of SQLDelight, Flyway or numbered SQL
                                  migrations, imported as 'preflight plan import' does
              --out FILE          write the migrated database there (checkpointed into one file)
              --format FORMAT     json (the default), text (a summary), junit (JUnit XML) or html
                                  (the report page the service serves: one self-contained file)
              --devices-dir DIR   device profiles (default: Config/devices, when there is one)
              --max-seconds S     the whole run's wall-clock time, every worker included (default
                                  \(maxSecondsDefaultText)); past it the run ends
                                  failed (time_limit, with the phase), keeping what was measured, its
                                  worker killed, exit status 1

            run options (docs/CONTRACT.md §2), each with a value: \(optionFlags.map { "--" + $0.flag }.joined(separator: ", "))

            exit status: 0 completed (and every sweep point survived), 1 any other outcome or a
            sweep point that did not survive, 2 bad usage or an invalid plan, 130/143 stopped by
            SIGINT/SIGTERM (the job directory removed)
            """)

    public static func main(_ arguments: [String], workerExecutable: String) -> Int32 {
        CommandLineAnswer.run(syntax, arguments) { parsed throws(UsageError) in
            try run(parsed, workerExecutable: workerExecutable)
        }
    }

    private static func run(_ arguments: Arguments, workerExecutable: String) throws(UsageError) -> Int32 {
        guard let databasePath = arguments.value("db") else { throw UsageError("--db FILE is required") }
        guard let planPath = arguments.value("plan") else { throw UsageError("--plan PLAN.json is required") }
        let formatName = arguments.value("format") ?? "json"
        guard let format = ReportAnswer(format: formatName) else {
            throw UsageError("--format must be json, text, junit or html, got \"\(formatName)\"")
        }
        let plan = try loadPlan(planPath)
        let (options, device) = try runOptions(arguments, plan: plan)
        guard FileManager.default.isReadableFile(atPath: databasePath) else {
            throw UsageError("cannot read the database file \(databasePath)", suggestsHelp: false)
        }
        let walPath = arguments.value("wal")
        if let walPath, !FileManager.default.isReadableFile(atPath: walPath) {
            throw UsageError("cannot read the WAL file \(walPath)", suggestsHelp: false)
        }
        let outPath = arguments.value("out")
        if let outPath { try checkOut(outPath, database: databasePath, wal: walPath) }
        let maxSeconds = try maxSeconds(arguments)
        do {
            return try rehearse(
                Rehearsal(database: databasePath, wal: walPath, out: outPath, format: format, maxSeconds: maxSeconds),
                plan: plan, options: options, device: device, workerExecutable: workerExecutable)
        } catch {
            printError("preflight run: \(error)")
            return CommandLineAnswer.usageStatus
        }
    }

    /// The effective run options and the device profile of a command line that takes the
    /// run options (`run`, `capacity`): `--devices-dir` (default: Config/devices, when there
    /// is one) and the option flags, read by `OptionResolver`.
    /// `device`: the profile of a matrix's column, which names its devices apart.
    static func runOptions(_ arguments: Arguments, plan: Plan, device: String? = nil) throws(UsageError) -> (RunOptions, DeviceProfile) {
        let devicesDirectory =
            arguments.value("devices-dir") ?? (FileManager.default.fileExists(atPath: "Config/devices") ? "Config/devices" : nil)
        var devices = DeviceCatalog(profiles: [])
        if let devicesDirectory {
            do throws(ConfigurationError) {
                devices = try DeviceCatalog(directory: devicesDirectory)
            } catch {
                throw UsageError(error.description, suggestsHelp: false)
            }
        }
        var optionValues: [String: String] = [:]
        for (flag, option) in optionFlags {
            if let value = arguments.value(flag) { optionValues[option] = value }
        }
        if let device { optionValues["device"] = device }
        do throws(OptionError) {
            return try OptionResolver(devices: devices).resolve(optionValues, plan: plan)
        } catch {
            throw UsageError(flagSpelling(error.message))
        }
    }

    /// The most `--max-seconds` takes: `max_job_seconds`'s own bound.
    static let maxSecondsRange = 1...7 * 86_400

    /// How the usage names the default of `--max-seconds`: the embedded `max_job_seconds`.
    static var maxSecondsDefaultText: String {
        let seconds = (try? ServiceConfiguration.maxJobSeconds(environment: [:])).map { "\($0)" } ?? "max_job_seconds"
        return "\(seconds), the service's max_job_seconds, or PREFLIGHT_MAX_JOB_SECONDS"
    }

    /// A command's whole time (`--max-seconds`): the flag's value, else the service's
    /// `max_job_seconds` (its default, or `PREFLIGHT_MAX_JOB_SECONDS`), so that no command
    /// runs without end.
    static func maxSeconds(_ arguments: Arguments) throws(UsageError) -> Int {
        if let text = arguments.value("max-seconds") {
            guard let value = Int(text), maxSecondsRange.contains(value) else {
                throw UsageError(
                    "--max-seconds must be a whole number from \(maxSecondsRange.lowerBound) to \(maxSecondsRange.upperBound), got \"\(text)\"")
            }
            return value
        }
        do throws(ConfigurationError) {
            return try ServiceConfiguration.maxJobSeconds()
        } catch {
            throw UsageError(error.description)
        }
    }

    /// `--out` replaces a file there once the run is over: never the input it reads, and
    /// never a folder (refused now, not after a run whose report would then be lost).
    private static func checkOut(_ out: String, database: String, wal: String?) throws(UsageError) {
        if isSameFile(out, database) || wal.map({ isSameFile(out, $0) }) == true {
            throw UsageError("--out \(out) is the input itself: the migrated database goes to another file, and --db and --wal are never written to", suggestsHelp: false)
        }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: out, isDirectory: &isFolder), isFolder.boolValue {
            throw UsageError("--out \(out) is a folder: give the path of the file to write, such as \(out)/migrated.db", suggestsHelp: false)
        }
    }

    private struct Rehearsal {
        var database: String
        var wal: String?
        var out: String?
        var format: ReportAnswer
        var maxSeconds: Int
    }

    private static func rehearse(
        _ rehearsal: Rehearsal, plan: Plan, options: RunOptions, device: DeviceProfile, workerExecutable: String
    ) throws -> Int32 {
        let cancellation = JobCancellation()
        let stopSignals = StopSignals(cancelling: cancellation)
        defer { stopSignals.release() }
        let directory = try JobDirectory.create(parent: NSTemporaryDirectory())
        // Best effort: a temporary directory left behind loses no result, and the report
        // (already printed, or an error) is what the caller needs.
        defer { try? FileManager.default.removeItem(atPath: directory.path) }
        // Read where it lies: the runner's work copy is the one copy made of it. The job's
        // deadline is the service's `max_job_seconds` mechanism: every worker runs against it.
        let job = Job(
            directory: directory, input: JobInput(database: rehearsal.database, wal: rehearsal.wal), plan: plan,
            options: options, device: device, maxJobSeconds: rehearsal.maxSeconds)
        if let signal = stopSignals.received { return stopped(by: signal) }
        let result = JobRunner(workerExecutable: workerExecutable).run(job, cancellation: cancellation) { line in
            printError(line)
        }
        if let signal = stopSignals.received { return stopped(by: signal) }
        // The work copy itself, moved: no copy of it made, and none left to free.
        if let out = rehearsal.out, let migrated = result.migratedDatabasePath { try moveFile(migrated, to: out) }
        FileHandle.standardOutput.write(Data(ReportRendering.render(result.report, as: rehearsal.format, plan: plan)))
        // A pipeline that checks the status learns of a point that did not survive too.
        let sweepsSurvived = [result.report.killSweep, result.report.diskFullSweep].allSatisfy { $0?.failures.isEmpty ?? true }
            && result.report.powerLossSweep?.failures.isEmpty ?? true
        return result.report.outcome == .completed && sweepsSurvived ? 0 : 1
    }

    /// The exit of a run stopped by a signal. The deferred removal of the job directory runs
    /// on the way out; its workers are dead already (cancelling kills the one running, and
    /// no other starts).
    private static func stopped(by signal: Int32) -> Int32 {
        printError("preflight run: stopped by \(signal == SIGINT ? "SIGINT" : "SIGTERM"); its job directory and workers are removed")
        return 128 + signal
    }

    /// A plan file, or a folder of an app's migrations imported in memory (docs/CONTRACT.md §4).
    static func loadPlan(_ path: String) throws(UsageError) -> Plan {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw UsageError("cannot read the plan \(path): there is no such file or folder", suggestsHelp: false)
        }
        let document: [UInt8]
        if isDirectory.boolValue {
            do throws(PlanImportError) {
                let layout = try MigrationLayout.detect(in: path)
                let imported = try PlanImport(layout: layout, directory: path).makePlan()
                printError("plan \(imported.name): imported from the \(layout.rawValue) migrations in \(path)")
                for note in imported.notes { printError("note: \(note)") }
                document = imported.document
            } catch {
                throw UsageError("cannot import the plan from \(path): \(error.message)", suggestsHelp: false)
            }
        } else {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UsageError("cannot read the plan file \(path)", suggestsHelp: false)
            }
            document = [UInt8](data)
        }
        let plan: Plan
        do throws(PlanError) {
            plan = try PlanDecoder.decode(document)
        } catch {
            throw UsageError("invalid plan \(path): \(error.message)", suggestsHelp: false)
        }
        // An imported plan's steps that hold what could not be read from the app's code.
        for step in plan.steps where !step.needsReview.isEmpty && !isDirectory.boolValue {
            printError(
                "note: step \(step.version) (\(step.name)) is marked needs_review (\(step.needsReview.count) place\(step.needsReview.count == 1 ? "" : "s")): the rehearsal runs the SQL the step holds")
        }
        return plan
    }

    /// The resolver names options as HTTP does (`watchdog_ms must be ...`); on the command
    /// line they are the flags the user typed (`--watchdog-ms must be ...`).
    static func flagSpelling(_ message: String) -> String {
        for (flag, option) in optionFlags.sorted(by: { $0.option.count > $1.option.count }) where message.hasPrefix(option + " ") {
            return "--" + flag + message.dropFirst(option.count)
        }
        return message
    }
}
