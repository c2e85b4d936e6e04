import CSQLite
import Foundation

/// What decides how much space a write takes in one database: page size, free pages,
/// journal mode and the connection settings that change where pages go. Read with
/// PRAGMAs and `stat`, never by opening the database's files (which would drop the
/// connection's POSIX locks).
struct DatabaseGeometry {
    enum Journal: Equatable {
        /// A rollback journal on disk; `keepsFile` for PERSIST (the file stays at its
        /// largest size), false for DELETE and TRUNCATE.
        case rollback(keepsFile: Bool)
        case wal
        /// MEMORY or OFF: no journal file.
        case none
    }

    let pageSize: Int64
    /// Page size less the reserved bytes at the end of each page.
    let usableSize: Int64
    let pageCount: Int64
    let freelistPages: Int64
    let journal: Journal
    /// `PRAGMA secure_delete` (on by default in Debian's and Android's builds): freed pages
    /// are overwritten with zeros, so they are journaled (or logged) like any change.
    let secureDelete: Bool
    /// `PRAGMA wal_autocheckpoint`, in frames; 0 when it is off.
    let autocheckpointFrames: Int64
    /// The sorter keeps this many bytes of keys in memory before it spills to a temp file:
    /// `max(250 pages, cache_size)` (vdbesort.c, `mxPmaSize`).
    let sorterMemoryBytes: Int64
    /// Half the page cache, in pages: what a statement's newest pages may still occupy
    /// when its sorter goes away (see TransactionLoad.endStatement).
    let cacheCreditPages: Int64
    /// The page cache, in pages (`cache_size`).
    let cachePages: Int64
    /// False with `temp_store = MEMORY`: sorters and statement journals stay in memory.
    let tempFilesOnDisk: Bool
    let utf16: Bool
    let walFileBytes: Int64
    let journalFileBytes: Int64

    /// Bytes of one WAL frame: the page and its 24-byte frame header.
    var walFrameBytes: Int64 { pageSize + 24 }
    /// Pages a WAL file of `walFileBytes` holds (32-byte header first).
    var walFileFrames: Int64 { walFileBytes > 32 ? (walFileBytes - 32) / walFrameBytes : 0 }

    init(_ connection: Connection) throws(SQLiteError) {
        pageSize = try connection.integer("PRAGMA page_size")
        var reserved: Int32 = -1
        if sqlite3_file_control(connection.handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserved) != SQLITE_OK || reserved < 0 {
            reserved = 0
        }
        usableSize = pageSize - Int64(reserved)
        pageCount = try connection.integer("PRAGMA page_count")
        freelistPages = try connection.integer("PRAGMA freelist_count")
        switch try connection.scalar("PRAGMA journal_mode").textValue?.lowercased() ?? "delete" {
        case "wal": journal = .wal
        case "persist": journal = .rollback(keepsFile: true)
        case "memory", "off": journal = .none
        default: journal = .rollback(keepsFile: false)
        }
        secureDelete = try connection.integer("PRAGMA secure_delete") != 0
        autocheckpointFrames = max(0, try connection.integer("PRAGMA wal_autocheckpoint"))
        let cacheSize = try connection.integer("PRAGMA cache_size")
        let cacheBytes = cacheSize < 0 ? -cacheSize * 1024 : cacheSize * pageSize
        sorterMemoryBytes = max(250 * pageSize, min(cacheBytes, 1 << 29))
        cachePages = cacheBytes / pageSize
        cacheCreditPages = cachePages / 2
        tempFilesOnDisk = try connection.integer("PRAGMA temp_store") != 2
        utf16 = (try connection.scalar("PRAGMA encoding").textValue ?? "UTF-8").hasPrefix("UTF-16")
        walFileBytes = Self.fileSize(connection.path + "-wal")
        journalFileBytes = Self.fileSize(connection.path + "-journal")
    }

    private static func fileSize(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
