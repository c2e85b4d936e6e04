import MigrationCore

/// How fast a device does a migration's work: a device profile's `speed` (docs/CONTRACT.md §7).
/// The device clock (`DeviceClock`) charges the work SQLite and the file system count
/// (`WorkCounts`) at these rates, so that a launch's time is the device's, the same on
/// every machine and under any load.
public struct SpeedModel: Sendable, Equatable {
    public var cpu: CPU
    public var storage: Storage
    /// The app's own start before its migration opens the database, which the watchdog
    /// counts too.
    public var startMs: Double

    public init(cpu: CPU, storage: Storage, startMs: Double = 0) {
        self.cpu = cpu
        self.storage = storage
        self.startMs = startMs
    }

    /// The cost of SQLite's work on one core.
    public struct CPU: Sendable, Equatable {
        /// Per virtual-machine instruction.
        public var vmStepNs: Double
        /// Per unit of sort work (`SQLiteWork.sortWork`): a sorting statement's instruction,
        /// weighed by the log of their number.
        public var sortNs: Double
        /// Per page read that went to the file (the read itself is the storage's).
        public var cacheMissNs: Double
        /// Per page found in SQLite's page cache: a level of a B-tree search and the search
        /// of that page (`SQLiteWork.cacheHits`), which an index insert pays per row and no
        /// instruction count shows.
        public var cacheHitNs: Double
        /// Per comparison of two texts through a `NOCASE` or `RTRIM` collation
        /// (`SQLiteWork.collations`): a sort or a B-tree search on such an index calls the
        /// collation for each, beside the instructions that feed it.
        public var collationNs: Double

        public init(vmStepNs: Double, sortNs: Double, cacheMissNs: Double, cacheHitNs: Double, collationNs: Double) {
            self.vmStepNs = vmStepNs
            self.sortNs = sortNs
            self.cacheMissNs = cacheMissNs
            self.cacheHitNs = cacheHitNs
            self.collationNs = collationNs
        }

        /// A core `slowdown` times slower than the reference core on every kind of work.
        public func scaled(by slowdown: Double) -> CPU {
            CPU(
                vmStepNs: vmStepNs * slowdown, sortNs: sortNs * slowdown, cacheMissNs: cacheMissNs * slowdown,
                cacheHitNs: cacheHitNs * slowdown, collationNs: collationNs * slowdown)
        }
    }

    /// The storage's cost of each read, write and flush the file system sees.
    public struct Storage: Sendable, Equatable {
        public var readMBPerS: Double
        public var writeMBPerS: Double
        /// Per random read: a read that does not start where the file's previous read
        /// ended (a seek, as flash's random 4K figures time it); a read that streams on is
        /// charged its bytes alone.
        public var readLatencyUs: Double
        /// Per random write, counted where the storage sees it: at the sync that makes the
        /// writes durable, one for each run of bytes written since the file's last sync
        /// (`WorkCounts.flushedExtents`). A copy's appended pages are one run, a backfill's
        /// rewritten pages many. Writes that no sync follows (a WAL between checkpoints, a
        /// temporary file) merge in the page cache and are charged their bytes alone.
        public var writeLatencyUs: Double
        /// Per sync of the database, its journal or its WAL: the flush a commit waits for.
        public var flushMs: Double

        public init(readMBPerS: Double, writeMBPerS: Double, readLatencyUs: Double, writeLatencyUs: Double, flushMs: Double) {
            self.readMBPerS = readMBPerS
            self.writeMBPerS = writeMBPerS
            self.readLatencyUs = readLatencyUs
            self.writeLatencyUs = writeLatencyUs
            self.flushMs = flushMs
        }
    }

    /// The core whose costs a Geekbench score scales (`CPU.scaled(by:)`): the CPU costs
    /// `preflight calibrate` fitted on Preflight's reference machine (each cost the median of
    /// three release-build fits, docs/performance.md), a virtual machine on an
    /// AMD EPYC server core, whose Geekbench 5 single-core score is taken as the published
    /// EPYC figure (docs/FIDELITY.md, "Device speed").
    public static let referenceCore = (
        geekbench5SingleCore: 1_250.0,
        cpu: CPU(vmStepNs: 21.8, sortNs: 0.58, cacheMissNs: 1_684.0, cacheHitNs: 184.0, collationNs: 31.3))

    /// The CPU of a core with Geekbench 5 single-core score `score`, from the reference core's.
    public static func cpu(geekbench5SingleCore score: Double) -> CPU {
        referenceCore.cpu.scaled(by: referenceCore.geekbench5SingleCore / score)
    }

    /// The device time of `work`.
    public func time(of work: WorkCounts) -> DeviceTime {
        let sqlite = work.sqlite
        let cpuNs = Double(sqlite.vmSteps) * cpu.vmStepNs + Double(sqlite.sortWork) * cpu.sortNs
            + Double(sqlite.cacheMisses) * cpu.cacheMissNs + Double(sqlite.cacheHits) * cpu.cacheHitNs
            + Double(sqlite.collations) * cpu.collationNs
        // MB/s is bytes per microsecond: bytes / (MB/s) / 1000 is milliseconds.
        let readMs = Double(work.randomReads) * storage.readLatencyUs / 1000 + Double(work.bytesRead) / storage.readMBPerS / 1000
        let writeMs = Double(work.flushedExtents) * storage.writeLatencyUs / 1000
            + Double(work.bytesWritten) / storage.writeMBPerS / 1000
        return DeviceTime(cpuMs: cpuNs / 1_000_000, readMs: readMs, writeMs: writeMs, syncMs: Double(work.syncs) * storage.flushMs)
    }
}

/// The work of a launch as the device clock charges it: SQLite's own counts and the I/O
/// the shim VFS saw, on the database's files (temporary files included: a phone writes
/// them too).
public struct WorkCounts: Sendable, Equatable {
    public var sqlite = SQLiteWork()
    /// Reads that did not start where the same file's previous read ended.
    public var randomReads: Int64 = 0
    public var bytesRead: Int64 = 0
    /// The runs of bytes the syncs of the database, its journal and its WAL made durable:
    /// each sync's writes since the file's previous sync, merged where they touch.
    public var flushedExtents: Int64 = 0
    public var bytesWritten: Int64 = 0
    /// Syncs of the database, its journal and its WAL (a temp file's sync flushes nothing
    /// that must last, and SQLite does not ask for one).
    public var syncs: Int64 = 0

    public init() {}

    public static func - (left: WorkCounts, right: WorkCounts) -> WorkCounts {
        var result = WorkCounts()
        result.sqlite = left.sqlite - right.sqlite
        result.randomReads = left.randomReads - right.randomReads
        result.bytesRead = left.bytesRead - right.bytesRead
        result.flushedExtents = left.flushedExtents - right.flushedExtents
        result.bytesWritten = left.bytesWritten - right.bytesWritten
        result.syncs = left.syncs - right.syncs
        return result
    }
}

extension SpeedModel: Codable {
    enum CodingKeys: String, CodingKey { case cpu, storage, startMs = "start_ms" }
}

extension SpeedModel.CPU: Codable {
    enum CodingKeys: String, CodingKey {
        case vmStepNs = "vm_step_ns", sortNs = "sort_ns", cacheMissNs = "cache_miss_ns", cacheHitNs = "cache_hit_ns"
        case collationNs = "collation_ns"
    }
}

extension SpeedModel.Storage: Codable {
    enum CodingKeys: String, CodingKey {
        case readMBPerS = "read_mb_per_s", writeMBPerS = "write_mb_per_s", readLatencyUs = "read_latency_us"
        case writeLatencyUs = "write_latency_us", flushMs = "flush_ms"
    }
}
