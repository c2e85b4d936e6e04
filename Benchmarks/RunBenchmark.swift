import Foundation
import MigrationCore

/// `preflight-bench run [--rows 1000000] [--runs 5] [--warmup 1] [--modes delete,wal]
///  [--cases rebuild,chunked,add-column,backfill,verify,check] [--dir DIR] [--preflight PATH]`
/// `preflight-bench run --scaling [--scaling-rows 10000,100000,1000000,5000000] [--runs 3] [--modes delete]`
///
/// What a rehearsal costs over doing the same SQL by hand, whole processes each time:
/// `preflight run --out` (a fresh process: its own copy of the file, the hash, the
/// inspecting worker, the launch, the verifying worker, the report, the migrated file
/// kept) against `cp` of the file and the `sqlite3` CLI doing the same work on that fresh
/// copy (which it keeps). Each process is timed from its spawn to its exit (`Program`).
/// Cases (`--verify off` unless said):
/// - `rebuild`: SQLite's 12-step rebuild (the title made required, a category added) as
///   one `sql` step, against the CLI running it in one transaction;
/// - `chunked`: the same change as a `rebuild` step at `batch_rows` 2,000, against its
///   floor with the same bound on every transaction: the CLI copying in committed batches
///   of 2,000 rows into the new table and its index, swapping (names only), then deleting
///   the old table in committed batches of 2,000 and dropping it
///   (`BenchmarkNotes.batchedRebuildScript`);
/// - `add-column`: `ADD COLUMN` and `CREATE INDEX` on it, one `sql` step, against the
///   CLI in one transaction;
/// - `backfill`: a `backfill` step rewriting the titles of the first 100,000 rows at
///   `batch_rows` 10,000, against the CLI committing the same key ranges;
/// - `verify`: `--verify full` of a file with nothing to migrate, against the CLI's
///   `PRAGMA integrity_check` and its `count(*)` of the table;
/// - `check`: a file with nothing to migrate, against the CLI's `PRAGMA quick_check` and
///   its `count(*)`: what the inspection's check of the upload and its counts cost, beside
///   the least a rehearsal does.
/// In rollback-journal and WAL mode, both sides with the library's connection defaults
/// (Preflight's `default` device).
///
/// Protocol: `--warmup` untimed rounds of both sides first (the first writes of a run land
/// on memory the machine has not used yet), then `--runs` rounds, each Preflight then the
/// CLI (ABAB), each after `sync` and with the base file read into the page cache the
/// same way (`PageCache.warm`), so that neither pays for the other's dirty pages or
/// finds the file colder. Prints per case the median of the rounds' ratios with its
/// min-max (each round's pair shares the machine's state of the moment), the medians of
/// both sides and their ratio (which a few slow rounds on one side move more), and where
/// the median run's time went: the report's `timings.phases`, the launch's start
/// (`launches[].start_ms`), the steps (their `elapsed_ms`; with no free-space limit no
/// space estimate runs in them), and what the process spent outside the runner.
///
/// `--scaling`: the `rebuild` and `chunked` cases at each of `--scaling-rows`, one line
/// per size: the ratio and Preflight's overhead over the CLI in seconds, which must stay
/// flat or shrink as a share of the time as the file grows.
func runRunBenchmark(arguments: [String]) throws {
    let options = try BenchmarkOptions(arguments: arguments, valued: ["--rows", "--runs", "--warmup", "--modes", "--cases", "--dir", "--preflight", "--scaling-rows"], flags: ["--scaling"])
    let scaling = options.isSet("--scaling")
    let runs = max(1, try options.integer("--runs") ?? (scaling ? 3 : 5))
    let warmup = max(0, try options.integer("--warmup") ?? 1)
    let executable = try options.string("--preflight") ?? siblingExecutable("preflight")
    let modes = (options.string("--modes") ?? (scaling ? "delete" : "delete,wal")).split(separator: ",").map(String.init)
    for mode in modes where !["delete", "wal"].contains(mode) {
        throw BenchError("unknown mode \(mode); use delete or wal")
    }
    let caseNames = options.string("--cases") ?? (scaling ? "rebuild,chunked" : RunBench.Change.allCases.map(\.rawValue).joined(separator: ","))
    let changes = try caseNames.split(separator: ",").map { name in
        guard let change = RunBench.Change(rawValue: String(name)) else {
            throw BenchError("unknown case \(name); use \(RunBench.Change.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return change
    }
    let sizes = scaling
        ? try (options.string("--scaling-rows") ?? "10000,100000,1000000,5000000").split(separator: ",").map { text in
            guard let rows = Int(text), rows > 0 else { throw BenchError("--scaling-rows: \(text) is not a row count") }
            return rows
        }
        : [try options.integer("--rows") ?? 1_000_000]
    let root = (options.string("--dir") ?? NSTemporaryDirectory()) + "/preflight-run-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    print("load when started: \(loadAverage()); \(runs) timed rounds after \(warmup) untimed, ABAB, each side after sync with the base file read into the page cache")
    var table: [String] = []
    for mode in modes {
        for rows in sizes {
            let base = root + "/base.db"
            DatabaseFiles(base).remove()
            try BenchmarkNotes.makeDatabase(base, rows: rows, journalMode: mode)
            let megabytes = (try FileManager.default.attributesOfItem(atPath: base)[.size] as? Int ?? 0) / 1_000_000
            print("\ndatabase: \(rows) rows, \(megabytes) MB; journal_mode=\(mode); median of \(runs) runs")
            for change in changes {
                let result = try RunBench.compare(
                    change, base: base, rows: rows, root: root, runs: runs, warmup: warmup, preflight: executable)
                table.append("| \(mode) | \(change.rawValue) | \(rows) | \(megabytes) MB | "
                    + String(format: "%.2f s | %.2f s | %.2fx (%.2f-%.2fx) | %.2fx | %+.2f s |", result.preflight, result.byHand,
                        result.ratio, result.minRatio, result.maxRatio, result.mediansRatio,
                        result.preflight - result.byHand))
            }
        }
    }
    print("\nload when done: \(loadAverage())")
    print("\n| mode | case | rows | file | preflight run | by hand | ratio (min-max) | medians' ratio | overhead |")
    print("|---|---|---|---|---|---|---|---|---|")
    table.forEach { print($0) }
}

/// `/proc/loadavg`'s three averages: how busy the machine was while the figures were taken.
func loadAverage() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}

/// How the benchmarks prepare a file before each timed side: every page read once, so
/// that both sides start with the file in the page cache (and the machine's dirty pages
/// written back first, by the caller's `sync`).
enum PageCache {
    static func warm(_ path: String) throws {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { throw BenchError("cannot open \(path) to read it into the page cache") }
        defer { close(file) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while buffer.withUnsafeMutableBytes({ read(file, $0.baseAddress, $0.count) }) > 0 {}
    }
}

enum RunBench {
    enum Change: String, CaseIterable {
        case rebuild, chunked, addColumn = "add-column", backfill, verify, check

        var label: String {
            switch self {
            case .rebuild: return "12-step rebuild, one sql step, vs the CLI in one transaction"
            case .chunked: return "chunked rebuild, batch_rows 2000, vs the CLI copying and then deleting the old table in committed batches of 2000"
            case .addColumn: return "ADD COLUMN + CREATE INDEX vs the CLI in one transaction"
            case .backfill: return "backfill of \(backfillRows) rows, batch_rows \(backfillBatch), vs the CLI committing the same ranges"
            case .verify: return "verify full, nothing to migrate, vs the CLI's integrity_check + count(*)"
            case .check: return "nothing to migrate, vs the CLI's quick_check + count(*)"
            }
        }

        var verify: String { self == .verify ? "full" : "off" }
    }

    static let chunkRows = 2_000
    static let backfillRows = 100_000
    static let backfillBatch = 10_000
    static let backfillSet = "title = upper(title)"

    struct PreflightRun {
        var seconds: Double
        var outcome: String
        var phases: [String: Any]
        /// The runner's own `timings.total_ms`: the rest of the process's time is its start
        /// and writing the report out.
        var totalMs: Int
        var startMs: Int
        var stepsMs: Int
        /// The launches' `elapsed_ms`.
        var elapsedMs: Int
    }

    struct Result {
        var preflight: Double
        var byHand: Double
        var ratio: Double
        var minRatio: Double
        var maxRatio: Double
        /// The ratio of the two sides' medians, which a few slow rounds on one side move more.
        var mediansRatio: Double { preflight / byHand }
    }

    static func compare(
        _ change: Change, base: String, rows: Int, root: String, runs: Int, warmup: Int, preflight: String
    ) throws -> Result {
        let plan = root + "/plan.json"
        try planDocument(change).write(to: URL(fileURLWithPath: plan))
        let scriptFile = root + "/by-hand.sql"
        try byHandScript(change, rows: rows).write(toFile: scriptFile, atomically: false, encoding: .utf8)
        var rehearsals: [PreflightRun] = []
        var baselines: [Double] = []
        let rehearsed = root + "/rehearsed.db", byHandCopy = root + "/by-hand.db"
        for round in 0..<(warmup + runs) {
            // The last round's results go before the `sync`, so that freeing them is done by then.
            DatabaseFiles(rehearsed).remove()
            try prepare(base)
            let rehearsal = try rehearse(base, plan: plan, verify: change.verify, out: rehearsed, preflight: preflight)
            DatabaseFiles(byHandCopy).remove()
            try prepare(base)
            let baseline = try byHand(scriptFile, base: base, copy: byHandCopy)
            guard round >= warmup else { continue }
            rehearsals.append(rehearsal)
            baselines.append(baseline)
        }
        let ratios = zip(rehearsals, baselines).map { $0.seconds / $1 }.sorted()
        let middle = rehearsals.sorted { $0.seconds < $1.seconds }[runs / 2]
        let sortedBaselines = baselines.sorted()
        let outcomes = Set(rehearsals.map(\.outcome)).sorted().joined(separator: ", ")
        let times = rehearsals.map(\.seconds).sorted()
        let result = Result(
            preflight: middle.seconds, byHand: sortedBaselines[runs / 2], ratio: ratios[runs / 2], minRatio: ratios[0],
            maxRatio: ratios[runs - 1])
        print("  \(change.label):")
        print("    preflight run \(format(middle.seconds)) s (\(format(times[0]))-\(format(times[runs - 1]))), "
            + "cp + sqlite3 \(format(sortedBaselines[runs / 2])) s (\(format(sortedBaselines[0]))-\(format(sortedBaselines[runs - 1]))); "
            + "ratio \(String(format: "%.2fx", ratios[runs / 2])) (\(String(format: "%.2f-%.2fx", ratios[0], ratios[runs - 1]))), "
            + "the medians' ratio \(String(format: "%.2fx", result.mediansRatio)); outcome \(outcomes)")
        func phase(_ name: String) -> Int { middle.phases[name] as? Int ?? 0 }
        // A launch's `elapsed_ms` counts its worker's whole start, which ran before its go,
        // beside the copy; the launches' phase, from the go, does not.
        let beforeGo = middle.elapsedMs - phase("launches_ms")
        let launchRest = middle.elapsedMs - middle.startMs - middle.stepsMs
        let outside = Int(middle.seconds * 1000) - middle.totalMs
        let parts = [
            "hash \(phase("hash_ms")) (beside the launches)", "copy \(phase("copy_ms"))",
            "counts \(phase("count_ms")) (beside the copy, for a file without a WAL; the upload's quick_check \(phase("check_ms")) of it)",
            "worker start \(middle.startMs) (\(beforeGo) of it before its go, beside the copy)", "step \(middle.stepsMs)",
            "launch close \(launchRest)", "verification \(phase("verify_ms"))", "report \(phase("report_ms"))",
            "process start and output \(outside)",
        ]
        print("    where the median run's \(Int(middle.seconds * 1000)) ms went (ms): \(parts.joined(separator: ", "))")
        if change == .verify || change == .check {
            let check = try timeCheck(change, base: base, copy: root + "/check.db")
            let (name, ms) = change == .verify ? ("verify phase", phase("verify_ms")) : ("quick_check of the upload", phase("check_ms"))
            print("    the \(name) alone against the CLI's check alone (no cp): \(ms) ms vs \(check) ms")
        }
        return result
    }

    /// Before each timed side: the machine's dirty pages written back, the base file in the page cache.
    static func prepare(_ base: String) throws {
        sync()
        try PageCache.warm(base)
    }

    static var schemaStatements: [String] {
        BenchmarkNotes.schema.split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
    }

    /// The step that makes `change` as version 2 (nil: nothing to migrate).
    static func step(_ change: Change) -> [String: Any]? {
        switch change {
        case .rebuild: return ["version": 2, "name": "change", "sql": BenchmarkNotes.rebuildStatements]
        case .chunked:
            return ["version": 2, "name": "change", "rebuild": [
                "table": "notes", "columns": BenchmarkNotes.newColumns, "select": BenchmarkNotes.select, "batch_rows": chunkRows,
            ]]
        case .addColumn: return ["version": 2, "name": "change", "sql": addColumnStatements]
        case .backfill:
            return ["version": 2, "name": "change", "backfill": [
                "table": "notes", "set": backfillSet, "where": "id <= \(backfillRows)", "batch_rows": backfillBatch,
            ]]
        case .verify, .check: return nil
        }
    }

    static let addColumnStatements = [
        "ALTER TABLE notes ADD COLUMN category TEXT NOT NULL DEFAULT 'none'",
        "CREATE INDEX idx_notes_category ON notes(category)",
    ]

    /// A plan that creates the benchmark's table (version 1, where the file stands) and
    /// makes `change` as version 2.
    static func planDocument(_ change: Change) throws -> Data {
        let steps: [[String: Any]] = [["version": 1, "name": "create", "sql": schemaStatements]] + [step(change)].compactMap { $0 }
        return try JSONSerialization.data(withJSONObject: ["name": "bench", "steps": steps])
    }

    /// What the CLI runs on its copy for `change`.
    static func byHandScript(_ change: Change, rows: Int) -> String {
        switch change {
        case .rebuild, .addColumn:
            let statements = change == .rebuild ? BenchmarkNotes.rebuildStatements : addColumnStatements
            return "BEGIN;\n" + statements.map { $0 + ";" }.joined(separator: "\n") + "\nPRAGMA user_version = 2;\nCOMMIT;"
        case .chunked:
            return BenchmarkNotes.batchedRebuildScript(rows: rows, batchRows: chunkRows)
        case .backfill:
            let last = min(rows, backfillRows)
            let batches = stride(from: 0, to: last, by: backfillBatch).map { start in
                let end = min(last, start + backfillBatch)
                let bump = end == last ? " PRAGMA user_version = 2;" : ""
                return "BEGIN IMMEDIATE; UPDATE notes SET \(backfillSet) WHERE id > \(start) AND id <= \(end);\(bump) COMMIT;"
            }
            return batches.joined(separator: "\n")
        case .verify:
            return "PRAGMA integrity_check;\nSELECT count(*) FROM notes;"
        case .check:
            return "PRAGMA quick_check;\nSELECT count(*) FROM notes;"
        }
    }

    /// `preflight run --verify MODE --out OUT` on the file, as a process of its own. Both
    /// sides end with the migrated file and keep it: the CLI's copy, Preflight's `--out`
    /// (its work copy moved there). Without `--out`, Preflight removes its work copy
    /// before it exits, and on ext4 freeing the blocks of a 131 MB file written to disk
    /// costs 40-55 ms that the CLI side, which leaves its copy, does not pay.
    static func rehearse(_ base: String, plan: String, verify: String, out: String, preflight: String) throws -> PreflightRun {
        let run = try Program(
            preflight, ["run", "--db", base, "--plan", plan, "--verify", verify, "--out", out], capturesOutput: true, quiet: true
        ).run()
        guard let object = try JSONSerialization.jsonObject(with: run.output) as? [String: Any],
            let outcome = object["outcome"] as? String,
            let timings = object["timings"] as? [String: Any], let phases = timings["phases"] as? [String: Any],
            let totalMs = timings["total_ms"] as? Int
        else {
            throw BenchError("preflight run printed no report with timings.phases")
        }
        guard outcome == "completed" else {
            throw BenchError("preflight run ended \(outcome): \(String(describing: object["failure"]))")
        }
        let launches = object["launches"] as? [[String: Any]] ?? []
        let steps = object["steps"] as? [[String: Any]] ?? []
        return PreflightRun(
            seconds: run.seconds, outcome: outcome, phases: phases, totalMs: totalMs,
            startMs: launches.compactMap { $0["start_ms"] as? Int }.reduce(0, +),
            stepsMs: steps.compactMap { $0["elapsed_ms"] as? Int }.reduce(0, +),
            elapsedMs: launches.compactMap { $0["elapsed_ms"] as? Int }.reduce(0, +))
    }

    /// `cp` of the file to the new file `copy`, then the `sqlite3` CLI running the script
    /// in `scriptFile` on it: the seconds of both processes.
    static func byHand(_ scriptFile: String, base: String, copy: String) throws -> Double {
        let cp = try Program("/bin/cp", [base, copy]).run()
        let shell = try Program("/usr/bin/sqlite3", [copy], input: scriptFile).run()
        return cp.seconds + shell.seconds
    }

    /// Milliseconds of the CLI's check (`verify`: integrity_check, `check`: quick_check)
    /// and count on a copy, without the cp.
    static func timeCheck(_ change: Change, base: String, copy: String) throws -> Int {
        try BenchmarkNotes.freshCopy(of: base, at: copy)
        try PageCache.warm(copy)
        return Int(try runSQLiteShell(copy, script: byHandScript(change, rows: 0)) * 1000)
    }

    static func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }
}
