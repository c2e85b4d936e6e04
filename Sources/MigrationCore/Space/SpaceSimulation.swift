/// Plays a step's transactions through a model of SQLite's pager and sums what the
/// database's files would grow by, at the worst instant.
///
/// A transaction is described in pages, statement by statement: existing pages it
/// rewrites, pages it takes for new content, pages it frees, bytes it sorts. The model
/// turns them into file growth the way SQLite's pager does:
///
/// - **Main file**: new pages come from pages freed earlier in the same transaction
///   first, then from the freelist (free pages at BEGIN are reused without journaling,
///   pager.c `PAGER_GET_NOCONTENT`), then the file grows.
/// - **Rollback journal**: the original of every page that existed at BEGIN and is
///   written, once per transaction: 512-byte header + (page size + 8) per page. Gone at
///   commit (DELETE, TRUNCATE); PERSIST keeps the file at its largest size.
/// - **WAL**: one frame (page size + 24) per distinct page written, new pages included
///   (a page written again in the same transaction overwrites its frame). The main file
///   grows only when a checkpoint copies the frames back, while the WAL is still full:
///   autocheckpoint runs at the commit that leaves `wal_autocheckpoint` or more frames,
///   and the next transaction starts the WAL over without shrinking it. The -shm grows by
///   32 KiB per 4,096 frames.
/// - **Statement journal** (temp file, page size + 4 per page, in memory up to 64 KiB):
///   opened by statements that may abort halfway (DDL, and DML with constraint checks that
///   can write several rows). With a rollback journal it holds only pages the transaction
///   had already journaled (a page journaled for the first time is covered by the
///   rollback journal); in WAL mode every existing page the statement writes, and it is
///   not reused between the statements of one transaction.
/// - **Sorter** (temp file): CREATE INDEX sorts its keys; past `sorterMemoryBytes` of
///   keys in memory, every key goes to the temp file once (measured: 35.9 MB of temp for
///   1,000,000 keys of 34 bytes, 18 and 36 sorted runs alike).
///
/// What coexists at the peak (measured with the space VFS, see SpaceEstimator): with a
/// rollback journal, the main file's growth, the journal and the temp files all at once;
/// in WAL mode, the WAL and the temp files during the transaction, then the WAL and the
/// main file's growth at the checkpoint, when the temp files are gone.
struct SpaceSimulation {
    let geometry: DatabaseGeometry

    /// Free pages in the file now.
    private(set) var freelist: Int64
    /// Pages the main file has grown by since the step began.
    private(set) var grownPages: Int64 = 0
    /// Largest growth of all files together so far, in bytes.
    private(set) var peakBytes: Int64 = 0

    /// Where the next transaction's first frame goes; the WAL file's size in frames.
    private var walPosition: Int64
    /// WAL mode: pages of growth already copied into the main file by a checkpoint (the
    /// rest lives in the WAL until the next one).
    private var checkpointedPages: Int64 = 0
    private var walFileFrames: Int64
    /// Growth of a PERSIST journal file, which stays at its largest.
    private var persistedJournalGrowth: Int64 = 0

    init(geometry: DatabaseGeometry) {
        self.geometry = geometry
        freelist = geometry.freelistPages
        // An existing WAL may hold live frames (a device's unchecked WAL): assume the
        // first transaction appends after all of them.
        walPosition = geometry.walFileFrames
        walFileFrames = geometry.walFileFrames
    }

    /// Runs one transaction described by `body`.
    mutating func transaction(_ body: (inout TransactionLoad) -> Void) {
        var load = TransactionLoad(geometry: geometry, freelist: freelist)
        body(&load)
        load.endStatement()
        commit(load)
    }

    /// Runs `count` transactions like the one `body` describes (batches), told which one
    /// it is. Past `limit` the batches are merged, larger, so that the model stays cheap.
    mutating func transactions(_ count: Int64, limit: Int64 = 20_000, _ body: (inout TransactionLoad, _ index: Int64, _ of: Int64) -> Void) {
        let runs = min(count, limit)
        for index in 0..<runs {
            transaction { body(&$0, index, runs) }
        }
    }

    /// Batch `batch`'s share of `total` over `batches` batches. The shares add up to
    /// `total`, as the pages a chunked step allocates do over its batches.
    static func share(_ total: Int64, _ batch: Int64, _ batches: Int64) -> Int64 {
        guard batches > 0 else { return total }
        return total * (batch + 1) / batches - total * batch / batches
    }

    private mutating func commit(_ load: TransactionLoad) {
        let page = geometry.pageSize
        let grownBefore = grownPages
        grownPages += load.grownPages
        freelist = load.freelistLeft
        // The instants of the transaction: the end of each statement that used temp files
        // (its sorter still there), then the commit (only the statement journal left).
        let instants = load.instants + [TransactionLoad.Instant(
            grownPages: load.grownPages, journaledPages: load.journaledPages, walFrames: load.walFrames,
            tempBytes: load.statementJournalFileBytes)]
        for instant in instants {
            let temp = geometry.tempFilesOnDisk ? instant.tempBytes : 0
            switch geometry.journal {
            case .rollback(let keepsFile):
                // A 512-byte header, then each page with its number and checksum; every
                // spill of the cache syncs the journal and starts a new header (measured:
                // 2,617 pages journaled in 10,741,344 bytes, 1,176 bytes of headers).
                let headers = 1 + instant.journaledPages / max(1, geometry.cachePages / 2)
                let journal = instant.journaledPages > 0 ? headers * 512 + instant.journaledPages * (page + 8) : 0
                let journalGrowth = max(0, journal - geometry.journalFileBytes)
                // PERSIST leaves the journal file behind at its largest.
                if keepsFile { persistedJournalGrowth = max(persistedJournalGrowth, journalGrowth) }
                peakBytes = max(
                    peakBytes, (grownBefore + instant.grownPages) * page + max(journalGrowth, persistedJournalGrowth) + temp)
            case .none:
                peakBytes = max(peakBytes, (grownBefore + instant.grownPages) * page + temp)
            case .wal:
                let fileFrames = max(walFileFrames, walPosition + instant.walFrames)
                let wal = fileFrames > 0 ? 32 + fileFrames * geometry.walFrameBytes : 0
                let walGrowth = max(0, wal - geometry.walFileBytes)
                let shmGrowth = (Self.shmRegions(fileFrames) - Self.shmRegions(geometry.walFileFrames)) * 32_768
                // While the transaction runs: the WAL and the temp files. At the commit that
                // triggers an autocheckpoint (the statement journal gone): the WAL and the
                // main file's growth. The checkpoint when the last connection closes is not
                // the step's need: on a full disk SQLite skips it silently and keeps the WAL.
                let checkpointsAtCommit = geometry.autocheckpointFrames > 0
                    && walPosition + load.walFrames >= geometry.autocheckpointFrames
                let uncheckpointed = grownBefore + load.grownPages - checkpointedPages
                let checkpoint = instant.walFrames == load.walFrames && checkpointsAtCommit
                    ? max(temp, uncheckpointed * page) : temp
                peakBytes = max(peakBytes, checkpointedPages * page + walGrowth + shmGrowth + checkpoint)
            }
        }
        if geometry.journal == .wal {
            walFileFrames = max(walFileFrames, walPosition + load.walFrames)
            walPosition += load.walFrames
            if geometry.autocheckpointFrames > 0 && walPosition >= geometry.autocheckpointFrames {
                walPosition = 0
                checkpointedPages = grownPages
            }
        }
    }

    /// 32 KiB regions of the -shm that index `frames` frames (the first holds 4,062).
    static func shmRegions(_ frames: Int64) -> Int64 {
        frames <= 4_062 ? 1 : 1 + (frames - 4_062 + 4_095) / 4_096
    }
}
