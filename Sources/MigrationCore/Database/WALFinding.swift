import Foundation

/// What a report says about the `-wal` file that came with a database: nothing when
/// SQLite applies all of it; else that it ignores some frames (as the phone does), or that
/// the file cannot be this database's WAL.
public enum WALFinding: Sendable, Equatable {
    /// `wal_frames_ignored`: `ignored` of `frames` frames are not applied.
    case framesIgnored(ignored: Int, frames: Int, afterLastCommit: Int)
    /// `wal_mismatch`, with the reason for people.
    case mismatch(String)

    public var code: String {
        switch self {
        case .framesIgnored: return "wal_frames_ignored"
        case .mismatch: return "wal_mismatch"
        }
    }

    public var message: String {
        switch self {
        case .framesIgnored(let ignored, let frames, let afterLastCommit):
            let broken = ignored - afterLastCommit
            var causes: [String] = []
            if broken > 0 {
                causes.append(
                    "\(broken) from a frame on whose checksum or salt does not continue the chain (a torn write, or frames left from an earlier round of the WAL)")
            }
            if afterLastCommit > 0 {
                causes.append("\(afterLastCommit) written after the last commit (a transaction that never committed)")
            }
            return "SQLite ignores \(ignored) of the \(frames) frames in the -wal file: \(causes.joined(separator: "; ")). The device ignores them too, so the rehearsal runs without them"
        case .mismatch(let reason):
            return "the -wal file does not belong to this database: \(reason). Upload the -wal that was beside this file on the device"
        }
    }

    /// Compares the WAL at `walPath` with the database at `databasePath`, whose header is
    /// `database`; nil when SQLite applies the whole WAL.
    public static func check(walPath: String, databasePath: String, database: DatabaseHeader) -> WALFinding? {
        guard FileManager.default.fileExists(atPath: walPath) else { return nil }
        let databasePageOne: [UInt8]
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: databasePath))
            defer { try? handle.close() }
            databasePageOne = [UInt8](try handle.read(upToCount: database.pageSize) ?? Data())
        } catch {
            // The header was read a moment ago; without page 1 only the schema test is left out.
            databasePageOne = []
        }
        let wal: WALFile
        switch WALFile.read(path: walPath) {
        case .empty: return nil
        case .invalid(let reason): return .mismatch("\(reason), so SQLite ignores the whole file")
        case .wal(let read): wal = read
        }
        if wal.pageSize != database.pageSize {
            return .mismatch("its pages are \(wal.pageSize) bytes, the database's \(database.pageSize)")
        }
        // (Frames of the round before a restart are the database's own, already in the file.)
        if wal.frames > 0, wal.chainedFrames == 0, !wal.firstFrameFromEarlierRound {
            return .mismatch("not even its first frame carries the salts and checksum its header starts, so SQLite ignores all \(wal.frames) frames")
        }
        if let pageOne = wal.pageOne, let reason = unrelatedPageOne(pageOne, databasePageOne) {
            return .mismatch(reason)
        }
        guard wal.ignoredFrames > 0 else { return nil }
        return .framesIgnored(
            ignored: wal.ignoredFrames, frames: wal.frames, afterLastCommit: wal.chainedFrames - wal.appliedFrames)
    }

    /// Why page 1 as the WAL rewrites it cannot be a later state of the database's page 1:
    /// no SQLite header, another text encoding, or a schema that shares no table with the
    /// file's. Nil when it can be (or when the schema does not fit in page 1 to tell).
    static func unrelatedPageOne(_ wal: [UInt8], _ database: [UInt8]) -> String? {
        guard wal.count >= DatabaseHeader.size, database.count >= DatabaseHeader.size else { return nil }
        guard Array(wal[0..<16]) == DatabaseHeader.magic else {
            return "the page 1 it writes has no SQLite header"
        }
        // A file whose schema never reached it (all of it still in the WAL) has no text
        // encoding in its header yet: 0, which any encoding may follow.
        let (walEncoding, databaseEncoding) = (WALFile.bigEndian32(wal, 56), WALFile.bigEndian32(database, 56))
        if walEncoding != 0, databaseEncoding != 0, walEncoding != databaseEncoding {
            return "the page 1 it writes has another text encoding"
        }
        guard let walTables = tableNames(pageOne: wal), let databaseTables = tableNames(pageOne: database),
            !walTables.isEmpty, !databaseTables.isEmpty, walTables.isDisjoint(with: databaseTables)
        else { return nil }
        let sample = { (names: Set<String>) in names.sorted().prefix(3).joined(separator: ", ") }
        return "the schema it writes (tables \(sample(walTables))) shares no table with the file's (\(sample(databaseTables)))"
    }

    /// The names of the tables in `sqlite_schema` when it is one leaf page (page 1): read
    /// from each cell's record (type and name come first, within the cell's local bytes).
    /// Nil when page 1 is an interior page or the cells cannot be read.
    static func tableNames(pageOne page: [UInt8]) -> Set<String>? {
        let base = DatabaseHeader.size
        guard page.count > base + 8, page[base] == 0x0D else { return nil }
        let cells = Int(page[base + 3]) << 8 | Int(page[base + 4])
        var names: Set<String> = []
        for cell in 0..<cells {
            let pointerAt = base + 8 + 2 * cell
            guard pointerAt + 1 < page.count else { return nil }
            var at = Int(page[pointerAt]) << 8 | Int(page[pointerAt + 1])
            guard varint(page, &at) != nil, varint(page, &at) != nil else { return nil }  // payload size, rowid
            let recordStart = at
            guard let headerSize = varint(page, &at), let typeSerial = varint(page, &at), let nameSerial = varint(page, &at)
            else { return nil }
            var value = recordStart + Int(headerSize)
            guard let type = text(page, &value, serial: typeSerial), let name = text(page, &value, serial: nameSerial) else {
                continue
            }
            if type == "table" { names.insert(name) }
        }
        return names
    }

    /// A text value of a record (serial type odd and >= 13), advancing `at` past it.
    private static func text(_ page: [UInt8], _ at: inout Int, serial: UInt64) -> String? {
        guard serial >= 13, serial % 2 == 1 else { return nil }
        let length = Int((serial - 13) / 2)
        guard at >= 0, length <= page.count - at else { return nil }
        defer { at += length }
        return String(decoding: page[at..<(at + length)], as: UTF8.self)
    }

    /// An SQLite varint (1-9 bytes, big-endian, 7 bits a byte but all 8 in the ninth).
    private static func varint(_ page: [UInt8], _ at: inout Int) -> UInt64? {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard at < page.count else { return nil }
            let byte = page[at]
            at += 1
            if index == 8 { return value << 8 | UInt64(byte) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return value }
        }
        return value
    }
}
