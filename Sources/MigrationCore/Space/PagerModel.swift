/// Plays a step's transactions and keeps the largest growth of all the database's files
/// together, at any instant:
///
/// - rollback journal: the main file's growth, the journal (a 512-byte header, then page
///   size + 8 bytes per page: number and checksum; each cache spill syncs and starts a new
///   header, atomiccommit.html §3.5) and the temp files, all at once at the commit;
/// - WAL: the main file grows only when a checkpoint copies the frames back, and the WAL
///   is not shrunk by it. Autocheckpoint runs after the commit that leaves at least
///   `wal_autocheckpoint` frames; the next transaction starts the WAL over (wal.html). The
///   temp files are gone by then. The first transaction is assumed to append after every
///   frame of an existing WAL. The -shm grows by 32 KiB per 4,096 frames.
struct PagerModel {
    let files: PagerGeometry
    private(set) var peakBytes: Int64 = 0
    private var freelist: Int64
    private var schemaRoom: Int64
    private var grown: Int64 = 0
    private var checkpointed: Int64 = 0
    private var walPosition: Int64
    /// Frames the WAL file holds: at the start, and at its largest so far.
    private let initialWALFrames: Int64
    private var walFrames: Int64
    private var persistedJournal: Int64 = 0

    init(files: PagerGeometry) {
        self.files = files
        freelist = files.freePages
        schemaRoom = files.schemaRoom
        initialWALFrames = files.walFileBytes > 32 ? (files.walFileBytes - 32) / files.walFrameBytes : 0
        walFrames = initialWALFrames
        walPosition = initialWALFrames
    }

    mutating func transaction(_ body: (inout TransactionPages) -> Void) {
        var load = TransactionPages(files: files, freelist: freelist, schemaRoom: schemaRoom)
        body(&load)
        load.writeHeader()
        load.endStatement()
        commit(load)
    }

    /// `count` transactions of a chunked step, told which one they are; past 20,000 they
    /// are merged into larger ones, so that the model stays cheap.
    mutating func transactions(_ count: Int64, _ body: (inout TransactionPages, _ index: Int64, _ of: Int64) -> Void) {
        let runs = max(1, min(count, 20_000))
        for index in 0..<runs { transaction { body(&$0, index, runs) } }
    }

    /// Batch `batch`'s share of `total` over `batches`: the shares add up to `total`.
    static func share(_ total: Int64, _ batch: Int64, _ batches: Int64) -> Int64 {
        guard batches > 0 else { return total }
        return total * (batch + 1) / batches - total * batch / batches
    }

    private mutating func commit(_ load: TransactionPages) {
        let page = files.pageSize
        let before = grown
        grown += load.grown
        freelist = load.freelist
        schemaRoom = load.schemaRoom
        let commit = TransactionPages.Instant(
            grown: load.grown, journaled: load.journaled, frames: load.frames, temp: load.statementJournalFile)
        let checkpoints = files.journal == .wal && files.autocheckpoint > 0
            && walPosition + load.frames >= files.autocheckpoint
        for (index, instant) in (load.instants + [commit]).enumerated() {
            let temp = files.tempOnDisk ? instant.temp : 0
            let main = (before + instant.grown) * page
            switch files.journal {
            case .rollback(let persist):
                let headers = 1 + instant.journaled / max(1, files.cachePages / 2)
                let journal = instant.journaled > 0 ? headers * 512 + instant.journaled * (page + 8) : 0
                let growth = max(0, journal - files.journalFileBytes)
                if persist { persistedJournal = max(persistedJournal, growth) }
                peakBytes = max(peakBytes, main + max(growth, persistedJournal) + temp)
            case .none:
                peakBytes = max(peakBytes, main + temp)
            case .wal:
                let frames = max(walFrames, walPosition + instant.frames)
                let wal = max(0, 32 + frames * files.walFrameBytes - files.walFileBytes)
                let shm = (Self.shmRegions(frames) - Self.shmRegions(initialWALFrames)) * 32_768
                let atCheckpoint = checkpoints && index == load.instants.count
                let main = atCheckpoint ? (files.pendingPages + grown) * page : checkpointed * page
                peakBytes = max(peakBytes, wal + shm + (atCheckpoint ? max(main, temp) : main + temp))
            }
        }
        if files.journal == .wal {
            walFrames = max(walFrames, walPosition + load.frames)
            walPosition += load.frames
            if checkpoints {
                walPosition = 0
                checkpointed = files.pendingPages + grown
            }
        }
    }

    /// 32 KiB regions of the -shm that index `frames` frames (the first holds 4,062).
    private static func shmRegions(_ frames: Int64) -> Int64 {
        frames <= 4_062 ? 1 : 1 + (frames - 4_062 + 4_095) / 4_096
    }
}
