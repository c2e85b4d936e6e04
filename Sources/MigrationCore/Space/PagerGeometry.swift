import CSQLite
import Foundation

/// What decides where a written page goes in one database, read with PRAGMAs and `stat`
/// (never by opening the database's files, which would drop the connection's POSIX locks).
struct PagerGeometry {
    enum Journal: Equatable {
        /// A rollback journal on disk; `persist` when the file stays at its largest size.
        case rollback(persist: Bool)
        case wal
        /// MEMORY or OFF: no journal file.
        case none
    }

    let pageSize: Int64
    /// Page size less the bytes reserved at the end of each page.
    let usableSize: Int64
    let pageCount: Int64
    let freePages: Int64
    /// Pages of the schema table, page 1 (its root) included.
    let schemaPages: Int64
    /// Unused bytes of the schema table's last leaf, where new entries go.
    let schemaRoom: Int64
    let journal: Journal
    /// Freed pages are overwritten with zeros, so they are journaled like any change
    /// (on in Debian's and Android's builds).
    let secureDelete: Bool
    /// `wal_autocheckpoint` in frames; 0 when off.
    let autocheckpoint: Int64
    let cachePages: Int64
    /// Keys the sorter holds in memory before it writes them to a temp file: the cache's
    /// bytes, at least 250 pages (vdbesort.c, `mxPmaSize`).
    let sorterMemory: Int64
    /// False with `temp_store = MEMORY`.
    let tempOnDisk: Bool
    let walFileBytes: Int64
    let journalFileBytes: Int64
    /// WAL mode: pages the database has beyond the main file's end, which a checkpoint
    /// will write there (committed by an earlier step, still only in the WAL).
    let pendingPages: Int64

    var walFrameBytes: Int64 { pageSize + 24 }

    init(_ connection: Connection) throws(SQLiteError) {
        pageSize = try connection.integer("PRAGMA page_size")
        var reserved: Int32 = 0
        if sqlite3_file_control(connection.handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserved) != SQLITE_OK {
            reserved = 0
        }
        usableSize = pageSize - Int64(max(0, reserved))
        pageCount = try connection.integer("PRAGMA page_count")
        freePages = try connection.integer("PRAGMA freelist_count")
        schemaPages = max(1, try connection.integer("SELECT pageno FROM dbstat('main', 1) WHERE name = 'sqlite_schema'"))
        schemaRoom = try connection.integer(
            "SELECT unused FROM dbstat WHERE name = 'sqlite_schema' AND pagetype = 'leaf' ORDER BY path DESC LIMIT 1")
        switch try connection.scalar("PRAGMA journal_mode").textValue?.lowercased() ?? "delete" {
        case "wal": journal = .wal
        case "persist": journal = .rollback(persist: true)
        case "memory", "off": journal = .none
        default: journal = .rollback(persist: false)
        }
        secureDelete = try connection.integer("PRAGMA secure_delete") != 0
        autocheckpoint = max(0, try connection.integer("PRAGMA wal_autocheckpoint"))
        let cacheSize = try connection.integer("PRAGMA cache_size")
        let cacheBytes = cacheSize < 0 ? -cacheSize * 1024 : cacheSize * pageSize
        cachePages = cacheBytes / max(1, pageSize)
        sorterMemory = max(250 * pageSize, min(cacheBytes, 1 << 29))
        tempOnDisk = try connection.integer("PRAGMA temp_store") != 2
        walFileBytes = Self.fileSize(connection.path + "-wal")
        journalFileBytes = Self.fileSize(connection.path + "-journal")
        let mainPages = Self.fileSize(connection.path) / max(1, pageSize)
        pendingPages = journal == .wal ? max(0, pageCount - mainPages) : 0
    }

    private static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
