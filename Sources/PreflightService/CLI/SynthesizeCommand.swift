import Foundation
import MigrationCore
import Simulation

/// `preflight synthesize`: a database at a plan's version, filled with made-up rows
/// (CONTRACT §8), for rehearsing a migration on a database as large as a user's.
///
///     preflight synthesize --plan PLAN.json|DIR --version V --rows TABLE=N[,TABLE=N...]
///                          [--like SAMPLE.db] [--seed S] --out FILE
///
/// Prints one line per table and the file's size on stdout. Exit status: 0 made, 1 the
/// values could not be made (a CHECK no value meets, an SQLite failure), 2 bad usage, an
/// invalid plan or one whose steps do not run, an unreadable sample.
enum SynthesizeCommand {
    static let syntax = CommandSyntax(
        command: "preflight synthesize",
        flags: [
            .init("plan", value: "PLAN"), .init("version", value: "V"), .init("rows", value: "TABLE=N,..."),
            .init("like", value: "SAMPLE.db"), .init("seed", value: "S"), .init("out", value: "FILE"),
        ],
        usage: """
            usage: preflight synthesize --plan PLAN.json|DIR --version V --rows TABLE=N[,TABLE=N...]
                                        [--like SAMPLE.db] [--seed S] --out FILE

            Builds the plan's schema at version V (its steps 1..V on an empty file) and fills the
            named tables with N rows each; the other tables stay empty. Values follow the columns'
            types and constraints (distinct keys, NOT NULL, foreign keys to existing parent rows,
            CHECKs); the same seed makes the same rows.

              --plan PLAN       a plan (JSON), or a folder of SQLDelight, Flyway or numbered SQL migrations
              --version V       the version the database is at
              --rows T=N,...    rows per table
              --like SAMPLE.db  follow each column's measured shape in this database (NULLs, lengths,
                                ranges, distinct values); none of its rows is copied
              --seed S          the seed of the values (default 1)
              --out FILE        the database to write (replaced when it exists)

            exit status: 0 made, 1 the values could not be made, 2 bad usage, an invalid plan or sample
            """)

    static func main(_ arguments: [String]) -> Int32 {
        CommandLineAnswer.run(syntax, arguments) { parsed throws(UsageError) in
            try run(parsed)
        }
    }

    private static func run(_ arguments: Arguments) throws(UsageError) -> Int32 {
        guard let planPath = arguments.value("plan") else { throw UsageError("--plan PLAN.json is required") }
        guard let versionText = arguments.value("version") else { throw UsageError("--version V is required") }
        guard let version = Int(versionText) else { throw UsageError("--version must be a whole number, got \"\(versionText)\"") }
        guard let rowsText = arguments.value("rows") else { throw UsageError("--rows TABLE=N[,TABLE=N...] is required") }
        guard let out = arguments.value("out") else { throw UsageError("--out FILE is required") }
        let rows = try tableRows(rowsText)
        let seedText = arguments.value("seed") ?? "1"
        guard let seed = UInt64(seedText) else { throw UsageError("--seed must be a whole number from 0 up, got \"\(seedText)\"") }
        let plan = try RunCommand.loadPlan(planPath)
        do throws(SynthesisError) {
            let sample = try arguments.value("like").map { path throws(SynthesisError) in try SampleShape.measure(path: path) }
            let summary = try Synthesizer.synthesize(
                SynthesisRequest(plan: plan, version: version, rows: rows, like: sample, seed: seed), to: out)
            var text = "\(out): version \(version), \(ByteCount.text(summary.bytes)), journal_mode \(summary.journalMode)\n"
            for table in summary.tables.keys.sorted() {
                text += "  \(table): \(summary.tables[table] ?? 0) rows\n"
            }
            printOutput(text)
            return 0
        } catch {
            printError("preflight synthesize: \(error.message)")
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
