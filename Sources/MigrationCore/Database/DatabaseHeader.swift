import Foundation

/// The first 100 bytes of an SQLite database file, read before any SQL runs
/// (https://sqlite.org/fileformat2.html#the_database_header).
///
/// Reading the header with plain file I/O tells the gate a file's version and owner
/// without letting SQLite parse anything from it, and tells garbage, truncated and
/// encrypted files apart from databases.
public struct DatabaseHeader: Sendable, Equatable {
    public static let size = 100
    static let magic = Array("SQLite format 3\0".utf8)

    /// Bytes per page (65536 is stored as 1).
    public var pageSize: Int
    /// 1 for a rollback journal, 2 for WAL (offsets 18 and 19).
    public var writeVersion: UInt8
    public var readVersion: UInt8
    public var changeCounter: UInt32
    /// Pages in the file; trusted only when `pageCountIsValid`.
    public var pageCount: UInt32
    /// The page count is valid when the change counter equals the version-valid-for number.
    public var pageCountIsValid: Bool
    public var userVersion: Int32
    public var applicationID: Int32
    public var sqliteVersionNumber: UInt32

    public var isWAL: Bool { writeVersion == 2 || readVersion == 2 }
}

/// What the bytes of a file say before SQLite touches it.
public enum HeaderReading: Sendable, Equatable {
    /// A zero-byte file: what a fresh install finds (version 0).
    case empty
    case database(DatabaseHeader)
    /// Not an SQLite database; the reason is for people.
    case invalid(String)
}

extension DatabaseHeader {
    /// Reads and checks the header of the file at `path`, with the rollback journal and
    /// WAL that SQLite finds beside it (`DatabaseFiles`).
    public static func read(path: String) -> HeaderReading {
        let files = DatabaseFiles(path)
        return read(path: path, journal: files.journal, wal: files.wal)
    }

    /// Reads and checks the header of the file at `path`, whose rollback journal and WAL
    /// are `journal` and `wal` (nil: none comes with it).
    ///
    /// The header's page count is held against the file's size only where SQLite holds
    /// it: when it reads the main file alone. A launch killed mid-transaction leaves a
    /// hot journal that SQLite rolls back at the next open; one killed mid-checkpoint
    /// leaves page 1 saying the new size in a file still shorter, and the pages it lacks
    /// in the WAL, from which SQLite reads them. With either beside the file (not empty),
    /// whether the file is whole is for SQLite to judge when it opens the pair (the
    /// inspection, a launch): reading which WAL frames it applies takes the whole WAL.
    /// `checksSize` false leaves the size to SQLite always: the rehearsal's inspection
    /// asks SQLite, which then says what it finds in its own words.
    public static func read(path: String, journal: String?, wal: String?, checksSize: Bool = true) -> HeaderReading {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .invalid("the file cannot be opened for reading")
        }
        // Read only: closing can lose nothing, so a failing close changes no answer.
        defer { try? handle.close() }
        let fileSize: UInt64
        let bytes: [UInt8]
        do {
            // An I/O error is not an empty file: that would read as a fresh install.
            fileSize = try handle.seekToEnd()
            try handle.seek(toOffset: 0)
            bytes = [UInt8](try handle.read(upToCount: size) ?? Data())
        } catch {
            return .invalid("the file cannot be read: \(error.localizedDescription)")
        }
        return parse(bytes, fileSize: fileSize, mainFileAlone: checksSize && !holdsBytes(journal) && !holdsBytes(wal))
    }

    /// Whether the journal or WAL at `sidecar` has something in it for SQLite to recover.
    /// A sidecar that cannot even be looked at is one SQLite cannot read either: it reads
    /// the main file alone.
    static func holdsBytes(_ sidecar: String?) -> Bool {
        guard let sidecar else { return false }
        return (try? FileManager.default.attributesOfItem(atPath: sidecar))?[.size] as? UInt64 ?? 0 > 0
    }

    /// Checks `bytes` (the file's first bytes, up to 100) of a file of `fileSize` bytes.
    /// Unless SQLite reads the `mainFileAlone` (no hot journal, no WAL beside it), its size
    /// is not checked: recovery or the WAL makes up for it.
    public static func parse(_ bytes: [UInt8], fileSize: UInt64, mainFileAlone: Bool = true) -> HeaderReading {
        if fileSize == 0 { return .empty }
        guard bytes.count >= size else {
            return .invalid("the file is \(fileSize) bytes, shorter than an SQLite header (100 bytes)")
        }
        guard Array(bytes[0..<16]) == magic else {
            return .invalid("the file does not start with \"SQLite format 3\"; it is not an SQLite database, or it is encrypted")
        }
        let storedPageSize = Int(bigEndian16(bytes, 16))
        let pageSize = storedPageSize == 1 ? 65536 : storedPageSize
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            return .invalid("the header's page size \(storedPageSize) is not a power of two between 512 and 65536")
        }
        let writeVersion = bytes[18], readVersion = bytes[19]
        guard (1...2).contains(writeVersion), (1...2).contains(readVersion) else {
            return .invalid("the header's file format versions (\(writeVersion), \(readVersion)) are not 1 or 2")
        }
        // Offsets 21-23 are fixed by the file format; anything else means a damaged or
        // encrypted header (encryption extensions leave the magic alone on some builds).
        guard bytes[21] == 64, bytes[22] == 32, bytes[23] == 32 else {
            return .invalid("the header's payload fractions are not 64/32/32; the file is damaged or encrypted")
        }
        let changeCounter = bigEndian32(bytes, 24)
        let pageCount = bigEndian32(bytes, 28)
        let header = DatabaseHeader(
            pageSize: pageSize, writeVersion: writeVersion, readVersion: readVersion,
            changeCounter: changeCounter, pageCount: pageCount,
            pageCountIsValid: changeCounter == bigEndian32(bytes, 92) && pageCount > 0,
            userVersion: Int32(bitPattern: bigEndian32(bytes, 60)),
            applicationID: Int32(bitPattern: bigEndian32(bytes, 68)),
            sqliteVersionNumber: bigEndian32(bytes, 96))
        if mainFileAlone, let shortfall = header.shortfall(fileSize: fileSize) {
            let walHint = header.isWAL
                ? ", or it is a WAL database killed during a checkpoint, whose missing pages are in its -wal: upload the -wal with it" : ""
            return .invalid("\(shortfall); it was truncated\(walHint)")
        }
        return .database(header)
    }

    /// Why SQLite calls a main file of `fileSize` bytes with this header damaged when it
    /// reads it alone; nil when it does not. SQLite counts the file's pages with a part of
    /// a page as a page (reading past the end gives zeros), takes the header's page count
    /// only when it is valid, and refuses the file when that count is more: neither a
    /// file longer than its header says nor one that ends inside its last page is
    /// refused (damage in what it then reads shows itself when a step or a check reads it).
    public func shortfall(fileSize: UInt64) -> String? {
        let size = UInt64(pageSize)
        guard pageCountIsValid, UInt64(pageCount) > (fileSize + size - 1) / size else { return nil }
        return "the header says \(pageCount) pages of \(pageSize) bytes, but the file holds only \(fileSize / size)"
    }

    private static func bigEndian16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    private static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}
