import Foundation
import MigrationCore

/// `preflight-bench rebuild [--rows 1000000] [--runs 3] [--modes delete,wal,wal-normal]`
///
/// Prints, from one run, side by side: the chunked, resumable rebuild (the `Migrator`
/// running a one-step `rebuild` plan) at `batch_rows` 500, 2,000 and 10,000, as a ratio
/// to the same change done by the `sqlite3` CLI in one transaction (the documented
/// CREATE new / INSERT ... SELECT / DROP / RENAME / CREATE INDEX procedure). Each figure
/// is the median of `--runs` runs, each on a fresh copy of the same file, all the
/// variants interleaved so that drift of the machine hits them alike.
///
/// Also the floor of any rebuild whose every transaction holds at most 2,000 rows: the
/// `sqlite3` CLI copying in committed batches of 2,000 rows into the new table and its
/// index, swapping (names only), then deleting the old table and its index's entries in
/// committed batches of 2,000 and dropping it once empty
/// (`BenchmarkNotes.batchedRebuildScript`; keeping the old table whole until the bump
/// forbids purging during the copy). The chunked rebuild at `batch_rows` 2,000 is held to
/// at most 1.15x that floor.
///
/// Besides the time: the swap transaction alone, the batches (copy and purge), the peak
/// size of the database's files (main + journal/WAL, sampled every 2 ms) against the
/// file's size, and what one tiny committed transaction costs on this disk in that mode
/// (the fixed price of every batch, which the one-transaction copy pays once).
///
/// Modes, both sides alike: `delete` (rollback journal, the library's `synchronous`
/// FULL), `wal` (WAL, FULL: Android's profile) and `wal-normal` (WAL, NORMAL: the iOS
/// profile). `secure_delete` is the library's default (on in Debian's build, as on
/// Android). The table: `notes(id INTEGER PRIMARY KEY, title TEXT ~60 chars, body TEXT
/// ~40 chars, updated_at INTEGER)` with one index, about 110 MB of rows at a million; the
/// change makes `title` NOT NULL and adds a `category` column.
func runRebuildBenchmark(arguments: [String]) throws {
    let options = try BenchmarkOptions(arguments: arguments, valued: ["--rows", "--runs", "--modes"])
    let rows = try options.integer("--rows") ?? 1_000_000
    let runs = max(1, try options.integer("--runs") ?? 3)
    let names = (options.string("--modes") ?? "delete,wal,wal-normal").split(separator: ",").map(String.init)
    let modes = try names.map { name in
        guard let mode = RebuildBench.Mode(rawValue: name) else {
            throw RebuildBenchmarkFailure("unknown mode \(name); use delete, wal or wal-normal")
        }
        return mode
    }
    let root = NSTemporaryDirectory() + "/preflight-rebuild-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    for mode in modes {
        try RebuildBench.compare(root: root, rows: rows, runs: runs, mode: mode)
    }
}

private enum RebuildBench {
    enum Mode: String {
        case delete, wal, walNormal = "wal-normal"

        var journalMode: String { self == .delete ? "delete" : "wal" }
        /// nil: the library's default (FULL).
        var synchronous: String? { self == .walNormal ? "NORMAL" : nil }
    }

    struct Measurement {
        var seconds: Double
        var peakBytes: Int64
        var swapMs: Int?
        var batches: Int?
    }

    static let batchSizes = [500, 2_000, 10_000]

    static func compare(root: String, rows: Int, runs: Int, mode: Mode) throws {
        let base = root + "/base.db"
        try? FileManager.default.removeItem(atPath: base)
        try BenchmarkNotes.makeDatabase(base, rows: rows, journalMode: mode.journalMode)
        let bytes = size(base)
        print("\ndatabase: \(rows) rows, \(bytes / 1_000_000) MB; journal_mode=\(mode.journalMode), "
            + "synchronous=\(mode.synchronous ?? "FULL"), secure_delete the library's default; median of \(runs) runs")

        var cli: [Measurement] = []
        var floor: [Measurement] = []
        var chunked: [Int: [Measurement]] = [:]
        let copy = root + "/run.db"
        for run in 1...runs {
            try BenchmarkNotes.freshCopy(of: base, at: copy)
            cli.append(try oneTransaction(copy, mode: mode))
            try BenchmarkNotes.freshCopy(of: base, at: copy)
            floor.append(try boundedFloor(copy, rows: rows, batchRows: floorBatchRows, mode: mode))
            for batchRows in batchSizes {
                try BenchmarkNotes.freshCopy(of: base, at: copy)
                chunked[batchRows, default: []].append(try chunkedRebuild(copy, batchRows: batchRows, mode: mode))
            }
            print("  run \(run): sqlite3 \(seconds(cli[run - 1].seconds)), floor \(seconds(floor[run - 1].seconds)), "
                + batchSizes.map { "\($0): \(seconds(chunked[$0]![run - 1].seconds))" }.joined(separator: ", "))
        }
        let commitMs = try commitLatency(root + "/probe.db", mode: mode)
        print("  one tiny committed transaction here, same mode: \(String(format: "%.1f", commitMs)) ms (median of 50)")

        let baseline = median(cli)
        print("  sqlite3 CLI, one transaction:   \(seconds(baseline.seconds))  1.00x"
            + "   peak files \(baseline.peakBytes / 1_000_000) MB (\(ratio(Double(baseline.peakBytes) / Double(bytes))) the file)")
        let floorTime = median(floor).seconds
        print("  floor: sqlite3 CLI, copy and delete in committed batches of \(floorBatchRows): \(seconds(floorTime))  \(ratio(floorTime / baseline.seconds))")
        for batchRows in batchSizes {
            let median = median(chunked[batchRows]!)
            let label = "chunked, batch_rows \(batchRows):".padding(toLength: 31, withPad: " ", startingAt: 0)
            print("  \(label) \(seconds(median.seconds))  \(ratio(median.seconds / baseline.seconds))"
                + "   peak files \(median.peakBytes / 1_000_000) MB (\(ratio(Double(median.peakBytes) / Double(bytes))) the file)"
                + "   swap \(median.swapMs ?? 0) ms, \(median.batches ?? 0) batches"
                + (batchRows == floorBatchRows ? "   \(ratio(median.seconds / floorTime)) the floor" : ""))
        }
        print("  target: at most 1.15x the floor at batch_rows \(floorBatchRows)")
    }

    static func oneTransaction(_ path: String, mode: Mode) throws -> Measurement {
        let script = """
            \(mode.synchronous.map { "PRAGMA synchronous = \($0);" } ?? "")
            PRAGMA foreign_keys = OFF;
            BEGIN;
            \(BenchmarkNotes.rebuildStatements.map { $0 + ";" }.joined(separator: "\n"))
            PRAGMA user_version = 2;
            COMMIT;
            """
        let sampler = PeakSampler(path)
        let shell = Result { try runSQLiteShell(path, script: script) }
        let peak = sampler.stop()
        let seconds = try shell.get()
        try check(path)
        return Measurement(seconds: seconds, peakBytes: peak)
    }

    static let floorBatchRows = 2_000

    /// The least a rebuild does whose every transaction holds at most `batchRows` rows:
    /// the copy and the old table's deletion in committed batches of key ranges.
    static func boundedFloor(_ path: String, rows: Int, batchRows: Int, mode: Mode) throws -> Measurement {
        let script = """
            \(mode.synchronous.map { "PRAGMA synchronous = \($0);" } ?? "")
            PRAGMA foreign_keys = OFF;
            \(BenchmarkNotes.batchedRebuildScript(rows: rows, batchRows: batchRows))
            """
        let seconds = try runSQLiteShell(path, script: script)
        try check(path)
        return Measurement(seconds: seconds, peakBytes: 0)
    }

    /// The same change as a one-step `rebuild` plan run by the `Migrator`.
    static func chunkedRebuild(_ path: String, batchRows: Int, mode: Mode) throws -> Measurement {
        let document = """
            {"name": "bench", "steps": [
              {"version": 1, "name": "create", "sql": \(JSONValue.string(BenchmarkNotes.schema).canonicalText)},
              {"version": 2, "name": "rebuild", "rebuild": {"table": "notes", "columns": "\(BenchmarkNotes.newColumns)",
               "select": "\(BenchmarkNotes.select)", "batch_rows": \(batchRows)}}]}
            """
        let plan = try PlanDecoder.decode(Array(document.utf8))
        let settings = MigrationSettings(spaceCheck: .off, connection: ConnectionSettings(synchronous: mode.synchronous))
        let migrator = Migrator(plan: plan, settings: settings)
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
        let other = try db.integer("SELECT count(*) FROM notes WHERE category <> 'uncategorized'")
        let indexes = try db.integer("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'notes'")
        let tables = try db.integer("SELECT count(*) FROM sqlite_schema WHERE type = 'table'")
        guard version == 2, other == 0, indexes == 1, tables == 1 else {
            throw RebuildBenchmarkFailure(
                "unexpected result: user_version \(version), \(other) rows not uncategorized, \(indexes) indexes, \(tables) tables")
        }
    }

    /// What one tiny committed transaction costs here (its syncs, mostly).
    static func commitLatency(_ path: String, mode: Mode) throws -> Double {
        DatabaseFiles(path).remove()
        let db = try Connection(path: path, create: true)
        try db.execute("PRAGMA journal_mode = \(mode.journalMode); CREATE TABLE t(x)")
        if let synchronous = mode.synchronous { try db.execute("PRAGMA synchronous = \(synchronous)") }
        var samples: [Double] = []
        for index in 0..<50 {
            let start = Date()
            try db.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES (\(index)); COMMIT")
            samples.append(Date().timeIntervalSince(start) * 1000)
        }
        return samples.sorted()[samples.count / 2]
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
        let files = DatabaseFiles(path)
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let total = [files.path, files.journal, files.wal].reduce(Int64(0)) { $0 + RebuildBench.size($1) }
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
