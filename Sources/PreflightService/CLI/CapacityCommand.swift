import Foundation
import Glibc
import MigrationCore
import Simulation

/// `preflight capacity`: how large a database can be before the migration stops
/// completing on the device (docs/CONTRACT.md §8).
///
///     preflight capacity --plan PLAN.json|DIR [--from V] [--table T] [--like SAMPLE.db]
///                        [--max-rows N] [--max-seconds S] [--bisect PERCENT] [run options] [--format json|text]
///                        [--chart FILE]
///
/// Exit status: 0 with an answer (whatever it says), 1 when the search could not run (the
/// plan's SQL does not synthesize, the sample cannot be read), 2 for bad usage or an
/// invalid plan, 130/143 when stopped by SIGINT/SIGTERM.
public enum CapacityCommand {
    static let syntax = CommandSyntax(
        command: "preflight capacity",
        flags: [
            .init("plan", value: "PLAN"), .init("from", value: "V"), .init("table", value: "T"), .init("like", value: "FILE"),
            .init("max-rows", value: "N"), .init("max-seconds", value: "S"), .init("bisect", value: "PERCENT"),
            .init("format", value: "FORMAT"),
            .init("chart", value: "FILE"), .init("devices-dir", value: "DIR"),
        ] + SynthesisCacheFlags.flags + RunCommand.optionFlags.map { .init($0.flag, value: "VALUE") },
        usage: """
            usage: preflight capacity --plan PLAN.json|DIR [--from V] [--table T] [--like SAMPLE.db] [--max-rows N]
                                      [--max-seconds S] [--bisect PERCENT] [--format json|text] [--chart FILE]
                                      [--devices-dir DIR] [--synthesis-cache DIR|off] [--synthesis-cache-bytes N]
                                      [run options]

            Finds how large a database can be before the migration stops completing in one launch on
            the device, and where its launches run out: it synthesizes databases from the plan's own
            SQL and rehearses each as 'preflight run' does (real workers, real watchdog kills). On the
            device clock (the default where the profile has a speed model) it measures a few small
            sizes, predicts the boundary from their costs and confirms it with one run just below
            and one just above; where a confirmation disagrees, it bisects (method "searched").
            Off the device clock, or with --bisect, it bisects from geometric steps. It prints the
            sizes tried, the first size that did not complete, each step's cost per row, the
            prediction with its confirming runs and its own time (progress on stderr: one line per size).

              --plan PLAN         a plan (JSON), or a folder of SQLDelight, Flyway or numbered SQL migrations
              --from V            the version of the synthesized files (default: the sample's, else 1)
              --table T           the table that grows (default: the sample's largest table, else the
                                  first table the plan rewrites); the others keep the sample's proportions
              --like SAMPLE.db    a fixture or device file whose shape the synthesized rows follow
              --max-rows N        the largest size to try (default \(CountText.grouped(CapacityRequest.defaultMaxRows)))
              --max-seconds S     the whole search's time (default \(CapacityRequest.defaultMaxSeconds), at most
                                  \(RunCommand.maxSecondsDefaultText)); past it the
                                  search answers with the sizes measured, its worker killed
              --bisect PERCENT    no prediction: bisect until the sizes either side of each boundary are
                                  within PERCENT (the exhaustive reference; e.g. 1)
              --format FORMAT     json (the default) or text (a table of the sizes and a one-line verdict)
              --chart FILE        write an SVG of time per step against rows, with the watchdog's deadline
              --devices-dir DIR   device profiles (default: Config/devices, when there is one)
            \(SynthesisCacheFlags.usage(column: 18))

            run options (docs/CONTRACT.md §2), as for 'preflight run': \(RunCommand.optionFlags.map { "--" + $0.flag }.joined(separator: ", "))

            Times are the device's (device_ms) on the device clock; on the wall clock they are this
            machine's, and the device's time_scale shrinks the watchdog to watchdog_ms / time_scale.

            exit status: 0 an answer, 1 the search could not run, 2 bad usage or an invalid plan,
            130/143 stopped by SIGINT/SIGTERM
            """)

    public static func main(_ arguments: [String], workerExecutable: String) -> Int32 {
        CommandLineAnswer.run(syntax, arguments) { parsed throws(UsageError) in
            try run(parsed, workerExecutable: workerExecutable)
        }
    }

    enum Format: String { case json, text }

    private static func run(_ arguments: Arguments, workerExecutable: String) throws(UsageError) -> Int32 {
        guard let planPath = arguments.value("plan") else { throw UsageError("--plan PLAN.json is required") }
        let formatName = arguments.value("format") ?? "json"
        guard let format = Format(rawValue: formatName) else {
            throw UsageError("--format must be json or text, got \"\(formatName)\"")
        }
        let plan = try RunCommand.loadPlan(planPath)
        let (options, device) = try RunCommand.runOptions(arguments, plan: plan)
        var request = CapacityRequest(plan: plan, options: options, device: device, table: arguments.value("table"))
        // The command has the machine to itself: a confirming pair runs side by side where there are the cores.
        request.sideBySide = min(2, ProcessInfo.processInfo.activeProcessorCount)
        request.synthesisCache = try SynthesisCacheFlags.cache(arguments)
        if let text = arguments.value("from") {
            request.fromVersion = try integer(text, flag: "from", range: 1...max(1, plan.newestVersion - 1))
        }
        if let text = arguments.value("max-rows") {
            request.maxRows = try integer(text, flag: "max-rows", range: 1...Int(Int32.max))
        }
        if let text = arguments.value("max-seconds") {
            request.maxSeconds = try integer(text, flag: "max-seconds", range: 1...86_400)
        }
        if let text = arguments.value("bisect") {
            guard let percent = Double(text), percent >= 0.1, percent <= 100 else {
                throw UsageError("--bisect must be a percentage from 0.1 to 100, got \"\(text)\"")
            }
            request.bisectPercent = percent
        }
        let sample = arguments.value("like")
        if let sample, !FileManager.default.isReadableFile(atPath: sample) {
            throw UsageError("cannot read the sample database \(sample)", suggestsHelp: false)
        }
        do throws(ConfigurationError) {
            request.maxSeconds = min(request.maxSeconds, try ServiceConfiguration.maxJobSeconds())
        } catch {
            throw UsageError(error.description)
        }
        return search(request, sample: sample, format: format, chart: arguments.value("chart"), workerExecutable: workerExecutable)
    }

    private static func search(
        _ request: CapacityRequest, sample: String?, format: Format, chart: String?, workerExecutable: String
    ) -> Int32 {
        let cancellation = JobCancellation()
        let stopSignals = StopSignals(cancelling: cancellation)
        defer { stopSignals.release() }
        guard let directory = CommandLineAnswer.workingDirectory("preflight capacity") else { return 1 }
        // Best effort: a temporary directory left behind loses no result.
        defer { try? FileManager.default.removeItem(atPath: directory.path) }
        if let sample {
            do {
                try copyFile(sample, to: directory.input.path)
            } catch {
                printError("preflight capacity: cannot copy the sample \(sample): \(error)")
                return 1
            }
        }
        let answer: CapacityAnswer
        do throws(CapacityError) {
            answer = try CapacityRehearsal(workerExecutable: workerExecutable).run(
                request, directory: directory, cancellation: cancellation) { printError($0) }
        } catch {
            if let signal = stopSignals.received {
                printError("preflight capacity: stopped by \(signal == SIGINT ? "SIGINT" : "SIGTERM"); its files and workers are removed")
                return 128 + signal
            }
            printError("preflight capacity: \(error.message) (\(error.code))")
            return 1
        }
        if let chart {
            let svg = CapacityChart.document(answer, deadlineMs: CapacityChart.deadlineMs(request.options))
            guard FileManager.default.createFile(atPath: chart, contents: Data(svg.utf8)) else {
                printError("preflight capacity: cannot write the chart to \(chart)")
                return 1
            }
        }
        switch format {
        case .json: FileHandle.standardOutput.write(Data(CapacityRendering.json(answer)))
        case .text: printOutput(CapacityRendering.text(answer, plan: request.plan))
        }
        return 0
    }

    private static func integer(_ text: String, flag: String, range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(flag) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
        }
        return value
    }
}
