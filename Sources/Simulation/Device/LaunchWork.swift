import CSpaceVFS
import MigrationCore

/// The work of this process's launch so far, as the device clock charges it: SQLite's own
/// counts on the connections the migrator opened (`WorkMeter`), and the reads, writes and
/// syncs the shim VFS counted since the launch began (the stats file holds every launch's).
///
/// `onWork` hears whenever SQLite reports a stretch of instructions and after every read,
/// write and sync of the shim VFS, once `start()` made this the launch's work.
///
/// The migrator's own work (the space estimate before a step) is left out: the app does not
/// do it, so its phone's clock does not advance with it.
final class LaunchWork: WorkMeter {
    private var counters: [SQLiteWorkCounter] = []
    private let ioAtStart: WorkCounts
    /// All the migrator's own work so far.
    private var ownWork = WorkCounts()
    /// `counts` when the migrator's own work started, while it runs.
    private var countsBeforeOwnWork: WorkCounts?
    var onWork: (() -> Void)?

    /// Counts from now on (the shim VFS must be registered).
    init() { ioAtStart = Self.io() }

    var counts: WorkCounts {
        if let countsBeforeOwnWork { return countsBeforeOwnWork }
        return everything - ownWork
    }

    /// The launch's work with the migrator's own.
    private var everything: WorkCounts {
        var counts = Self.io() - ioAtStart
        for counter in counters { counts.sqlite = counts.sqlite + counter.total }
        return counts
    }

    /// The migrator's own reads do not bring pages into the page cache either: the app's
    /// launch would not have read them.
    func ownWorkStarted() {
        countsBeforeOwnWork = counts
        spacevfs_pause_pages(1)
    }

    func ownWorkEnded() {
        guard let before = countsBeforeOwnWork else { return }
        spacevfs_pause_pages(0)
        countsBeforeOwnWork = nil
        ownWork = everything - before
    }

    /// Makes this the work the shim VFS's I/O reports to.
    func start() {
        activeWork = self
        spacevfs_set_io_hook(launchWorkSawIO)
    }

    func counting(_ counter: SQLiteWorkCounter) { counters.append(counter) }

    func sqliteWorked() { onWork?() }

    /// The shim VFS's counts of this job so far (every launch's).
    private static func io() -> WorkCounts {
        var stats = spacevfs_stats()
        spacevfs_snapshot(&stats)
        func sum<T>(_ values: T, classes: [Int] = allClasses) -> Int64 {
            withUnsafeBytes(of: values) { raw in
                let perClass = raw.bindMemory(to: Int64.self)
                return classes.reduce(0) { $0 + perClass[$1] }
            }
        }
        var counts = WorkCounts()
        counts.randomReads = sum(stats.run.random_reads)
        counts.bytesRead = sum(stats.run.flash_bytes_read)
        counts.cachedPages = sum(stats.run.cached_pages)
        counts.flushedExtents = sum(stats.run.flushed_extents, classes: durableClasses)
        counts.flushedBytes = sum(stats.run.flushed_bytes, classes: durableClasses)
        counts.syncs = sum(stats.run.syncs, classes: durableClasses)
        return counts
    }

    private static let allClasses = Array(0..<Int(SPACEVFS_CLASS_COUNT))
    private static let durableClasses = [Int(SPACEVFS_CLASS_MAIN), Int(SPACEVFS_CLASS_JOURNAL), Int(SPACEVFS_CLASS_WAL)]
}

/// The work of this process's launch: a worker runs one launch, on one thread.
nonisolated(unsafe) private var activeWork: LaunchWork?

/// The shim VFS's hook (a plain C function).
private func launchWorkSawIO() { activeWork?.onWork?() }
