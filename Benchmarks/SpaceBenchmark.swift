import Foundation
import MigrationCore
import Simulation

/// `preflight-bench space [--rows 1000000] [--runs 3] [--journal-mode delete|wal] [--batch-rows 2000]`
///
/// Prints, from one run, the cost of the space VFS (issue 4): the same 1,000,000-row
/// rebuild (a one-step `rebuild` plan run by the `Migrator` in this process) with the
/// shim (`SpaceVFSMeter` registered on a stats file, every file of the database counted
/// and checked against an unlimited quota) and without it (SQLite's own VFS), each on a
/// fresh copy of the same ~110 MB file. Median of `--runs` runs each, the two kinds
/// interleaved (ABBA) so that drift of the machine hits both alike. Target: the shim at
/// most 1.05x.
///
/// Both sides run the space estimate (the Migrator's default `space_check`), which is
/// printed against the shim's measured peak growth.
func runSpaceBenchmark(arguments: [String]) throws {
    let options = try BenchmarkOptions(arguments: arguments, valued: ["--rows", "--runs", "--batch-rows", "--journal-mode"])
    let rows = try options.integer("--rows") ?? 1_000_000
    let runs = max(1, try options.integer("--runs") ?? 3)
    let batchRows = try options.integer("--batch-rows") ?? 2_000
    let modes = options.string("--journal-mode").map { [$0] } ?? ["delete"]
    let root = NSTemporaryDirectory() + "/preflight-space-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    for mode in modes {
        try SpaceBench.compare(root: root, rows: rows, runs: runs, batchRows: batchRows, journalMode: mode)
    }
}

private enum SpaceBench {
    struct Measurement {
        var seconds: Double
        var estimatedBytes: Int64?
        var peakGrowthBytes: Int64?
    }

    static func compare(root: String, rows: Int, runs: Int, batchRows: Int, journalMode: String) throws {
        let base = root + "/base.db"
        try? FileManager.default.removeItem(atPath: base)
        print("making \(rows) rows ...")
        try BenchmarkNotes.makeDatabase(base, rows: rows, journalMode: journalMode)
        print("\ndatabase: \(rows) rows, \(size(base) / 1_000_000) MB, journal_mode=\(journalMode), batch_rows \(batchRows); "
            + "the same rebuild without and with the space VFS, median of \(runs) runs each, interleaved")
        let plan = try PlanDecoder.decode(Array(planDocument(batchRows: batchRows).utf8))

        var plain: [Measurement] = []
        var metered: [Measurement] = []
        for run in 1...runs {
            // ABBA: which goes first alternates, so that neither always runs on a warmer machine.
            let order = run % 2 == 1 ? [false, true] : [true, false]
            for withShim in order {
                let copy = root + "/run.db"
                try BenchmarkNotes.freshCopy(of: base, at: copy)
                let measurement = try rebuild(copy, plan: plan, statsPath: withShim ? root + "/run.stats" : nil)
                if withShim { metered.append(measurement) } else { plain.append(measurement) }
            }
            print("  run \(run): without \(seconds(plain[run - 1].seconds)), with the shim \(seconds(metered[run - 1].seconds))")
        }
        let without = median(plain)
        let with = median(metered)
        print("SQLite's VFS:    \(seconds(without.seconds))  1.00x")
        print("space VFS shim:  \(seconds(with.seconds))  \(String(format: "%.3fx", with.seconds / without.seconds))")
        if let estimated = with.estimatedBytes, let measured = with.peakGrowthBytes, measured > 0 {
            print("step space: estimated \(estimated / 1_000) kB, measured peak growth \(measured / 1_000) kB "
                + "(\(String(format: "%.2fx", Double(estimated) / Double(measured))))")
        }
        print("target: the shim at most 1.05x")
    }

    static func planDocument(batchRows: Int) -> String {
        """
        {"name": "space-bench", "steps": [
          {"version": 1, "name": "create", "sql": \(JSONValue.string(BenchmarkNotes.schema).canonicalText)},
          {"version": 2, "name": "rebuild", "rebuild": {"table": "notes",
           "columns": "\(BenchmarkNotes.newColumns)", "select": "\(BenchmarkNotes.select)", "batch_rows": \(batchRows)}}]}
        """
    }

    /// One rebuild by the `Migrator`; with a stats path, through the space VFS.
    static func rebuild(_ path: String, plan: Plan, statsPath: String?) throws -> Measurement {
        var meter: SpaceVFSMeter?
        if let statsPath {
            try? FileManager.default.removeItem(atPath: statsPath)
            guard SpaceStats.create(path: statsPath, quotaBytes: nil) == 0 else {
                throw SpaceBenchFailure("cannot create the stats file \(statsPath)")
            }
            meter = try SpaceVFSMeter(statsPath: statsPath)
        }
        let migrator = Migrator(plan: plan, settings: MigrationSettings(), spaceMeter: meter)
        let events = StepEvents()
        let start = Date()
        let ending = migrator.migrate(databaseAt: path) { event in events.record(event) }
        let seconds = Date().timeIntervalSince(start)
        guard ending == .reached(version: 2) else { throw SpaceBenchFailure("the rebuild ended \(ending)") }
        let db = try Connection(path: path)
        guard try db.integer("SELECT count(*) FROM notes WHERE category = 'uncategorized'") > 0 else {
            throw SpaceBenchFailure("the rebuild left no rows")
        }
        return Measurement(
            seconds: seconds, estimatedBytes: events.finished?.estimatedBytes,
            peakGrowthBytes: events.finished?.space?.peakGrowthBytes)
    }

    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? 0
    }

    static func median(_ measurements: [Measurement]) -> Measurement {
        measurements.sorted { $0.seconds < $1.seconds }[measurements.count / 2]
    }

    static func seconds(_ value: Double) -> String { String(format: "%6.2f s", value) }
}

/// The rebuild step's `step_finished` event, with its estimate and measured growth.
private final class StepEvents: @unchecked Sendable {
    var finished: MigrationEvent?

    func record(_ event: MigrationEvent) {
        if event.event == .stepFinished, event.version == 2 { finished = event }
    }
}

private struct SpaceBenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
