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
    /// Whether the first launch finds the database's pages in the kernel's page cache
    /// already. A phone's first launch after an update does not: the file was last read by
    /// the old release, and the pages have long been reclaimed, so it starts cold. A
    /// relaunch after a kill finds whatever the killed launches read or wrote either way
    /// (the pages belong to the file, not to the process: docs/devices.md).
    public var firstLaunchCache: LaunchCache

    public enum LaunchCache: String, Sendable, Equatable, Codable, CaseIterable {
        case cold, warm
    }

    public init(cpu: CPU, storage: Storage, startMs: Double = 0, firstLaunchCache: LaunchCache = .cold) {
        self.cpu = cpu
        self.storage = storage
        self.startMs = startMs
        self.firstLaunchCache = firstLaunchCache
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
        /// Per 4 KiB page copied between SQLite and the kernel's page cache: a page a read
        /// finds cached (a re-read costs a copy, not a flash read), and every page written.
        public var pageCopyNs: Double
        /// Per statement prepared: its parse and its plan.
        public var prepareNs: Double
        /// Per run of a prepared statement.
        public var statementNs: Double
        /// Per transaction committed, apart from any sync it waits for: its locks taken and
        /// dropped, and its commit record written (`SQLiteWork.transactions`).
        public var transactionNs: Double

        public init(
            vmStepNs: Double, sortNs: Double, cacheMissNs: Double, cacheHitNs: Double, collationNs: Double,
            pageCopyNs: Double, prepareNs: Double, statementNs: Double, transactionNs: Double
        ) {
            self.vmStepNs = vmStepNs
            self.sortNs = sortNs
            self.cacheMissNs = cacheMissNs
            self.cacheHitNs = cacheHitNs
            self.collationNs = collationNs
            self.pageCopyNs = pageCopyNs
            self.prepareNs = prepareNs
            self.statementNs = statementNs
            self.transactionNs = transactionNs
        }

        /// Every cost, in the order of `init`.
        public var costs: [Double] {
            [vmStepNs, sortNs, cacheMissNs, cacheHitNs, collationNs, pageCopyNs, prepareNs, statementNs, transactionNs]
        }

        /// The CPU whose costs are `costs`, in the order of `init`.
        public init(costs: [Double]) {
            self.init(
                vmStepNs: costs[0], sortNs: costs[1], cacheMissNs: costs[2], cacheHitNs: costs[3], collationNs: costs[4],
                pageCopyNs: costs[5], prepareNs: costs[6], statementNs: costs[7], transactionNs: costs[8])
        }

        /// A core `slowdown` times slower than the reference core on every kind of work.
        public func scaled(by slowdown: Double) -> CPU {
            CPU(costs: costs.map { $0 * slowdown })
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
    ///
    /// Those fits saw every page SQLite's cache missed come from this machine's page cache,
    /// so their cost per miss is a miss and a page copy together: it is split between
    /// `cacheMissNs` and `pageCopyNs` here, as no timing of this machine pins the split. The
    /// costs of a statement prepared, a run and a transaction were fitted and timed on the
    /// same machine under other builds' load, and taken below what those timings gave
    /// (docs/performance.md).
    public static let referenceCore = (
        geekbench5SingleCore: 1_250.0,
        cpu: CPU(
            vmStepNs: 21.8, sortNs: 0.58, cacheMissNs: 684.0, cacheHitNs: 184.0, collationNs: 31.3, pageCopyNs: 1_000,
            prepareNs: 5_000, statementNs: 2_000, transactionNs: 10_000))

    /// The reference machine as a device: the reference core, and the storage of the virtual
    /// machine it runs on as `preflight calibrate` fitted it (docs/performance.md). A fit
    /// keeps each cost its timings do not pin at this one's (`SpeedFit`).
    public static let referenceMachine = SpeedModel(
        cpu: referenceCore.cpu,
        storage: Storage(readMBPerS: 1_000, writeMBPerS: 1_000, readLatencyUs: 100, writeLatencyUs: 14.8, flushMs: 0.28))

    /// The CPU of a core with Geekbench 5 single-core score `score`, from the reference core's.
    public static func cpu(geekbench5SingleCore score: Double) -> CPU {
        referenceCore.cpu.scaled(by: referenceCore.geekbench5SingleCore / score)
    }

    /// The device time of `work`.
    public func time(of work: WorkCounts) -> DeviceTime {
        let cpuNs = zip(work.cpuFeatures, cpu.costs).reduce(0) { $0 + $1.0 * $1.1 }
        // MB/s is bytes per microsecond: bytes / (MB/s) / 1000 is milliseconds.
        let readMs = Double(work.randomReads) * storage.readLatencyUs / 1000 + Double(work.bytesRead) / storage.readMBPerS / 1000
        let writeMs = Double(work.flushedExtents) * storage.writeLatencyUs / 1000
            + Double(work.flushedBytes) / storage.writeMBPerS / 1000
        return DeviceTime(cpuMs: cpuNs / 1_000_000, readMs: readMs, writeMs: writeMs, syncMs: Double(work.syncs) * storage.flushMs)
    }
}

/// The work of a launch as the device clock charges it: SQLite's own counts and the I/O
/// the shim VFS saw, on the database's files (temporary files included: a phone writes
/// them too), with the kernel's page cache between SQLite and the flash (the shim's
/// `pagecache.h`).
public struct WorkCounts: Sendable, Equatable {
    public var sqlite = SQLiteWork()
    /// Reads that went to flash and did not start where the same file's previous read ended.
    public var randomReads: Int64 = 0
    /// Bytes of the pages reads found outside the page cache: what the flash delivered.
    public var bytesRead: Int64 = 0
    /// Pages copied between SQLite and the page cache: those reads found there, and every
    /// page written.
    public var cachedPages: Int64 = 0
    /// The runs of bytes the syncs of the database, its journal and its WAL made durable:
    /// each sync's writes since the file's previous sync, merged where they touch.
    public var flushedExtents: Int64 = 0
    /// The bytes those syncs wrote to flash: each page of those runs, once per sync. Pages
    /// no sync follows (a temporary file's, a WAL's between checkpoints) stay in the page
    /// cache.
    public var flushedBytes: Int64 = 0
    /// Syncs of the database, its journal and its WAL (a temp file's sync flushes nothing
    /// that must last, and SQLite does not ask for one).
    public var syncs: Int64 = 0

    public init() {}

    /// The counts the CPU's costs charge, in the order of `SpeedModel.CPU.costs`.
    public var cpuFeatures: [Double] {
        [sqlite.vmSteps, sqlite.sortWork, sqlite.cacheMisses, sqlite.cacheHits, sqlite.collations, cachedPages,
         sqlite.statementsPrepared, sqlite.statementsRun, sqlite.transactions].map(Double.init)
    }

    public static func - (left: WorkCounts, right: WorkCounts) -> WorkCounts {
        var result = WorkCounts()
        result.sqlite = left.sqlite - right.sqlite
        result.randomReads = left.randomReads - right.randomReads
        result.bytesRead = left.bytesRead - right.bytesRead
        result.cachedPages = left.cachedPages - right.cachedPages
        result.flushedExtents = left.flushedExtents - right.flushedExtents
        result.flushedBytes = left.flushedBytes - right.flushedBytes
        result.syncs = left.syncs - right.syncs
        return result
    }
}

extension SpeedModel: Codable {
    enum CodingKeys: String, CodingKey { case cpu, storage, startMs = "start_ms", firstLaunchCache = "first_launch_cache" }
}

extension SpeedModel.CPU: Codable {
    enum CodingKeys: String, CodingKey {
        case vmStepNs = "vm_step_ns", sortNs = "sort_ns", cacheMissNs = "cache_miss_ns", cacheHitNs = "cache_hit_ns"
        case collationNs = "collation_ns", pageCopyNs = "page_copy_ns", prepareNs = "prepare_ns"
        case statementNs = "statement_ns", transactionNs = "transaction_ns"
    }
}

extension SpeedModel.Storage: Codable {
    enum CodingKeys: String, CodingKey {
        case readMBPerS = "read_mb_per_s", writeMBPerS = "write_mb_per_s", readLatencyUs = "read_latency_us"
        case writeLatencyUs = "write_latency_us", flushMs = "flush_ms"
    }
}
