import Foundation
import MigrationCore

/// `preflight-bench rebuild [--rows 1000000] [--runs 3] [--journal-mode delete|wal]`
///
/// Prints, from one run, side by side: the chunked, resumable rebuild (the `Migrator`
/// running a one-step `rebuild` plan) at `batch_rows` 500, 2,000 and 10,000, as a ratio
/// to the same change done by the `sqlite3` CLI in one transaction (the documented
/// CREATE new / INSERT ... SELECT / DROP / RENAME / CREATE INDEX procedure). Each figure
/// is the median of `--runs` runs, each on a fresh copy of the same file; the runs of
/// the four variants are interleaved so that drift of the machine hits them alike.
/// Besides the time: the swap transaction alone, the batches, and the peak size of the
/// database's files (main + journal/WAL, sampled every 2 ms) against the file's size.
///
/// The table: `notes(id INTEGER PRIMARY KEY, title TEXT ~60 chars, body TEXT ~40 chars,
/// updated_at INTEGER)` with one index, about 110 MB of rows at a million. The change: a
/// rebuild that makes `title` NOT NULL and adds a `category` column. The library's
/// defaults on both sides (Debian's: `secure_delete` on, `synchronous` FULL).
func runRebuildBenchmark(arguments: [String]) throws {
    let rows = RebuildBench.integer(arguments, "--rows") ?? 1_000_000
    let runs = max(1, RebuildBench.integer(arguments, "--runs") ?? 3)
    let journalMode = RebuildBench.string(arguments, "--journal-mode") ?? "delete"
    let root = NSTemporaryDirectory() + "/preflight-rebuild-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }

    let base = root + "/base.db"
    print("making \(rows) rows ...")
    try RebuildBench.makeDatabase(base, rows: rows, journalMode: journalMode)
    let bytes = RebuildBench.size(base)
    print("database: \(rows) rows, \(bytes / 1_000_000) MB, journal_mode=\(journalMode); median of \(runs) runs each")

    let batchSizes = [500, 2_000, 10_000]
    var cli: [RebuildBench.Measurement] = []
    var chunked: [Int: [RebuildBench.Measurement]] = [:]
    for run in 1...runs {
        let copy = root + "/run.db"
        try RebuildBench.fresh(copy, from: base)
        cli.append(try RebuildBench.oneTransaction(copy))
        for batchRows in batchSizes {
            try RebuildBench.fresh(copy, from: base)
            chunked[batchRows, default: []].append(try RebuildBench.chunkedRebuild(copy, batchRows: batchRows))
        }
        print("  run \(run): sqlite3 \(RebuildBench.seconds(cli.last!.seconds)), "
            + batchSizes.map { "\($0): \(RebuildBench.seconds(chunked[$0]!.last!.seconds))" }.joined(separator: ", "))
    }

    let cliMedian = RebuildBench.median(cli)
    print("")
    print("sqlite3 CLI, one transaction:   \(RebuildBench.seconds(cliMedian.seconds))  1.00x"
        + "   peak files \(cliMedian.peakBytes / 1_000_000) MB (\(RebuildBench.ratio(Double(cliMedian.peakBytes) / Double(bytes))) of the file)")
    for batchRows in batchSizes {
        let median = RebuildBench.median(chunked[batchRows]!)
        let label = "chunked, batch_rows \(batchRows):".padding(toLength: 31, withPad: " ", startingAt: 0)
        print("\(label) \(RebuildBench.seconds(median.seconds))  \(RebuildBench.ratio(median.seconds / cliMedian.seconds))"
            + "   peak files \(median.peakBytes / 1_000_000) MB (\(RebuildBench.ratio(Double(median.peakBytes) / Double(bytes))) of the file)"
            + "   swap \(median.swapMs ?? 0) ms, \(median.batches ?? 0) batches (copy and purge)")
    }
    print("target: at most 1.30x at batch_rows 2000")
}

private enum RebuildBench {
    struct Measurement {
        var seconds: Double
        var peakBytes: Int64
        var swapMs: Int?
        var batches: Int?
    }

    static let schema = """
        CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT, updated_at INTEGER NOT NULL);
        CREATE INDEX idx_notes_updated ON notes(updated_at);
        """
    static let newColumns =
        "id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT, category TEXT NOT NULL DEFAULT 'none', updated_at INTEGER NOT NULL"
    static let select = "id, coalesce(title, ''), body, 'uncategorized', updated_at"

    static func makeDatabase(_ path: String, rows: Int, journalMode: String) throws {
        let db = try Connection(path: path, create: true)
        try db.execute("PRAGMA journal_mode = \(journalMode)")
        try db.execute("BEGIN")
        try db.execute(schema)
        // Titles of 50-70 characters, bodies of 30-50, timestamps out of key order.
        try db.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO notes
            SELECT i, substr('Title ' || i || ' ' || hex(randomblob(40)), 1, 50 + i % 21),
                   substr('Body ' || hex(randomblob(30)), 1, 30 + i % 21), 1600000000 + (i * 7919) % 100000000
            FROM n
            """)
        try db.execute("PRAGMA user_version = 1")
        try db.execute("COMMIT")
    }

    /// The documented 12-step procedure in one transaction, run by the sqlite3 CLI.
    static func oneTransaction(_ path: String) throws -> Measurement {
        let script = """
            PRAGMA foreign_keys = OFF;
            BEGIN;
            CREATE TABLE new_notes(\(newColumns));
            INSERT INTO new_notes SELECT \(select) FROM notes;
            DROP TABLE notes;
            ALTER TABLE new_notes RENAME TO notes;
            CREATE INDEX idx_notes_updated ON notes(updated_at);
            PRAGMA user_version = 2;
            COMMIT;
            """
        let sampler = PeakSampler(path)
        let start = Date()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path]
        let input = Pipe()
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(start)
        let peak = sampler.stop()
        guard process.terminationStatus == 0 else {
            throw RebuildBenchmarkFailure("sqlite3 exited with \(process.terminationStatus)")
        }
        try check(path)
        return Measurement(seconds: seconds, peakBytes: peak)
    }

    /// The same change as a one-step `rebuild` plan run by the `Migrator`.
    static func chunkedRebuild(_ path: String, batchRows: Int) throws -> Measurement {
        let document = """
            {"name": "bench", "steps": [
              {"version": 1, "name": "create", "sql": \(jsonString(schema))},
              {"version": 2, "name": "rebuild", "rebuild": {"table": "notes", "columns": "\(newColumns)",
               "select": "\(select)", "batch_rows": \(batchRows)}}]}
            """
        let plan = try PlanDecoder.decode(Array(document.utf8))
        let migrator = Migrator(plan: plan, settings: MigrationSettings(spaceCheck: .off))
        let finished = FinishedEvent()
        let sampler = PeakSampler(path)
        let start = Date()
        let ending = migrator.migrate(databaseAt: path) { event in
            if event.event == .stepFinished { finished.event = event }
        }
        let seconds = Date().timeIntervalSince(start)
        let peak = sampler.stop()
        guard ending == .reached(version: 2) else { throw RebuildBenchmarkFailure("the rebuild ended \(ending)") }
        try check(path)
        return Measurement(seconds: seconds, peakBytes: peak, swapMs: finished.event?.swapMs, batches: finished.event?.batches)
    }

    /// Both ways must end with the same table.
    static func check(_ path: String) throws {
        let db = try Connection(path: path)
        let version = try db.userVersion
        let nulls = try db.integer("SELECT count(*) FROM notes WHERE category <> 'uncategorized'")
        let indexes = try db.integer("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'notes'")
        guard version == 2, nulls == 0, indexes == 1 else {
            throw RebuildBenchmarkFailure("unexpected result: user_version \(version), \(nulls) rows uncategorized, \(indexes) indexes")
        }
    }

    static func fresh(_ path: String, from base: String) throws {
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try FileManager.default.copyItem(atPath: base, toPath: path)
        for suffix in ["-wal"] where FileManager.default.fileExists(atPath: base + suffix) {
            try FileManager.default.copyItem(atPath: base + suffix, toPath: path + suffix)
        }
    }

    static func size(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    static func median(_ measurements: [Measurement]) -> Measurement {
        measurements.sorted { $0.seconds < $1.seconds }[measurements.count / 2]
    }

    static func seconds(_ value: Double) -> String { String(format: "%6.2f s", value) }

    static func ratio(_ value: Double) -> String { String(format: "%.2fx", value) }

    static func jsonString(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }

    static func integer(_ arguments: [String], _ name: String) -> Int? {
        string(arguments, name).flatMap { Int($0) }
    }

    static func string(_ arguments: [String], _ name: String) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }
}

/// The last `step_finished` event, written by the migrator's callback on this thread.
private final class FinishedEvent {
    var event: MigrationEvent?
}

/// Polls the sizes of a database's files (main, `-journal`, `-wal`) on a thread of its own
/// and keeps the largest sum seen.
private final class PeakSampler: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var running = true
    private var peak: Int64 = 0
    private let done = DispatchSemaphore(value: 0)

    init(_ path: String) {
        self.path = path
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let total = ["", "-journal", "-wal"].reduce(Int64(0)) { $0 + RebuildBench.size(path + $1) }
                lock.withLock { peak = max(peak, total) }
                usleep(2_000)
            }
            done.signal()
        }
    }

    func stop() -> Int64 {
        lock.withLock { running = false }
        done.wait()
        return lock.withLock { peak }
    }
}

private struct RebuildBenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
