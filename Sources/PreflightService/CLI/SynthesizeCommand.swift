import Foundation
import Glibc
import MigrationCore
import Simulation

/// `preflight synthesize`: a database at a plan's version, filled with made-up rows
/// (docs/CONTRACT.md §8), for rehearsing a migration on a database as large as a user's.
///
///     preflight synthesize --plan PLAN.json|DIR --version V --rows TABLE=N[,TABLE=N...]
///                          [--like SAMPLE.db] [--seed S] [--max-seconds S] --out FILE
///
/// Prints one line per table and the file's size on stdout. Exit status: 0 made, 1 the
/// values could not be made (a CHECK no value meets, an SQLite failure) or the time ran
/// out, 2 bad usage, an invalid plan or one whose steps do not run, an unreadable sample.
/// The plan's SQL runs in a `synthesize` worker, as a capacity search's does: confined
/// to a job directory, and killed at `--max-seconds`.
enum SynthesizeCommand {
    static let syntax = CommandSyntax(
        command: "preflight synthesize",
        flags: [
            .init("plan", value: "PLAN"), .init("version", value: "V"), .init("rows", value: "TABLE=N,..."),
            .init("like", value: "SAMPLE.db"), .init("seed", value: "S"), .init("out", value: "FILE"),
            .init("max-seconds", value: "S"),
        ] + SynthesisCacheFlags.flags,
        usage: """
            usage: preflight synthesize --plan PLAN.json|DIR --version V --rows TABLE=N[,TABLE=N...]
                                        [--like SAMPLE.db] [--seed S] [--max-seconds S] [--synthesis-cache DIR|off]
                                        [--synthesis-cache-bytes N] --out FILE

            Builds the plan's schema at version V (as its framework makes a fresh install of V;
            under Room with V's identity hash) and fills the named tables with N rows each; the
            other tables stay empty. Values follow the columns' types and constraints (distinct
            keys, NOT NULL, foreign keys to existing parent rows, CHECKs); the same seed makes the
            same rows.

              --plan PLAN       a plan (JSON), or a folder of SQLDelight, Flyway or numbered SQL migrations
              --version V       the version the database is at
              --rows T=N,...    rows per table
              --like SAMPLE.db  follow each column's measured shape in this database (NULLs, lengths,
                                ranges, distinct values); none of its rows is copied
              --seed S          the seed of the values (default 1)
              --out FILE        the database to write (replaced when it exists)
              --max-seconds S   the whole command's time (default \(RunCommand.maxSecondsDefaultText));
                                past it the worker replaying the plan is killed, nothing is
                                written, and it ends time_limit, exit status 1
            \(SynthesisCacheFlags.usage(column: 18))

            A file made before for the same plan steps, version, rows, seed, sample and SQLite comes
            from the synthesis cache: the same bytes, without a synthesis (a line on stderr says so).

            exit status: 0 made, 1 the values could not be made or the time ran out, 2 bad usage, an
            invalid plan or sample
            """)

    static func main(_ arguments: [String], workerExecutable: String) -> Int32 {
        CommandLineAnswer.run(syntax, arguments) { parsed throws(UsageError) in
            try run(parsed, workerExecutable: workerExecutable)
        }
    }

    private static func run(_ arguments: Arguments, workerExecutable: String) throws(UsageError) -> Int32 {
        guard let planPath = arguments.value("plan") else { throw UsageError("--plan PLAN.json is required") }
        guard let versionText = arguments.value("version") else { throw UsageError("--version V is required") }
        guard let version = Int(versionText) else { throw UsageError("--version must be a whole number, got \"\(versionText)\"") }
        guard let rowsText = arguments.value("rows") else { throw UsageError("--rows TABLE=N[,TABLE=N...] is required") }
        guard let out = arguments.value("out") else { throw UsageError("--out FILE is required") }
        let rows = try tableRows(rowsText)
        let seedText = arguments.value("seed") ?? "1"
        guard let seed = UInt64(seedText) else { throw UsageError("--seed must be a whole number from 0 up, got \"\(seedText)\"") }
        let maxSeconds = try RunCommand.maxSeconds(arguments)
        let cache = try SynthesisCacheFlags.cache(arguments)
        let plan = try RunCommand.loadPlan(planPath)
        let sample = arguments.value("like")
        if let sample, !FileManager.default.isReadableFile(atPath: sample) {
            throw UsageError("cannot read the sample database \(sample)", suggestsHelp: false)
        }
        // The worker's limits are a default device's; synthesis uses no run option.
        let (options, device) = try RunCommand.runOptions(Arguments(), plan: plan)
        let cancellation = JobCancellation()
        let stopSignals = StopSignals(cancelling: cancellation)
        defer { stopSignals.release() }
        guard let directory = CommandLineAnswer.workingDirectory("preflight synthesize") else { return 1 }
        // Best effort: a temporary directory left behind loses no result.
        defer { try? FileManager.default.removeItem(atPath: directory.path) }
        do throws(SynthesisError) {
            let made = try SynthesisInWorker.synthesize(
                plan: plan, version: version, rows: rows, seed: seed, sample: sample,
                job: Job(directory: directory, plan: plan, options: options, device: device),
                workerExecutable: workerExecutable, maxSeconds: maxSeconds, cancellation: cancellation, cache: cache,
                note: { printError("preflight synthesize: \($0)") })
            if let signal = stopSignals.received { return 128 + signal }
            let summary = made.summary
            do {
                try moveFile(made.path, to: out)
            } catch {
                printError("preflight synthesize: cannot write \(out): \(error)")
                return 1
            }
            var text = "\(out): version \(version), \(ByteCount.text(summary.bytes)), journal_mode \(summary.journalMode)\n"
            for table in summary.tables.keys.sorted() {
                text += "  \(table): \(summary.tables[table] ?? 0) rows\n"
            }
            printOutput(text)
            if made.cached, let cache { printError("preflight synthesize: from the synthesis cache (\(cache.directory))") }
            return 0
        } catch {
            if let signal = stopSignals.received { return 128 + signal }
            printError("preflight synthesize: \(error.message)\(error.code == "time_limit" ? " (time_limit)" : "")")
            return error.isBadInput ? CommandLineAnswer.usageStatus : 1
        }
    }

    /// `notes=1000,outbox=200`: rows per table.
    static func tableRows(_ text: String) throws(UsageError) -> [String: Int] {
        var rows: [String: Int] = [:]
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, let count = Int(parts[1]), count >= 0 else {
                throw UsageError("--rows takes TABLE=N[,TABLE=N...] with N a whole number from 0 up, got \"\(item)\"")
            }
            guard rows.updateValue(count, forKey: String(parts[0])) == nil else {
                throw UsageError("--rows names \(parts[0]) twice")
            }
        }
        return rows
    }
}
