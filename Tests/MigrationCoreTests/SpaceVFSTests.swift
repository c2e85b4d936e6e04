import CSQLite
import CSpaceVFS
import Foundation
import Testing

/// The shim VFS (Sources/CSpaceVFS) measured against what is really on disk.
///
/// Registration is per process and these tests share one, so the suite is serialized and
/// every test maps a fresh stats file of its own with `spacevfs_register` (re-registering
/// is supported: see spacevfs.c). Each test works in its own temporary directory.
@Suite(.serialized)
struct SpaceVFSTests {
    // MARK: - Journal modes

    @Test func rollbackJournalIsCountedAndGoneAfterCommit() throws {
        let scratch = try Scratch()
        try scratch.startAccounting()
        let db = try TestDB(scratch.path("main.db"))
        try db.run("PRAGMA journal_mode=DELETE")
        try db.run("CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT)")
        try db.run(insertRows(5_000))
        try db.run("UPDATE t SET payload = upper(payload) || 'x'")  // journals every page
        let open = snapshot()
        db.close()
        let closed = snapshot()

        #expect(open.run.peak(.journal) > 0)
        #expect(open.run.current(.journal) == 0)  // deleted at commit
        #expect(open.run.syncs(.journal) > 0)
        #expect(open.run.written(.journal) > 0)
        #expect(open.run.peak(.wal) == 0)
        #expect(open.run.peak(.shm) == 0)
        #expect(closed.run.current(.main) == scratch.size("main.db"))
        #expect(closed.run.total_bytes == scratch.diskBytes())
        #expect(closed.run.peak_total_bytes >= open.run.peak(.main) + open.run.peak(.journal) - 4096)
        #expect(closed.full_errors == 0)
    }

    @Test func walAndShmAreCountedWhileOpenAndGoneAfterClose() throws {
        let scratch = try Scratch()
        try scratch.startAccounting()
        let db = try TestDB(scratch.path("main.db"))
        #expect(try db.text("PRAGMA journal_mode=WAL") == "wal")
        try db.run("CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT)")
        try db.run(insertRows(2_000))
        let open = snapshot()

        #expect(open.run.current(.wal) > 0)
        #expect(open.run.current(.wal) == scratch.size("main.db-wal"))
        #expect(open.run.current(.shm) >= 32_768)
        #expect(open.run.current(.shm) == scratch.size("main.db-shm"))
        #expect(open.run.current(.main) == scratch.size("main.db"))
        #expect(open.run.total_bytes == scratch.diskBytes())
        #expect(open.run.syncs(.wal) > 0)

        db.close()  // checkpoints, then deletes -wal and -shm
        let closed = snapshot()
        #expect(!scratch.exists("main.db-wal") && !scratch.exists("main.db-shm"))
        #expect(closed.run.current(.wal) == 0)
        #expect(closed.run.current(.shm) == 0)
        #expect(closed.run.peak(.wal) >= open.run.current(.wal))
        #expect(closed.run.peak(.shm) >= 32_768)
        #expect(closed.run.total_bytes == scratch.size("main.db"))
        #expect(closed.run.total_bytes == scratch.diskBytes())
    }

    @Test func shmRegionPastTheQuotaIsRefused() throws {
        let scratch = try Scratch()
        let fixture = try TestDB(scratch.path("main.db"), vfs: nil)
        #expect(try fixture.text("PRAGMA journal_mode=WAL") == "wal")
        try fixture.run("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        fixture.close()
        let dbSize = scratch.size("main.db")

        // A reader maps region 0 (32 KiB) of the -shm first: no room for it.
        try scratch.startAccounting(named: "tight.stats", quota: dbSize + 1_000)
        let tight = try TestDB(scratch.path("main.db"))
        #expect(tight.exec("SELECT count(*) FROM t") == SQLITE_FULL)
        tight.close()
        let refused = snapshot()
        #expect(refused.full_errors >= 1)  // the close tries again, to checkpoint
        #expect(refused.run.peak(.shm) == 0)
        #expect(refused.run.total_bytes == dbSize)

        try scratch.startAccounting(named: "roomy.stats", quota: dbSize + 32_768)
        let roomy = try TestDB(scratch.path("main.db"))
        #expect(try roomy.int("SELECT count(*) FROM t") == 1)
        #expect(snapshot().run.current(.shm) == 32_768)
        roomy.close()
        #expect(snapshot().full_errors == 0)
    }

    @Test func existingFileIsSeededWithItsSizeNotCountedTwice() throws {
        let scratch = try Scratch()
        try scratch.buildFixture("main.db", rows: 3_000)
        try scratch.startAccounting()
        for _ in 0..<3 {  // reopening a known path re-seeds it instead of adding it again
            let db = try TestDB(scratch.path("main.db"))
            #expect(try db.int("SELECT count(*) FROM t") == 3_000)
            #expect(snapshot().run.current(.main) == scratch.size("main.db"))
            db.close()
        }
        let s = snapshot()
        #expect(s.run.current(.main) == scratch.size("main.db"))
        #expect(s.run.total_bytes == scratch.size("main.db"))
        #expect(s.run.written(.main) == 0)
    }

    // MARK: - Growth without xWrite

    @Test func sizeHintGrowthIsCountedAndCheckedAgainstTheQuota() throws {
        let scratch = try Scratch()
        try scratch.startAccounting()
        // A chunk size makes the unix VFS fallocate whole chunks on SQLITE_FCNTL_SIZE_HINT.
        let chunked = try TestDB(scratch.path("chunked.db"))
        try chunked.setChunkSize(1 << 20)
        try chunked.run("CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT)")
        try chunked.run(insertRows(30_000))
        #expect(scratch.size("chunked.db") % (1 << 20) == 0 && scratch.size("chunked.db") > 1 << 20)
        #expect(snapshot().run.current(.main) == scratch.size("chunked.db"))
        // With mmap on, the hint ftruncates the file to the hinted size.
        let mapped = try TestDB(scratch.path("mapped.db"))
        try mapped.run("PRAGMA mmap_size=268435456")
        try mapped.run("CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT)")
        try mapped.run(insertRows(30_000))
        #expect(snapshot().run.current(.main) == scratch.size("chunked.db") + scratch.size("mapped.db"))
        chunked.close()
        mapped.close()
        #expect(snapshot().run.total_bytes == scratch.diskBytes())

        // The hint is refused past the quota, before anything is allocated.
        try scratch.startAccounting(named: "tight.stats", quota: 900_000)
        let tight = try TestDB(scratch.path("tight.db"))
        try tight.setChunkSize(1 << 20)
        try tight.run("CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT)")
        #expect(tight.exec(insertRows(30_000)) == SQLITE_FULL)
        let s = snapshot()
        #expect(s.full_errors >= 1)
        #expect(s.run.peak_total_bytes <= 900_000)
        #expect(scratch.size("tight.db") < 1 << 20)  // the chunk was never allocated
        // After SQLITE_FULL the pager leaves a hot journal until the next read; both are counted.
        #expect(s.run.total_bytes == scratch.size("tight.db") + scratch.size("tight.db-journal"))
        #expect(try tight.int("SELECT count(*) FROM t") == 0)
        tight.close()
    }

    // MARK: - Temp files

    @Test func createIndexSorterSpillIsCountedAsTemp() throws {
        let scratch = try Scratch()
        // The unix VFS reads SQLITE_TMPDIR once, in sqlite3_os_init (checked with strace), so in a
        // test process where SQLite is already initialised this does not move the files; a worker
        // sets it before its first SQLite call. The count does not depend on where they are: temp
        // files are unlinked at once and only the shim sees them.
        let previous = getenv("SQLITE_TMPDIR").map { String(cString: $0) }
        setenv("SQLITE_TMPDIR", scratch.directory.path, 1)
        defer {
            if let previous { setenv("SQLITE_TMPDIR", previous, 1) } else { unsetenv("SQLITE_TMPDIR") }
        }
        try scratch.buildFixture("main.db", rows: 100_000)
        try scratch.startAccounting()
        let db = try TestDB(scratch.path("main.db"))
        try db.run("PRAGMA cache_size=-100")
        let before = snapshot()
        try db.run("CREATE INDEX t_payload ON t(payload)")
        let after = snapshot()
        db.close()

        #expect(before.run.peak(.temp) == 0)
        #expect(after.run.peak(.temp) > 1_000_000)  // the sorter spilled ~10 MB of keys
        #expect(after.run.written(.temp) >= after.run.peak(.temp))
        #expect(after.run.current(.temp) == 0)  // closed and gone
        #expect(after.run.peak_total_bytes > before.run.total_bytes + after.run.peak(.temp))
        #expect(snapshot().run.total_bytes == scratch.diskBytes())
    }

    // MARK: - Quota

    @Test func quotaBelowTheNeedFailsWithFullAndRollsBackCleanly() throws {
        let scratch = try Scratch()
        try scratch.buildFixture("fixture.db", rows: 50_000)
        let payloadBytes = 50_000 * 100

        // Unlimited: the statement succeeds; its peak is the need.
        try scratch.copy("fixture.db", to: "unlimited.db")
        try scratch.startAccounting(named: "unlimited.stats")
        let unlimited = try TestDB(scratch.path("unlimited.db"))
        #expect(try grow(unlimited) == SQLITE_OK)
        unlimited.close()
        let need = snapshot().run.peak_total_bytes
        #expect(need > scratch.size("fixture.db"))

        // Exactly the need: still enough (the accounting is exact and deterministic).
        try scratch.copy("fixture.db", to: "exact.db")
        try scratch.startAccounting(named: "exact.stats", quota: need)
        let exact = try TestDB(scratch.path("exact.db"))
        #expect(try grow(exact) == SQLITE_OK)
        exact.close()
        #expect(snapshot().full_errors == 0)

        // A little below: SQLITE_FULL, nothing over the quota, and a whole database after ROLLBACK.
        try scratch.copy("fixture.db", to: "short.db")
        let quota = need - 8_192
        try scratch.startAccounting(named: "short.stats", quota: quota)
        let short = try TestDB(scratch.path("short.db"))
        #expect(try grow(short) == SQLITE_FULL)
        if sqlite3_get_autocommit(short.handle) == 0 {
            try short.run("ROLLBACK")
        }
        #expect(try short.text("PRAGMA integrity_check") == "ok")
        #expect(try short.int("SELECT count(*) FROM t") == 50_000)
        #expect(try short.int("SELECT sum(length(payload)) FROM t") == Int64(payloadBytes))
        short.close()
        let s = snapshot()
        #expect(s.full_errors >= 1)
        #expect(s.run.peak_total_bytes <= quota)
        #expect(s.quota_bytes == quota)
        #expect(s.run.total_bytes == scratch.size("short.db"))
    }

    // MARK: - Stats file and windows

    /// A sync only counted (the device clock's runs) is counted, logged and killed at as one
    /// passed on to the OS is: the same counters, the same journal deleted at each commit,
    /// the same file at the end.
    @Test(arguments: ["DELETE", "WAL"])
    func aSyncOnlyCountedCountsAsOnePassedOn(journalMode: String) throws {
        let scratch = try Scratch()
        func migrate(_ name: String, countingOnly: Bool) throws -> spacevfs_stats {
            try scratch.startAccounting(named: name + ".stats")
            spacevfs_count_flushes_only(countingOnly ? 1 : 0)
            defer { spacevfs_count_flushes_only(0) }
            let db = try TestDB(scratch.path(name))
            try db.run("PRAGMA journal_mode=\(journalMode)")
            try db.run("PRAGMA synchronous=FULL")
            try db.run("CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT)")
            for batch in 0..<5 { try db.run(insertRows(1_000, from: 1 + batch * 1_000)) }
            try db.run("UPDATE t SET payload = upper(payload) || 'x'")
            #expect(!scratch.exists(name + "-journal"))
            db.close()
            return snapshot()
        }
        let passedOn = try migrate("passed-on.db", countingOnly: false)
        let counted = try migrate("counted.db", countingOnly: true)

        #expect(passedOn.durable_syncs > 5)
        #expect(counted.durable_syncs == passedOn.durable_syncs)
        for fileClass in FileClass.allCases {
            #expect(counted.run.syncs(fileClass) == passedOn.run.syncs(fileClass), "\(fileClass) syncs")
            #expect(counted.run.written(fileClass) == passedOn.run.written(fileClass), "\(fileClass) bytes written")
            #expect(counted.run.writeCalls(fileClass) == passedOn.run.writeCalls(fileClass), "\(fileClass) writes")
        }
        let passedOnFile = try Data(contentsOf: URL(fileURLWithPath: scratch.path("passed-on.db")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path("counted.db"))) == passedOnFile)
    }

    @Test func statsFileReadsTheSameValuesAsTheSnapshot() throws {
        let scratch = try Scratch()
        let statsPath = try scratch.startAccounting(quota: 1 << 30)
        let db = try TestDB(scratch.path("main.db"))
        try db.run("PRAGMA journal_mode=WAL")
        try db.run("CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT)")
        try db.run(insertRows(1_000))
        spacevfs_window_begin(42)
        try db.run(insertRows(500, from: 1_001))

        let live = snapshot()
        var fromFile = spacevfs_stats()
        #expect(spacevfs_stats_read(statsPath, &fromFile) == 0)
        #expect(bytesOf(live) == bytesOf(fromFile))
        #expect(fromFile.magic == SPACEVFS_MAGIC)
        #expect(fromFile.layout_version == SPACEVFS_LAYOUT_VERSION)
        #expect(fromFile.quota_bytes == 1 << 30)
        #expect(fromFile.window_tag == 42)
        #expect(fromFile.run.current(.wal) > 0)
        db.close()

        // Not a stats file, or no file: refused, and the registration in place is untouched.
        let bogus = scratch.path("bogus.stats")
        try Data(repeating: 7, count: MemoryLayout<spacevfs_stats>.size).write(to: URL(fileURLWithPath: bogus))
        #expect(spacevfs_stats_read(bogus, &fromFile) == EINVAL)
        #expect(spacevfs_stats_read(scratch.path("missing.stats"), &fromFile) == ENOENT)
        #expect(spacevfs_register(bogus) == SQLITE_CANTOPEN)
        #expect(spacevfs_stats_read(statsPath, &fromFile) == 0)
        #expect(bytesOf(snapshot()) == bytesOf(fromFile))
    }

    @Test func windowShowsOnlyItsStep() throws {
        let scratch = try Scratch()
        try scratch.startAccounting()
        let db = try TestDB(scratch.path("main.db"))
        try db.run("PRAGMA journal_mode=DELETE")
        try db.run("CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT)")
        try db.run(insertRows(20_000))
        try db.run("UPDATE t SET payload = payload || 'x'")  // step 1: a big journal

        spacevfs_window_begin(2)
        let start = snapshot()
        try db.run(insertRows(10, from: 20_001))  // step 2: a few rows
        let end = snapshot()
        db.close()

        let w = end.window
        #expect(end.window_tag == 2)
        #expect(start.window.peak_total_bytes == start.run.total_bytes)
        #expect(start.window.written(.main) == 0)
        for c in FileClass.allCases {
            #expect(w.written(c) == end.run.written(c) - start.run.written(c))
            #expect(w.syncs(c) == end.run.syncs(c) - start.run.syncs(c))
            #expect(w.current(c) == end.run.current(c))
        }
        #expect(w.written(.main) > 0 && w.written(.main) < 100_000)
        #expect(w.peak(.journal) > 0 && w.peak(.journal) < end.run.peak(.journal) / 10)
        #expect(w.peak_total_bytes >= start.run.total_bytes)
        #expect(w.peak_total_bytes < end.run.peak_total_bytes)
    }

    // MARK: - Random and streaming I/O

    /// A copy into a new table appends its pages, which a sync flushes as a few runs; an
    /// update of rows spread over the table rewrites pages apart from one another, each its
    /// own run (the device clock charges each run a random write's latency). Writes no sync
    /// follows are no run at all: a WAL's frames wait for a checkpoint.
    @Test func aSyncFlushesACopyAsFewRunsAndScatteredUpdatesAsMany() throws {
        let scratch = try Scratch()
        let db = try scratch.countedTable(pragmas: "PRAGMA journal_mode=DELETE; PRAGMA cache_size=50")

        let copy = try windowCounters(db, "CREATE TABLE copy(id INTEGER PRIMARY KEY, payload TEXT); INSERT INTO copy SELECT * FROM t")
        let scattered = try windowCounters(db, "UPDATE t SET payload = 'x' || substr(payload, 2) WHERE id % 100 = 0")
        #expect(copy.writeCalls(.main) > 500)
        #expect(copy.flushedExtents(.main) * 10 < copy.writeCalls(.main))
        #expect(copy.randomReads(.main) * 10 < copy.reads(.main))
        #expect(scattered.writeCalls(.main) > 100)
        #expect(scattered.flushedExtents(.main) * 2 > scattered.writeCalls(.main))
        // A page written twice before its sync is flushed once.
        #expect(scattered.flushedExtents(.main) <= scattered.writeCalls(.main))

        #expect(try db.text("PRAGMA journal_mode=WAL") == "wal")
        try db.run("PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0")
        let unsynced = try windowCounters(db, "UPDATE t SET payload = 'y' || substr(payload, 2) WHERE id % 100 = 0")
        let checkpoint = try windowCounters(db, "PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        // Commits at NORMAL sync no frames (a new WAL's header aside): hundreds of frames
        // written, at most the one run of them that a header's sync flushes.
        #expect(unsynced.writeCalls(.wal) > 100)
        #expect(unsynced.syncs(.wal) <= 1 && unsynced.flushedExtents(.wal) <= unsynced.syncs(.wal))
        #expect(unsynced.flushedExtents(.main) == 0)
        // The checkpoint syncs the WAL, its frames one run, then writes the pages in place.
        #expect(checkpoint.flushedExtents(.wal) == 1)
        #expect(checkpoint.flushedExtents(.main) * 2 > checkpoint.writeCalls(.main))
    }

    // MARK: - The kernel's page cache

    /// A file the job did not read yet is read from flash, every page of it; read again once
    /// SQLite's own small cache lost it, each page is a copy from the kernel's page cache and
    /// nothing reaches the flash. A relaunch (the shim mapped again on the job's stats file,
    /// as each worker does) finds the pages still cached, as a phone's kernel keeps a killed
    /// app's file pages; a new job starts cold.
    @Test func aPageReadOnceIsCachedForTheJobAndItsRelaunches() throws {
        let scratch = try Scratch()
        try scratch.buildFixture("main.db", rows: 20_000)
        let statsPath = try scratch.startAccounting()
        let pages = scratch.size("main.db") / 4096
        func scan() throws -> spacevfs_counters {
            let db = try TestDB(scratch.path("main.db"))
            try db.run("PRAGMA cache_size=10")
            let counters = try windowCounters(db, "SELECT count(*), sum(length(payload)) FROM t")
            db.close()
            return counters
        }
        let cold = try scan()
        #expect(pages > 100)
        // Page 1 was read when the file was opened, before the window began.
        #expect(cold.flashBytesRead(.main) >= (pages - 1) * 4096)
        #expect(cold.cachedPages(.main) <= 1)
        let again = try scan()
        #expect(again.flashBytesRead(.main) == 0 && again.randomReads(.main) == 0)
        #expect(again.cachedPages(.main) >= pages - 1)

        #expect(spacevfs_register(statsPath) == SQLITE_OK)
        let relaunched = try scan()
        #expect(relaunched.flashBytesRead(.main) == 0 && relaunched.cachedPages(.main) >= pages - 1)

        try scratch.startAccounting(named: "next-job.stats")
        let nextJob = try scan()
        #expect(nextJob.flashBytesRead(.main) >= (pages - 1) * 4096)
    }

    /// A sync writes the pages dirtied since the last one, each once however often it was
    /// written; writes no sync follows reach no flash. A row updated in a hundred commits at
    /// WAL's NORMAL flushes nothing until the checkpoint, which writes its page once.
    @Test func aSyncFlushesEachDirtyPageOnce() throws {
        let scratch = try Scratch()
        let db = try scratch.countedTable(pragmas: "PRAGMA journal_mode=DELETE")

        // The row's leaf page, and page 1, whose change counter every commit bumps.
        let oneRow = try windowCounters(db, "UPDATE t SET payload = 'changed' WHERE id = 10000")
        #expect(oneRow.flushedBytes(.main) == 2 * 4096)

        #expect(try db.text("PRAGMA journal_mode=WAL") == "wal")
        try db.run("PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0; PRAGMA wal_checkpoint(TRUNCATE)")
        spacevfs_window_begin(0)
        for round in 0..<100 { try db.run("UPDATE t SET payload = 'round \(round)' WHERE id = 10000") }
        let commits = snapshot().window
        let checkpoint = try windowCounters(db, "PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        #expect(commits.writeCalls(.wal) >= 100)
        #expect(commits.flushedBytes(.wal) <= 4096 && commits.flushedBytes(.main) == 0)
        #expect(checkpoint.flushedBytes(.main) == 4096)
    }

    // MARK: - Re-registration

    @Test func reRegisteringRecountsOpenFilesAndForgetsClosedOnes() throws {
        let scratch = try Scratch()
        try scratch.startAccounting(named: "first.stats")
        let kept = try TestDB(scratch.path("kept.db"))
        #expect(try kept.text("PRAGMA journal_mode=WAL") == "wal")
        try kept.run("CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT)")
        try kept.run(insertRows(1_000))
        let closed = try TestDB(scratch.path("closed.db"))
        try closed.run("CREATE TABLE t(x)")
        closed.close()

        let secondPath = try scratch.startAccounting(named: "second.stats")
        let fresh = snapshot()
        let open = scratch.size("kept.db") + scratch.size("kept.db-wal") + scratch.size("kept.db-shm")
        #expect(fresh.run.total_bytes == open)
        #expect(fresh.run.current(.wal) == scratch.size("kept.db-wal"))
        #expect(fresh.run.current(.shm) == scratch.size("kept.db-shm"))
        #expect(fresh.run.written(.main) == 0)

        kept.close()
        let after = snapshot()
        #expect(after.run.total_bytes == scratch.size("kept.db"))
        var fromFile = spacevfs_stats()
        #expect(spacevfs_stats_read(secondPath, &fromFile) == 0)
        #expect(fromFile.run.total_bytes == scratch.size("kept.db"))
    }
}

// MARK: - Helpers (this file only)

/// The classes of spacevfs.h, by name.
private enum FileClass: Int, CaseIterable {
    case main, journal, wal, shm, temp
}

extension spacevfs_counters {
    fileprivate func current(_ c: FileClass) -> Int64 { Self.element(bytes, c) }
    fileprivate func peak(_ c: FileClass) -> Int64 { Self.element(peak_bytes, c) }
    fileprivate func written(_ c: FileClass) -> Int64 { Self.element(bytes_written, c) }
    fileprivate func syncs(_ c: FileClass) -> Int64 { Self.element(syncs, c) }
    fileprivate func writeCalls(_ c: FileClass) -> Int64 { Self.element(write_calls, c) }
    fileprivate func flushedExtents(_ c: FileClass) -> Int64 { Self.element(flushed_extents, c) }
    fileprivate func reads(_ c: FileClass) -> Int64 { Self.element(reads, c) }
    fileprivate func randomReads(_ c: FileClass) -> Int64 { Self.element(random_reads, c) }
    fileprivate func flashBytesRead(_ c: FileClass) -> Int64 { Self.element(flash_bytes_read, c) }
    fileprivate func cachedPages(_ c: FileClass) -> Int64 { Self.element(cached_pages, c) }
    fileprivate func flushedBytes(_ c: FileClass) -> Int64 { Self.element(flushed_bytes, c) }

    private static func element(_ tuple: (Int64, Int64, Int64, Int64, Int64), _ c: FileClass) -> Int64 {
        withUnsafeBytes(of: tuple) { $0.load(fromByteOffset: c.rawValue * 8, as: Int64.self) }
    }
}

private func snapshot() -> spacevfs_stats {
    var stats = spacevfs_stats()
    spacevfs_snapshot(&stats)
    return stats
}

/// The counters of a window that holds `sql` alone.
private func windowCounters(_ db: TestDB, _ sql: String) throws -> spacevfs_counters {
    spacevfs_window_begin(0)
    try db.run(sql)
    return snapshot().window
}

private func bytesOf(_ stats: spacevfs_stats) -> [UInt8] {
    withUnsafeBytes(of: stats) { Array($0) }
}

/// `count` rows of ~110 bytes; payloads are 100 characters in a scrambled order.
private func insertRows(_ count: Int, from first: Int = 1) -> String {
    """
    WITH RECURSIVE n(i) AS (SELECT \(first) UNION ALL SELECT i + 1 FROM n WHERE i < \(first + count - 1))
    INSERT INTO t(id, payload) SELECT i, printf('%0100d', (i * 7919) % 1000003) FROM n
    """
}

/// The migration-like statement of the quota test, run as one transaction with a small cache
/// (so the journal and the database grow during the UPDATE). Returns the first failing code.
private func grow(_ db: TestDB) throws -> Int32 {
    try db.run("PRAGMA journal_mode=DELETE")
    try db.run("PRAGMA cache_size=-500")
    for sql in ["BEGIN", "UPDATE t SET payload = payload || printf('%040d', id)", "COMMIT"] {
        let rc = db.exec(sql)
        if rc != SQLITE_OK { return rc & 0xff }
    }
    return SQLITE_OK
}

/// A temporary directory for one test, removed when the test is done with it.
private final class Scratch {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("spacevfs-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    func size(_ name: String) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path(name))
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Bytes of every file here except the stats files.
    func diskBytes() -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasSuffix(".stats") }.reduce(0) { $0 + size($1) }
    }

    func copy(_ name: String, to other: String) throws {
        try FileManager.default.copyItem(atPath: path(name), toPath: path(other))
    }

    /// Creates a stats file here and maps it (re-registering the shim). Returns its path.
    @discardableResult
    func startAccounting(named name: String = "space.stats", quota: Int64 = -1) throws -> String {
        let statsPath = path(name)
        try #require(spacevfs_stats_create(statsPath, quota) == 0)
        try #require(spacevfs_register(statsPath) == SQLITE_OK)
        return statsPath
    }

    /// `main.db` through the shim with its accounting started, `pragmas` run on it, and a
    /// table of 20,000 rows.
    func countedTable(pragmas: String) throws -> TestDB {
        try startAccounting()
        let db = try TestDB(path("main.db"))
        try db.run(pragmas)
        try db.run("CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT)")
        try db.run(insertRows(20_000))
        return db
    }

    /// A rollback-journal database with `rows` rows, written through the default VFS.
    func buildFixture(_ name: String, rows: Int) throws {
        let db = try TestDB(path(name), vfs: nil)
        try db.run("PRAGMA journal_mode=DELETE")
        try db.run("CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT)")
        try db.run(insertRows(rows))
        db.close()
    }
}

private struct TestDBError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    var description: String { "SQLite error \(code): \(message)" }
}

/// A connection for these tests only, opened through the shim unless told otherwise.
private final class TestDB {
    private(set) var handle: OpaquePointer?

    init(_ path: String, vfs: String? = SPACEVFS_NAME) throws {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, vfs)
        guard rc == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw TestDBError(code: rc, message: "open \(path): \(message)")
        }
        handle = db
    }

    deinit { close() }

    func close() {
        if let handle { #expect(sqlite3_close(handle) == SQLITE_OK) }
        handle = nil
    }

    /// Runs SQL and returns its result code.
    func exec(_ sql: String) -> Int32 { sqlite3_exec(handle, sql, nil, nil, nil) }

    /// Runs SQL; throws unless it succeeds.
    func run(_ sql: String) throws {
        let rc = exec(sql)
        guard rc == SQLITE_OK else {
            throw TestDBError(code: rc, message: "\(String(cString: sqlite3_errmsg(handle))) in \(sql)")
        }
    }

    /// Sets SQLITE_FCNTL_CHUNK_SIZE on the main database file.
    func setChunkSize(_ bytes: Int32) throws {
        var size = bytes
        let rc = sqlite3_file_control(handle, "main", SQLITE_FCNTL_CHUNK_SIZE, &size)
        guard rc == SQLITE_OK else { throw TestDBError(code: rc, message: "SQLITE_FCNTL_CHUNK_SIZE") }
    }

    /// The first column of the first row, as text.
    func text(_ sql: String) throws -> String? {
        var stmt: OpaquePointer?
        var rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        defer { sqlite3_finalize(stmt) }
        guard rc == SQLITE_OK else { throw TestDBError(code: rc, message: sql) }
        rc = sqlite3_step(stmt)
        guard rc == SQLITE_ROW else {
            if rc == SQLITE_DONE { return nil }
            throw TestDBError(code: rc, message: sql)
        }
        return sqlite3_column_text(stmt, 0).map { String(cString: $0) }
    }

    func int(_ sql: String) throws -> Int64 {
        Int64(try text(sql) ?? "") ?? -1
    }
}
