import Foundation
import Glibc
import MigrationCore
import Simulation

/// `preflight run`: rehearses a plan on a copy of a database file and prints the report.
///
///     preflight run --db FILE [--wal FILE] --plan PLAN.json [--out FILE]
///                   [--format json|text|junit] [--devices-dir DIR] [options as --kebab-case]
///
/// Exit status: 0 for `completed`, 1 for any other outcome, 2 for bad usage or an
/// invalid plan. `--db` is never written to.
public enum RunCommand {
    public static let usage = """
        usage: preflight run --db FILE [--wal FILE] --plan PLAN.json [--out FILE] [--format json|text|junit]
                             [--device NAME] [--devices-dir DIR] [--target N] [--watchdog-ms MS]
                             [--free-bytes BYTES] [--launches N] [--space-check estimate|off]
                             [--verify full|quick|off] [--sqlite-check fail|warn]
        """

    public static func main(_ arguments: [String], workerExecutable: String) -> Int32 {
        do {
            return try run(arguments, workerExecutable: workerExecutable)
        } catch let error as UsageError {
            printError("preflight run: \(error.message)\n\(usage)")
            return 2
        } catch {
            printError("preflight run: \(error)")
            return 2
        }
    }

    private static func run(_ arguments: [String], workerExecutable: String) throws -> Int32 {
        var flags = try CommandLineFlags(arguments)
        guard let databasePath = flags.take("db") else { throw UsageError("--db FILE is required") }
        guard let planPath = flags.take("plan") else { throw UsageError("--plan PLAN.json is required") }
        let walPath = flags.take("wal")
        let outPath = flags.take("out")
        guard let format = ReportFormat(rawValue: flags.take("format") ?? "json") else {
            throw UsageError("--format must be json, text or junit")
        }
        let devicesDirectory = flags.take("devices-dir") ?? (FileManager.default.fileExists(atPath: "Config/devices") ? "Config/devices" : nil)
        let optionValues = flags.remainingOptions()

        guard let planData = FileManager.default.contents(atPath: planPath) else {
            throw UsageError("cannot read the plan file \(planPath)")
        }
        let plan: Plan
        do throws(PlanError) {
            plan = try PlanDecoder.decode([UInt8](planData))
        } catch {
            throw UsageError("invalid plan \(planPath): \(error.message)")
        }
        var devices = DeviceCatalog(profiles: [])
        if let devicesDirectory {
            do throws(ConfigurationError) {
                devices = try DeviceCatalog(directory: devicesDirectory)
            } catch {
                throw UsageError(error.description)
            }
        }
        let (options, device): (RunOptions, DeviceProfile)
        do throws(OptionError) {
            (options, device) = try OptionResolver(devices: devices).resolve(optionValues, plan: plan)
        } catch {
            throw UsageError(error.message)
        }
        guard FileManager.default.isReadableFile(atPath: databasePath) else {
            throw UsageError("cannot read the database file \(databasePath)")
        }

        let directory = try JobDirectory.create(parent: NSTemporaryDirectory())
        // Best effort: a temporary directory left behind loses no result, and the report
        // (already printed, or an error) is what the caller needs.
        defer { try? FileManager.default.removeItem(atPath: directory.path) }
        let maxJobSeconds: Int
        do throws(ConfigurationError) {
            maxJobSeconds = try ServiceConfiguration.maxJobSeconds()
        } catch {
            throw UsageError(error.description)
        }
        let job = Job(directory: directory, plan: plan, options: options, device: device, maxJobSeconds: maxJobSeconds)
        try FileManager.default.copyItem(atPath: databasePath, toPath: directory.input.path)
        if let walPath {
            guard FileManager.default.isReadableFile(atPath: walPath) else {
                throw UsageError("cannot read the WAL file \(walPath)")
            }
            try FileManager.default.copyItem(atPath: walPath, toPath: directory.input.wal)
        }

        let result = JobRunner(workerExecutable: workerExecutable).run(job, cancellation: JobCancellation()) { line in
            printError(line)
        }
        if let outPath, let migrated = result.migratedDatabasePath {
            if FileManager.default.fileExists(atPath: outPath) { try FileManager.default.removeItem(atPath: outPath) }
            try FileManager.default.copyItem(atPath: migrated, toPath: outPath)
        }
        FileHandle.standardOutput.write(Data(ReportRendering.render(result.report, as: format)))
        return result.report.outcome == .completed ? 0 : 1
    }
}

struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// `--name value` pairs; the run options are taken by their kebab-case names.
struct CommandLineFlags {
    private var values: [String: String] = [:]

    init(_ arguments: [String]) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw UsageError("unexpected argument \"\(argument)\"")
            }
            var name = String(argument.dropFirst(2))
            var value: String
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            } else {
                guard index + 1 < arguments.count else { throw UsageError("\(argument) needs a value") }
                index += 1
                value = arguments[index]
            }
            guard values[name] == nil else { throw UsageError("\(argument) is given twice") }
            values[name] = value
            index += 1
        }
    }

    mutating func take(_ name: String) -> String? { values.removeValue(forKey: name) }

    /// What is left, as run options (`--watchdog-ms` becomes `watchdog_ms`).
    func remainingOptions() -> [String: String] {
        Dictionary(uniqueKeysWithValues: values.map { ($0.key.replacingOccurrences(of: "-", with: "_"), $0.value) })
    }
}
