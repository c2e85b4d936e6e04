import Foundation
import Glibc
import MigrationCore
import Simulation

/// `preflight matrix`: rehearses every starting version on every device (docs/CONTRACT.md §11).
///
///     preflight matrix --plan PLAN|NAME [--fixtures DIR] [--db FILE ...] [--device D ...] [--devices A,B]
///                      [--from V] [--rows TABLE=N,... | --like SAMPLE.db] [--shard I/N] [--jobs N]
///                      [--format json|text|junit|html] [--out FILE] [--max-seconds S] [run options]
///     preflight matrix merge FILE... [--format ...] [--out FILE]
///
/// Exit status: 0 when every cell completed, 1 when one did not, 2 for bad usage or an
/// invalid plan, 130/143 when stopped by SIGINT/SIGTERM.
public enum MatrixCommand {
    /// The run options but `device`: the matrix's devices are its columns.
    static let optionFlags = RunCommand.optionFlags.filter { $0.option != "device" }

    static let syntax = CommandSyntax(
        command: "preflight matrix",
        flags: [
            .init("plan", value: "PLAN"), .init("fixtures", value: "DIR"), .init("db", value: "FILE", repeatable: true),
            .init("device", value: "D", repeatable: true), .init("devices", value: "A,B"), .init("from", value: "V"),
            .init("rows", value: "TABLE=N,..."), .init("like", value: "FILE"), .init("shard", value: "I/N"),
            .init("jobs", value: "N"), .init("format", value: "FORMAT"), .init("out", value: "FILE"),
            .init("max-seconds", value: "S"), .init("devices-dir", value: "DIR"), .init("plans-dir", value: "DIR"),
        ] + SynthesisCacheFlags.flags + optionFlags.map { .init($0.flag, value: "VALUE") },
        usage: """
            usage: preflight matrix --plan PLAN|NAME [--fixtures DIR] [--db FILE ...] [--device D ... | --devices A,B]
                                    [--from V] [--rows TABLE=N,... | --like SAMPLE.db] [--shard I/N] [--jobs N]
                                    [--format json|text|junit|html] [--out FILE] [--max-seconds S]
                                    [--synthesis-cache DIR|off] [--synthesis-cache-bytes N] [run options]
                   preflight matrix merge FILE... [--format json|text|junit|html] [--out FILE]

            Rehearses the plan from every starting version on every device: one row per version
            from --from to the target - 1 and one for the fresh install (an empty file), one cell
            per row and device, each an ordinary rehearsal as 'preflight run' does it. A version
            with a fixture starts from the fixture (its version read from its header); the others
            start from a file synthesized once per version from the plan's own SQL (or taken from the
            synthesis cache, when an earlier run made the same file: "cached": true). A fixture that
            cannot run (another app's, a future version, not a database, a second one at a version)
            is a row with its own outcome. Progress on stderr: one line per finished cell.

              --plan PLAN         a plan (JSON), a folder of SQLDelight, Flyway or numbered SQL
                                  migrations, or the name of a registered plan (in --plans-dir)
              --fixtures DIR      every database in DIR is a fixture (FILE-wal beside FILE is its WAL)
              --db FILE           a fixture (repeatable); FILE-wal beside it is its WAL
              --device D          a device profile (repeatable); --devices A,B names several at once
                                  (default: default)
              --from V            the oldest version still supported (default 1)
              --rows TABLE=N,...  the size of the synthesized files, rows per table
              --like SAMPLE.db    synthesized rows follow the sample's shape (and, without --rows,
                                  its tables' row counts)
              --shard I/N         run only the I-th of N deterministic shares of the cells (I from
                                  1) and write that partial answer; 'preflight matrix merge' joins them
              --jobs N            cells run at once (default: this machine's cores, \(defaultJobs))
              --format FORMAT     json (the default), text (a grid), junit (one test case per cell)
                                  or html (the grid as a page)
              --out FILE          write the answer there instead of stdout
              --max-seconds S     the whole matrix's wall-clock time, every worker included (default
                                  \(RunCommand.maxSecondsDefaultText)); past it the cells not run
                                  end failed (time_limit), the running ones are killed, exit status 1
              --devices-dir DIR   device profiles (default: Config/devices, when there is one)
              --plans-dir DIR     registered plans (default: Config/plans, when there is one)
            \(SynthesisCacheFlags.usage(column: 18))

            run options (docs/CONTRACT.md §2), for every device: \(optionFlags.map { "--" + $0.flag }.joined(separator: ", "))

            merge: joins shards' partial answers (FILE...) into the answer the unsharded matrix
            gives; it fails when a shard is missing or given twice, or comes from another plan,
            other inputs or other options.

            exit status: 0 every cell completed, 1 a cell did not (or a merge failed), 2 bad usage
            or an invalid plan, 130/143 stopped by SIGINT/SIGTERM
            """)

    static var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    public static func main(_ arguments: [String], workerExecutable: String) -> Int32 {
        if arguments.first == "merge" { return MatrixMergeCommand.main(Array(arguments.dropFirst())) }
        return CommandLineAnswer.run(syntax, arguments) { parsed throws(UsageError) in
            try run(parsed, workerExecutable: workerExecutable)
        }
    }

    private static func run(_ arguments: Arguments, workerExecutable: String) throws(UsageError) -> Int32 {
        guard let planArgument = arguments.value("plan") else { throw UsageError("--plan PLAN is required") }
        let format = try MatrixOutput(arguments)
        let plan = try loadPlan(planArgument, plansDirectory: arguments.value("plans-dir"))
        let devices = try matrixDevices(arguments, plan: plan)
        let target = devices[0].options.target ?? plan.newestVersion
        var from = 1
        if let text = arguments.value("from") {
            guard let value = Int(text), (0...max(0, target - 1)).contains(value) else {
                throw UsageError("--from must be a whole number from 0 to \(max(0, target - 1)) (below the target, v\(target)), got \"\(text)\"")
            }
            from = value
        }
        let rows = try arguments.value("rows").map { text throws(UsageError) in try SynthesizeCommand.tableRows(text) } ?? [:]
        let sample = arguments.value("like")
        if let sample, !FileManager.default.isReadableFile(atPath: sample) {
            throw UsageError("cannot read the sample database \(sample)", suggestsHelp: false)
        }
        let fixtures = try fixtures(arguments)
        var shard: MatrixShard?
        if let text = arguments.value("shard") {
            guard let value = MatrixShard(text) else {
                throw UsageError("--shard takes I/N with 1 ≤ I ≤ N (the I-th of N shares), got \"\(text)\"")
            }
            shard = value
        }
        var jobs = defaultJobs
        if let text = arguments.value("jobs") {
            guard let value = Int(text), (1...256).contains(value) else {
                throw UsageError("--jobs must be a whole number from 1 to 256, got \"\(text)\"")
            }
            jobs = value
        }
        let request = MatrixRequest(
            plan: plan, devices: devices, fromVersion: from, fixtures: fixtures, rows: rows, sample: sample,
            maxSeconds: try RunCommand.maxSeconds(arguments), parallelism: jobs, shard: shard,
            synthesisCache: try SynthesisCacheFlags.cache(arguments))
        return rehearse(request, output: format, workerExecutable: workerExecutable)
    }

    private static func rehearse(_ request: MatrixRequest, output: MatrixOutput, workerExecutable: String) -> Int32 {
        let cancellation = JobCancellation()
        let stopSignals = StopSignals(cancelling: cancellation)
        defer { stopSignals.release() }
        guard let directory = CommandLineAnswer.workingDirectory("preflight matrix") else { return 1 }
        // Best effort: a temporary directory left behind loses no result.
        defer { try? FileManager.default.removeItem(atPath: directory.path) }
        let answer = MatrixRehearsal(workerExecutable: workerExecutable).run(
            request, directory: directory, cancellation: cancellation) { printError($0) }
        if let signal = stopSignals.received {
            printError("preflight matrix: stopped by \(signal == SIGINT ? "SIGINT" : "SIGTERM"); its files and workers are removed")
            return 128 + signal
        }
        return output.write(answer, plan: request.plan)
    }

    /// A plan file or folder (as `preflight run` reads it), else a registered plan's name.
    private static func loadPlan(_ argument: String, plansDirectory: String?) throws(UsageError) -> Plan {
        let directory = plansDirectory ?? "Config/plans"
        if !FileManager.default.fileExists(atPath: argument), !argument.contains("/"),
            FileManager.default.fileExists(atPath: directory)
        {
            let catalog: PlanCatalog
            do throws(ConfigurationError) {
                catalog = try PlanCatalog(directory: directory)
            } catch {
                throw UsageError(error.description, suggestsHelp: false)
            }
            guard let plan = catalog.plan(named: argument) else {
                throw UsageError(
                    "--plan \(argument) is neither a file nor a registered plan; registered in \(directory): \(catalog.names.joined(separator: ", "))",
                    suggestsHelp: false)
            }
            return plan
        }
        return try RunCommand.loadPlan(argument)
    }

    /// The devices named by `--device` and `--devices`, in order, each with the run options.
    private static func matrixDevices(_ arguments: Arguments, plan: Plan) throws(UsageError) -> [MatrixDevice] {
        var names = arguments.values("device")
        if let list = arguments.value("devices") {
            names += list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        if names.isEmpty { names = ["default"] }
        var seen = Set<String>()
        for name in names where !seen.insert(name).inserted {
            throw UsageError("device \(name) is named twice")
        }
        var devices: [MatrixDevice] = []
        for name in names {
            let (options, profile) = try RunCommand.runOptions(arguments, plan: plan, device: name)
            devices.append(MatrixDevice(options: options, profile: profile))
        }
        return devices
    }

    /// `--fixtures DIR` (every file but SQLite's sidecars, by name) and each `--db`: a
    /// `-wal` beside a file is its WAL; one without its file is a fixture of its own, a row
    /// that says so.
    private static func fixtures(_ arguments: Arguments) throws(UsageError) -> [MatrixFixture] {
        var paths: [String] = []
        var orphanWALs: [String] = []
        if let directory = arguments.value("fixtures") {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            } catch {
                throw UsageError("cannot read the fixtures folder \(directory): \(error.localizedDescription)", suggestsHelp: false)
            }
            let sidecars = ["-wal", "-shm", "-journal"]
            for name in names where !name.hasPrefix(".") {
                let path = (directory as NSString).appendingPathComponent(name)
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
                if name.hasSuffix("-wal") {
                    if !names.contains(String(name.dropLast(4))) { orphanWALs.append(path) }
                } else if !sidecars.contains(where: { name.hasSuffix($0) }) {
                    paths.append(path)
                }
            }
        }
        for path in arguments.values("db") {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw UsageError("cannot read the fixture \(path)", suggestsHelp: false)
            }
            paths.append(path)
        }
        var fixtures = paths.map { path in
            let wal = path + "-wal"
            return MatrixFixture(
                name: (path as NSString).lastPathComponent, database: path,
                wal: FileManager.default.fileExists(atPath: wal) ? wal : nil)
        }
        fixtures += orphanWALs.map { MatrixFixture(name: ($0 as NSString).lastPathComponent, database: nil, wal: $0) }
        return fixtures
    }
}

/// Where and how a matrix answer is written (`--format`, `--out`), and the exit status it
/// gives: shared by a matrix and its merge.
struct MatrixOutput {
    enum Form: String { case json, text, junit, html }

    var form: Form
    var out: String?

    init(_ arguments: Arguments) throws(UsageError) {
        let name = arguments.value("format") ?? "json"
        guard let form = Form(rawValue: name) else {
            throw UsageError("--format must be json, text, junit or html, got \"\(name)\"")
        }
        self.form = form
        out = arguments.value("out")
    }

    /// Writes the answer; 0 when every cell completed, else 1.
    func write(_ answer: MatrixAnswer, plan: Plan?) -> Int32 {
        let bytes: [UInt8]
        switch form {
        case .json: bytes = MatrixRendering.json(answer)
        case .text: bytes = Array(MatrixRendering.text(answer).utf8)
        case .junit: bytes = Array(MatrixRendering.junit(answer).utf8)
        case .html: bytes = Array(MatrixPage.html(answer).utf8)
        }
        if let out {
            guard FileManager.default.createFile(atPath: out, contents: Data(bytes)) else {
                printError("preflight matrix: cannot write the answer to \(out)")
                return 1
            }
        } else {
            FileHandle.standardOutput.write(Data(bytes))
        }
        return answer.allCompleted ? 0 : 1
    }
}
