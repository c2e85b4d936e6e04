/// One transaction's pages, statement by statement: which existing pages it changes,
/// which it adds, frees and sorts. Counted the way SQLite's pager treats them:
///
/// - a page that existed at BEGIN and is changed puts its original in the rollback
///   journal once per transaction (atomiccommit.html §3.3); in WAL mode every page
///   written, new ones included, is one frame, and a page written again in the same
///   transaction overwrites its frame (wal.html);
/// - new pages come first from pages this transaction freed, then from the freelist
///   (free at BEGIN, so not journaled: btree.c keeps them out of the journal as pages
///   without content), then the file grows (fileformat2.html §1.5);
/// - a statement that may abort halfway (DDL; DML with constraint checks, functions,
///   triggers) keeps the originals of the pages it rewrites in a statement journal
///   (tempfiles.html §2.6): with a rollback journal the pages the transaction had written
///   before, in WAL mode every existing page; in memory up to 64 KiB, and on disk it
///   stays at its largest until the transaction ends;
/// - a sort larger than the sorter's memory goes to a temp file (tempfiles.html §2.8).
struct TransactionPages {
    let files: PagerGeometry
    private(set) var journaled: Int64 = 0
    private(set) var frames: Int64 = 0
    private(set) var grown: Int64 = 0
    private(set) var freelist: Int64
    /// Unused bytes left in the schema table's last leaf.
    private(set) var schemaRoom: Int64
    /// The moments temp files exist, besides the commit.
    private(set) var instants: [Instant] = []
    /// The statement journal's file, at its largest.
    private(set) var statementJournalFile: Int64 = 0
    private var freed: Int64 = 0
    /// Pages of each b-tree already in the journal (Int64.max: made by this transaction).
    private var written: [String: Int64] = [:]
    private var statementJournal = false
    private var statementPages: Int64 = 0
    private var statementAllocated: Int64 = 0
    private var sortBytes: Int64 = 0
    /// Frames written before the last statement with a statement journal began, and
    /// those of the statements before it that the cache may spill into its journal.
    private var framesSpilled: Int64 = 0
    private var spillable: Int64 = 0

    struct Instant {
        var grown: Int64
        var journaled: Int64
        var frames: Int64
        var temp: Int64
    }

    init(files: PagerGeometry, freelist: Int64, schemaRoom: Int64) {
        self.files = files
        self.freelist = freelist
        self.schemaRoom = schemaRoom
    }

    /// Starts a statement (ending the previous one).
    mutating func statement(journaled: Bool) {
        endStatement()
        statementJournal = journaled
        if journaled && files.journal == .wal {
            spillable = frames - framesSpilled
            framesSpilled = frames
        }
    }

    /// Changes `pages` pages of `tree` that exist (nil: page 1, freelist trunks), of its
    /// `treePages` if known: a b-tree's pages go into the journal at most once each.
    mutating func write(_ pages: Int64, of tree: String? = nil, treePages: Int64? = nil) {
        guard pages > 0 else { return }
        var first = pages
        if let tree {
            let before = written[tree.lowercased()] ?? 0
            first = before == Int64.max ? 0 : min(pages, treePages.map { max(0, $0 - before) } ?? pages)
            written[tree.lowercased()] = before == Int64.max ? before : before + first
        }
        statementPages += files.journal == .wal ? pages : pages - first
        journaled += first
        frames += first
    }

    /// Changes page 1: the header's change counter, schema cookie and user_version, which
    /// every transaction of a step writes (fileformat2.html §1.3).
    mutating func writeHeader() {
        write(1, of: "(page 1)", treePages: 1)
    }

    /// Changes `pages` pages of the schema table besides page 1, its root.
    mutating func writeSchema(_ pages: Int64) {
        write(min(pages, files.schemaPages - 1), of: "sqlite_schema", treePages: files.schemaPages - 1)
    }

    /// Appends schema entries of `bytes` (their SQL, names and cells): new entries go to
    /// the schema table's last leaf (rowid order), which splits once they outgrow it.
    mutating func appendSchema(_ bytes: Int64) {
        schemaRoom -= bytes
        while schemaRoom < 0 {
            allocate(1)
            schemaRoom += files.usableSize - 8
        }
    }

    /// Marks `tree` as made by this transaction: its pages have no original to journal.
    mutating func created(_ tree: String) {
        written[tree.lowercased()] = Int64.max
    }

    /// Adds `pages` new pages.
    mutating func allocate(_ pages: Int64) {
        guard pages > 0 else { return }
        statementAllocated += pages
        let reused = min(pages, freed)
        freed -= reused
        // Freed by this transaction: with secure_delete zeroed already (journaled, and in
        // WAL mode their frames are overwritten), so the statement journal keeps them;
        // else their content from BEGIN is journaled now.
        if files.secureDelete || files.journal == .wal { statementPages += reused }
        if !files.secureDelete { journaled += reused }
        frames += pages - (files.secureDelete ? reused : 0)
        let free = min(pages - reused, freelist)
        freelist -= free
        if free > 0 { writeTrunks(free) }
        grown += pages - reused - free
    }

    /// Frees `pages` pages of `tree` (DROP, DELETE of every row): its root is rewritten
    /// as it is cleared, and with secure_delete every page is zeroed. Otherwise a freed
    /// page is not journaled (pager.c, `sqlite3PagerDontWrite`): only the trunk pages that
    /// list it change.
    mutating func free(_ pages: Int64, of tree: String) {
        guard pages > 0 else { return }
        write(files.secureDelete ? pages : 1, of: tree)
        freed += pages
        writeTrunks(pages)
    }

    /// Sorts `entries` keys in this statement, `bytes` as b-tree cells (each at least its
    /// record and the record's length, as the sorter writes them). The sorter holds each
    /// record with a 16-byte header, rounded to 8 bytes; past its memory every record goes
    /// to the temp file once (vdbesort.c; measured: 35.9 MB of temp for 1,000,000 keys of
    /// 34 bytes), and within 10% of it the spill is assumed.
    mutating func sort(bytes: Int64, entries: Int64) {
        if Double(bytes + 24 * entries) > 0.9 * Double(files.sorterMemory) {
            sortBytes = max(sortBytes, bytes)
        }
    }

    /// Writes the freelist trunk pages that list `pages` free pages, each of them once
    /// per transaction (fileformat2.html §1.5: a trunk lists usable / 4 - 2 leaves).
    private mutating func writeTrunks(_ pages: Int64) {
        let perTrunk = max(1, files.usableSize / 4 - 2)
        write(pages / perTrunk + 1, of: "(freelist)", treePages: (files.freePages + files.pageCount) / perTrunk + 1)
    }

    mutating func endStatement() {
        if statementJournal && files.journal == .wal && frames > files.cachePages {
            // In WAL mode a page the cache spills while a statement journal is open goes
            // into it first (pager.c, pagerStress): once the transaction outgrows the
            // cache, the earlier statements' pages still dirty in it, up to a cache full.
            // Measured: DROP TABLE after an INSERT in the same transaction journaled 430
            // pages more than it freed.
            statementPages += min(files.cachePages, spillable)
        }
        if statementJournal {
            let bytes = statementPages * (files.pageSize + 4)
            // SQLITE_STMTJRNL_SPILL: up to 64 KiB in memory.
            if bytes > 65_536 { statementJournalFile = max(statementJournalFile, bytes) }
        }
        if sortBytes > 0 || statementJournalFile > 0 {
            // The sorter's file is written whole before the index is built from it, and
            // while it exists the index's newest pages sit dirty in the page cache rather
            // than in the files: 85% of the cache is credited (measured with the 2 MB cache:
            // CREATE INDEX of 100,000 keys peaked with 429 of its 852 pages in the cache,
            // of 20,000 keys with all but 68 of its 490).
            let cached = sortBytes > 0 ? min(statementAllocated, files.cachePages * 85 / 100) : 0
            instants.append(Instant(
                grown: max(0, grown - cached), journaled: journaled, frames: max(0, frames - cached),
                temp: statementJournalFile + sortBytes))
        }
        statementJournal = false
        spillable = 0
        statementPages = 0
        statementAllocated = 0
        sortBytes = 0
    }

    /// True when SQLite opens a statement journal for a statement whose `program` (its
    /// EXPLAIN rows; nil when it cannot be had) is given: it writes several rows and may
    /// abort halfway, which the program shows (SQLite marks a statement so for the
    /// same opcodes: vdbeaux.c, `sqlite3VdbeAssertMayAbort`): a constraint that aborts, a
    /// function (any may raise an error), a foreign key counter, a trigger program. A
    /// DELETE needs one only for the last two. Measured in WAL mode, 20,000 rows: `SET n =
    /// n + 1` writes no statement journal; `SET title = upper(title)` journals every page.
    static func opensStatementJournal(_ program: [[SQLiteValue]]?, delete: Bool = false) -> Bool {
        guard let program else { return true }
        return program.contains { row in
            guard row.count > 3 else { return false }
            let (p1, p2) = (row[2].integerValue ?? 0, row[3].integerValue ?? 0)
            switch row[1].textValue ?? "" {
            case "FkCounter", "FkIfZero", "Program": return true
            case _ where delete: return false
            case "Halt": return p1 != 0 && p2 == 2  // OE_Abort
            case "HaltIfNull": return p2 == 2
            case "Function", "PureFunc": return true
            default: return false
            }
        }
    }
}
