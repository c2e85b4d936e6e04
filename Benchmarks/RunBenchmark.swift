import Foundation
import MigrationCore

/// `preflight-bench run [--rows 1000000] [--runs 5] [--modes delete,wal] [--preflight PATH]`
///
/// What a rehearsal costs over doing the same SQL by hand, whole processes each time:
/// `preflight run --verify off` (a fresh process: its own copy of the upload, the hash,
/// the inspecting worker, the launch) against `cp` of the file and the `sqlite3` CLI
/// running the same SQL in one transaction on that fresh copy. Two changes, each as one
/// `sql` step: SQLite's 12-step rebuild (the title made required, a category added), and
/// an `ADD COLUMN` with a `CREATE INDEX` on it. In rollback-journal and WAL mode, both
/// sides with the library's connection defaults (Preflight's `default` device).
///
/// Prints per change and mode the median ratio preflight / (cp + sqlite3) with its
/// min-max over the runs (each run measures both sides, one after the other, so drift of
/// the machine hits them alike), and the report's `timings.phases` of the median run.
func runRunBenchmark(arguments: [String]) throws {
    let options = BenchmarkOptions(arguments: arguments)
    let rows = options.integer("--rows") ?? 1_000_000
    let runs = max(1, options.integer("--runs") ?? 5)
    let executable = try options.string("--preflight") ?? siblingExecutable("preflight")
    let modes = (options.string("--modes") ?? "delete,wal").split(separator: ",").map(String.init)
    for mode in modes where !["delete", "wal"].contains(mode) {
        throw BenchError("unknown mode \(mode); use delete or wal")
    }
    let root = NSTemporaryDirectory() + "/preflight-run-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    for mode in modes {
        let base = root + "/base.db"
        DatabaseFiles(base).remove()
        try BenchmarkNotes.makeDatabase(base, rows: rows, journalMode: mode)
        let megabytes = (try FileManager.default.attributesOfItem(atPath: base)[.size] as? Int ?? 0) / 1_000_000
        print("\ndatabase: \(rows) rows, \(megabytes) MB; journal_mode=\(mode); median of \(runs) runs")
        for change in RunBench.Change.allCases {
            try RunBench.compare(change, base: base, root: root, runs: runs, preflight: executable)
        }
    }
}

private enum RunBench {
    enum Change: CaseIterable {
        case rebuild, addColumnAndIndex

        var label: String {
            switch self {
            case .rebuild: return "12-step rebuild, one sql step"
            case .addColumnAndIndex: return "ADD COLUMN + CREATE INDEX"
            }
        }

        var statements: [String] {
            switch self {
            case .rebuild: return BenchmarkNotes.rebuildStatements
            case .addColumnAndIndex:
                return [
                    "ALTER TABLE notes ADD COLUMN category TEXT NOT NULL DEFAULT 'none'",
                    "CREATE INDEX idx_notes_category ON notes(category)",
                ]
            }
        }
    }

    struct PreflightRun {
        var seconds: Double
        var outcome: String
        var phases: [String: Any]
        /// The runner's own `timings.total_ms`: the rest of the process's time is its start,
        /// the copy of the file into the job directory, and writing the report.
        var totalMs: Int
    }

    static func compare(_ change: Change, base: String, root: String, runs: Int, preflight: String) throws {
        let plan = root + "/plan.json"
        try planDocument(change).write(to: URL(fileURLWithPath: plan))
        var rehearsals: [PreflightRun] = []
        var baselines: [Double] = []
        for _ in 1...runs {
            sync()
            rehearsals.append(try rehearse(base, plan: plan, preflight: preflight))
            sync()
            baselines.append(try byHand(change, base: base, copy: root + "/by-hand.db"))
        }
        let ratios = zip(rehearsals, baselines).map { $0.seconds / $1 }.sorted()
        let middle = rehearsals.sorted { $0.seconds < $1.seconds }[runs / 2]
        let outcomes = Set(rehearsals.map(\.outcome)).sorted().joined(separator: ", ")
        print("  \(change.label): preflight run \(format(middle.seconds)) s, cp + sqlite3 \(format(baselines.sorted()[runs / 2])) s; "
            + "ratio \(String(format: "%.2fx", ratios[runs / 2])) (\(String(format: "%.2f-%.2fx", ratios[0], ratios[runs - 1]))); "
            + "outcome \(outcomes)")
        let names = ["hash_ms", "copy_ms", "count_ms", "launches_ms", "verify_ms", "report_ms"]
        let phases = names.map { "\($0.dropLast(3)) \(middle.phases[$0].map { "\($0)" } ?? "-")" }
        print("    phases of the median run (ms): \(phases.joined(separator: ", ")); total_ms \(middle.totalMs)")
    }

    /// A plan that creates the benchmark's table (version 1, where the file stands) and
    /// makes `change` as version 2.
    static func planDocument(_ change: Change) throws -> Data {
        let schema = BenchmarkNotes.schema.split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
        let document: [String: Any] = [
            "name": "bench",
            "steps": [
                ["version": 1, "name": "create", "sql": schema],
                ["version": 2, "name": "change", "sql": change.statements],
            ],
        ]
        return try JSONSerialization.data(withJSONObject: document)
    }

    /// `preflight run --verify off` on the file, as a process of its own.
    static func rehearse(_ base: String, plan: String, preflight: String) throws -> PreflightRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: preflight)
        process.arguments = ["run", "--db", base, "--plan", plan, "--verify", "off"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let start = Date()
        try process.run()
        let report = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(start)
        guard let object = try JSONSerialization.jsonObject(with: report) as? [String: Any],
            let outcome = object["outcome"] as? String,
            let timings = object["timings"] as? [String: Any], let phases = timings["phases"] as? [String: Any],
            let totalMs = timings["total_ms"] as? Int
        else {
            throw BenchError("preflight run exited \(process.terminationStatus) without a report with timings.phases")
        }
        return PreflightRun(seconds: seconds, outcome: outcome, phases: phases, totalMs: totalMs)
    }

    /// `cp` of the file, then the `sqlite3` CLI making the same change in one transaction.
    static func byHand(_ change: Change, base: String, copy: String) throws -> Double {
        DatabaseFiles(copy).remove()
        let script = """
            BEGIN;
            \(change.statements.map { $0 + ";" }.joined(separator: "\n"))
            PRAGMA user_version = 2;
            COMMIT;
            """
        let start = Date()
        let cp = Process()
        cp.executableURL = URL(fileURLWithPath: "/bin/cp")
        cp.arguments = [base, copy]
        try cp.run()
        cp.waitUntilExit()
        guard cp.terminationStatus == 0 else { throw BenchError("cp exited \(cp.terminationStatus)") }
        try runSQLiteShell(copy, script: script)
        return Date().timeIntervalSince(start)
    }

    static func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }
}
