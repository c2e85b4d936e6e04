import CSQLite
import CSpaceVFS
import MigrationCore

/// The space meter of Preflight's worker: the shim VFS of `CSpaceVFS`, whose counters
/// live in a stats file that the parent reads even after this process was killed.
public final class SpaceVFSMeter: SpaceMeter {
    public var vfsName: String? { SPACEVFS_NAME }

    /// Maps `statsPath` (made by the parent with `SpaceStats.create`) and registers the VFS.
    public init(statsPath: String) throws(SQLiteError) {
        try SQLiteError.check(spacevfs_register(statsPath), nil)
    }

    public func freeBytes() -> Int64? {
        let stats = SpaceStats.current()
        guard stats.quotaBytes >= 0 else { return nil }
        return max(0, stats.quotaBytes - stats.run.totalBytes)
    }

    public func beginStep(_ version: Int) {
        spacevfs_window_begin(Int32(truncatingIfNeeded: version))
    }

    public func stepSpace() -> StepSpace {
        SpaceStats.current().stepSpace
    }
}

/// The counters of a stats file, as Swift values.
public struct SpaceStats: Sendable, Equatable {
    /// Sizes, peaks and traffic of the database's files, by class.
    public struct Counters: Sendable, Equatable {
        public var totalBytes: Int64
        /// The current size of each file class.
        public var bytesByClass: [String: Int64]
        public var peakTotalBytes: Int64
        public var peakBytesByClass: [String: Int64]
        public var bytesWritten: Int64
        public var syncs: Int64
    }

    /// The class names of the report's `space.by_class`, in the C enum's order.
    public static let classNames = ["main", "journal", "wal", "shm", "temp"]

    /// Most total bytes allowed; -1 for unlimited.
    public var quotaBytes: Int64
    public var fullErrors: Int64
    /// The step version the current window belongs to.
    public var windowStep: Int
    public var run: Counters
    public var window: Counters
    /// Total bytes when the current window began.
    public var windowStartBytes: Int64
    /// Syncs of the main file, journal and WAL since the file was created: the run's
    /// durable points, which a kill sweep kills just before.
    public var durableSyncs: Int64
    /// Writes to any file since the stats file was created (a disk-full sweep's points).
    public var writes: Int64
    /// The injected fault (`StorageFault`) that fired, if one did.
    public var firedFault: FiredFault?

    /// Where an injected fault fired.
    public struct FiredFault: Sendable, Equatable {
        /// The class of the file synced or written ("journal", "wal", "main", ...).
        public var fileClass: String
        /// The step that was running (the window's tag).
        public var step: Int
    }

    /// What the step of the current window used.
    public var stepSpace: StepSpace {
        StepSpace(
            peakBytes: window.peakTotalBytes, peakGrowthBytes: max(0, window.peakTotalBytes - windowStartBytes),
            bytesWritten: window.bytesWritten, syncs: window.syncs)
    }

    /// Creates the stats file of a job, before its first launch.
    public static func create(path: String, quotaBytes: Int64?) -> Int32 {
        spacevfs_stats_create(path, quotaBytes ?? -1)
    }

    /// Reads a stats file written by another process (alive or killed).
    public static func read(path: String) -> SpaceStats? {
        var raw = spacevfs_stats()
        guard spacevfs_stats_read(path, &raw) == 0 else { return nil }
        return SpaceStats(raw)
    }

    /// This process's counters (the VFS must be registered).
    static func current() -> SpaceStats {
        var raw = spacevfs_stats()
        spacevfs_snapshot(&raw)
        return SpaceStats(raw)
    }

    init(_ raw: spacevfs_stats) {
        quotaBytes = raw.quota_bytes
        fullErrors = raw.full_errors
        windowStep = Int(raw.window_tag)
        run = Counters(raw.run)
        window = Counters(raw.window)
        windowStartBytes = raw.window_start_bytes
        durableSyncs = raw.durable_syncs
        writes = raw.writes
        let fileClass = Int(raw.fault_class)
        firedFault = raw.fault_hits > 0
            ? FiredFault(
                fileClass: Self.classNames.indices.contains(fileClass) ? Self.classNames[fileClass] : "file",
                step: Int(raw.fault_tag))
            : nil
    }
}

extension SpaceStats.Counters {
    init(_ raw: spacevfs_counters) {
        let sizes = withUnsafeBytes(of: raw.bytes) { Array($0.bindMemory(to: Int64.self)) }
        let peaks = withUnsafeBytes(of: raw.peak_bytes) { Array($0.bindMemory(to: Int64.self)) }
        let written = withUnsafeBytes(of: raw.bytes_written) { Array($0.bindMemory(to: Int64.self)) }
        let syncCounts = withUnsafeBytes(of: raw.syncs) { Array($0.bindMemory(to: Int64.self)) }
        func byClass(_ values: [Int64]) -> [String: Int64] {
            var named: [String: Int64] = [:]
            for (index, name) in SpaceStats.classNames.enumerated() where index < values.count { named[name] = values[index] }
            return named
        }
        self.init(
            totalBytes: raw.total_bytes, bytesByClass: byClass(sizes), peakTotalBytes: raw.peak_total_bytes,
            peakBytesByClass: byClass(peaks),
            bytesWritten: written.reduce(0, +), syncs: syncCounts.reduce(0, +))
    }
}
