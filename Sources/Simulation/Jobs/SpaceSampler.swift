import Foundation
import Glibc
import MigrationCore

/// Samples the sizes of the database's files, by class, while the launches run: the
/// report's `space.samples` (docs/CONTRACT.md §3), from which the page draws the space over time.
///
/// The shim VFS keeps the sizes in the job's stats file, which any process can read, so
/// the runner samples from outside the workers: nothing is added to the work the
/// watchdog times, and a sample taken just before a kill is still there after it.
final class SpaceSampler: @unchecked Sendable {
    /// One row: `[t_ms, main, journal, wal, shm, temp]`, `t_ms` from the first launch's start.
    typealias Row = [Int64]

    static let interval = DispatchTimeInterval.milliseconds(20)
    /// The most rows a report carries; longer runs are thinned (`thinned`).
    static let maxRows = 500

    private let statsPath: String
    private let started: ContinuousClock.Instant
    private let lock = NSLock()
    private var rows: [Row] = []
    private var poller: PollingThread?

    /// Starts sampling `statsPath` on a thread of its own; `started` is time zero.
    init(statsPath: String, started: ContinuousClock.Instant) {
        self.statsPath = statsPath
        self.started = started
        poller = PollingThread(every: Self.interval) { [self] in
            sample()
            return true
        }
    }

    /// Stops, takes a last sample (the end state), and answers at most `maxRows` rows.
    func stop() -> [Row] {
        poller?.stop()
        sample()
        return Self.thinned(lock.withLock { rows }, to: Self.maxRows)
    }

    private func sample() {
        guard let stats = SpaceStats.read(path: statsPath) else { return }
        let ms = Int64(milliseconds(ContinuousClock.now - started))
        let row = [ms] + SpaceStats.classNames.map { stats.run.bytesByClass[$0] ?? 0 }
        lock.withLock {
            // Only changes are kept (and the last row of a run of equal sizes, so that a
            // flat stretch keeps its length): an idle minute costs no rows.
            if let last = rows.last, last.dropFirst() == row.dropFirst(), rows.count >= 2,
                rows[rows.count - 2].dropFirst() == row.dropFirst()
            {
                rows[rows.count - 1] = row
            } else {
                rows.append(row)
            }
        }
    }

    /// `rows` cut into `limit` runs of consecutive rows, each kept as its largest row
    /// (by total bytes), so that the peaks survive the thinning; the last row stays last.
    static func thinned(_ rows: [Row], to limit: Int) -> [Row] {
        guard rows.count > limit, limit >= 2 else { return rows }
        let body = rows.dropLast()
        let buckets = limit - 1
        var kept: [Row] = []
        for bucket in 0..<buckets {
            let lower = body.startIndex + bucket * body.count / buckets
            let upper = body.startIndex + (bucket + 1) * body.count / buckets
            guard lower < upper else { continue }
            if let largest = body[lower..<upper].max(by: { $0.dropFirst().reduce(0, +) < $1.dropFirst().reduce(0, +) }) {
                kept.append(largest)
            }
        }
        return kept + [rows[rows.count - 1]]
    }
}
