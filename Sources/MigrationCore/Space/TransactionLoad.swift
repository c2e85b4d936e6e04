/// What one transaction does to the pages of the file, statement by statement.
struct TransactionLoad {
    let geometry: DatabaseGeometry

    /// Distinct pages that existed at BEGIN and are written (the rollback journal's pages).
    private(set) var journaledPages: Int64 = 0
    /// Distinct pages written, new ones included (the WAL's frames).
    private(set) var walFrames: Int64 = 0
    /// Pages the main file grows by.
    private(set) var grownPages: Int64 = 0
    /// The transaction's state at the end of each statement that used temp files.
    struct Instant {
        var grownPages: Int64
        var journaledPages: Int64
        var walFrames: Int64
        var tempBytes: Int64
    }

    private(set) var instants: [Instant] = []

    /// Free pages at BEGIN not used yet.
    private(set) var freelistLeft: Int64
    /// Pages freed by this transaction: already written (secure_delete) or not.
    private var freedWritten: Int64 = 0
    private var freedUnwritten: Int64 = 0
    /// B-trees whose pages this transaction has written (their pages are journaled).
    private var writtenTrees: Set<String> = []

    // The current statement.
    private var statementJournal = false
    /// Existing pages written for the first time in the transaction by this statement.
    private var statementFirstWrites: Int64 = 0
    /// Pages written by this statement that the transaction had written before.
    private var statementRewrites: Int64 = 0
    private var statementSortBytes: Int64 = 0
    /// Pages this statement took (new content it writes into the page cache).
    private var statementAllocated: Int64 = 0
    /// The statement journal's size: its largest so far (rollback), or its running
    /// total (WAL).
    private var statementJournalBytes: Int64 = 0
    /// WAL frames written before the last statement that spilled its predecessors' pages.
    private var framesSpilled: Int64 = 0

    init(geometry: DatabaseGeometry, freelist: Int64) {
        self.geometry = geometry
        self.freelistLeft = freelist
    }

    /// Starts a statement; `journaled` when SQLite opens a statement journal for it.
    mutating func statement(journaled: Bool) {
        endStatement()
        statementJournal = journaled
        if journaled && geometry.journal == .wal {
            // In WAL mode a page spilled from the cache while a statement journal is open
            // is journaled first (pager.c, pagerStress): the earlier statements' pages
            // still dirty in the cache, up to a cache full. Measured: DROP TABLE after an
            // INSERT in the same transaction journaled 430 pages more than it freed.
            let dirty = min(geometry.cachePages, walFrames - framesSpilled)
            statementJournalBytes += max(0, dirty) * (geometry.pageSize + 4)
            framesSpilled = walFrames
        }
    }

    /// Ends the current statement (the next `statement` or the commit does it).
    mutating func endStatement() {
        if statementJournal {
            let entry = geometry.pageSize + 4
            switch geometry.journal {
            case .wal: statementJournalBytes += statementFirstWrites * entry
            default: statementJournalBytes = max(statementJournalBytes, statementRewrites * entry)
            }
        }
        if statementSortBytes > 0 || statementJournalFileBytes > 0 {
            // While the sorter's file exists, the newest pages of the statement are still
            // dirty in the page cache, not yet in the main file or the WAL. Half the cache
            // is credited (measured: CREATE INDEX of 100,000 keys with the default 2 MB
            // cache peaked with 429 of its 852 index pages still in the cache).
            let cached = statementSortBytes > 0 ? min(statementAllocated, geometry.cacheCreditPages) : 0
            let sortFile = statementSortBytes > 0 ? statementSortBytes + 65_536 : 0
            instants.append(Instant(
                grownPages: max(0, grownPages - cached), journaledPages: journaledPages,
                walFrames: max(0, walFrames - cached), tempBytes: statementJournalFileBytes + sortFile))
        }
        statementJournal = false
        statementFirstWrites = 0
        statementRewrites = 0
        statementSortBytes = 0
        statementAllocated = 0
    }

    /// The statement journal's file: up to 64 KiB it stays in memory (SQLITE_STMTJRNL_SPILL).
    var statementJournalFileBytes: Int64 {
        statementJournalBytes > 65_536 ? statementJournalBytes : 0
    }

    /// Writes `pages` existing pages of the b-tree `tree` (an UPDATE's leaves, say).
    mutating func rewrite(_ pages: Int64, of tree: String) {
        guard pages > 0 else { return }
        if writtenTrees.contains(tree) {
            statementRewrites += pages
        } else {
            writtenTrees.insert(tree)
            firstWrite(pages)
        }
    }

    /// Writes `pages` existing pages that no b-tree name tracks (page 1, schema pages).
    mutating func touch(_ pages: Int64) {
        firstWrite(pages)
    }

    /// Frees `pages` pages of `tree` (DROP, DELETE): with secure_delete each is zeroed.
    mutating func free(_ pages: Int64, of tree: String) {
        guard pages > 0 else { return }
        if geometry.secureDelete {
            rewrite(pages, of: tree)
            freedWritten += pages
        } else {
            freedUnwritten += pages
            // Freelist trunk pages: one per (usable / 4 - 2) leaves.
            firstWrite(pages / max(1, geometry.usableSize / 4 - 2) + 1)
        }
    }

    /// Takes `pages` pages for new content (new rows, a new index).
    mutating func allocate(_ pages: Int64) {
        guard pages > 0 else { return }
        statementAllocated += pages
        var left = pages
        // Pages freed (and zeroed) earlier in this transaction: journaled already; in WAL
        // mode their frames are overwritten in place.
        let zeroed = min(left, freedWritten)
        freedWritten -= zeroed
        statementRewrites += zeroed
        left -= zeroed
        // Pages freed earlier in this transaction without being written: they had
        // content at BEGIN, so reusing them journals them.
        let unwritten = min(left, freedUnwritten)
        freedUnwritten -= unwritten
        firstWrite(unwritten)
        left -= unwritten
        // Free at BEGIN: not journaled, but logged; their trunk pages are written.
        let free = min(left, freelistLeft)
        freelistLeft -= free
        walFrames += free
        if free > 0 { firstWrite(free / max(1, geometry.usableSize / 4 - 2) + 1) }
        left -= free
        // The rest makes the file grow.
        grownPages += left
        walFrames += left
    }

    /// Sorts keys in the current statement: `fileBytes` as the sorter writes them (each
    /// record and its length), `memoryBytes` as it holds them (each record plus a 16-byte
    /// header, rounded up to 8). Past `sorterMemoryBytes` in memory all of them go to a
    /// temp file; within 10% of it the spill is assumed, to stay on the safe side.
    mutating func sort(fileBytes: Int64, memoryBytes: Int64) {
        if Double(memoryBytes) > Double(geometry.sorterMemoryBytes) * 0.9 {
            statementSortBytes = max(statementSortBytes, fileBytes)
        }
    }

    private mutating func firstWrite(_ pages: Int64) {
        journaledPages += pages
        walFrames += pages
        statementFirstWrites += pages
    }
}
