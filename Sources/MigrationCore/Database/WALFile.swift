import Foundation

/// A `-wal` file read with plain file I/O the way SQLite's recovery reads it
/// (https://www.sqlite.org/fileformat.html §4.1-4.3), before any SQL runs: which frames
/// SQLite applies when it opens the database, and which it ignores without a word.
///
/// A frame counts when its salts are the header's and its checksum continues the chain
/// from the header through every frame before it; SQLite applies the counting frames up
/// to the last commit frame among them and ignores the rest. So does the phone: the
/// report only says so (`wal_frames_ignored`), and says when the file cannot be this
/// database's WAL at all (`wal_mismatch`).
public struct WALFile: Sendable, Equatable {
    static let headerSize = 32
    static let frameHeaderSize = 24
    /// The magic says the byte order of the checksums' 32-bit words: ...82 little-endian,
    /// ...83 big-endian (the stored checksums are big-endian either way).
    static let magicLittleEndian: UInt32 = 0x377f_0682
    static let magicBigEndian: UInt32 = 0x377f_0683
    static let formatVersion: UInt32 = 3_007_000

    /// The page size in the WAL header.
    public var pageSize: Int
    /// Whole frames in the file.
    public var frames: Int
    /// Frames whose salts and checksum chain hold, from the first one on.
    public var chainedFrames: Int
    /// Frames SQLite applies: the chained ones up to the last commit frame.
    public var appliedFrames: Int
    /// Page 1 as the applied frames leave it (its last applied frame), when they write it.
    public var pageOne: [UInt8]?
    /// The first frame fails the chain and carries the previous round's salt-1 (one less
    /// than the header's): a restart wrote the new header and was killed before it wrote
    /// its first frame over the frames already checkpointed.
    public var firstFrameFromEarlierRound = false

    public var ignoredFrames: Int { frames - appliedFrames }

    /// What the bytes of a `-wal` file say.
    public enum Reading: Sendable, Equatable {
        /// Zero bytes: no WAL content (what a checkpoint with TRUNCATE leaves).
        case empty
        case wal(WALFile)
        /// Not a WAL header (magic, format version, page size or the header's checksum):
        /// SQLite ignores the whole file.
        case invalid(String)
    }

    /// Reads the file at `path`, one frame at a time (memory does not grow with it).
    public static func read(path: String) -> Reading {
        guard let handle = FileHandle(forReadingAtPath: path) else { return .invalid("the -wal file cannot be opened") }
        // Read only: closing can lose nothing, so a failing close changes no answer.
        defer { try? handle.close() }
        let header: [UInt8]
        do {
            header = [UInt8](try handle.read(upToCount: headerSize) ?? Data())
        } catch {
            return .invalid("the -wal file cannot be read: \(error.localizedDescription)")
        }
        if header.isEmpty { return .empty }
        guard header.count == headerSize else {
            return .invalid("the -wal file is \(header.count) bytes, shorter than a WAL header (32 bytes)")
        }
        let magic = bigEndian32(header, 0)
        guard magic == magicLittleEndian || magic == magicBigEndian else {
            return .invalid("the -wal file does not start with a WAL header's magic number")
        }
        let wordsBigEndian = magic == magicBigEndian
        guard bigEndian32(header, 4) == formatVersion else {
            return .invalid("the -wal file's format version is \(bigEndian32(header, 4)), not \(formatVersion)")
        }
        let pageSize = Int(bigEndian32(header, 8))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            return .invalid("the -wal header's page size \(pageSize) is not a power of two between 512 and 65536")
        }
        var sum = Checksum()
        sum.add(header[0..<24], bigEndian: wordsBigEndian)
        guard sum.s1 == bigEndian32(header, 24), sum.s2 == bigEndian32(header, 28) else {
            return .invalid("the -wal header's checksum does not match its bytes")
        }
        let salts = Array(header[16..<24])

        var wal = WALFile(pageSize: pageSize, frames: 0, chainedFrames: 0, appliedFrames: 0, pageOne: nil)
        var chained = true
        var pendingPageOne: [UInt8]?
        while true {
            let frame: [UInt8]
            do {
                frame = [UInt8](try handle.read(upToCount: frameHeaderSize + pageSize) ?? Data())
            } catch {
                break
            }
            guard frame.count == frameHeaderSize + pageSize else { break }
            wal.frames += 1
            guard chained else { continue }
            sum.add(frame[0..<8], bigEndian: wordsBigEndian)
            sum.add(frame[frameHeaderSize...], bigEndian: wordsBigEndian)
            guard bigEndian32(frame, 0) != 0, Array(frame[8..<16]) == salts, sum.s1 == bigEndian32(frame, 16),
                sum.s2 == bigEndian32(frame, 20)
            else {
                chained = false
                wal.firstFrameFromEarlierRound = wal.frames == 1 && bigEndian32(frame, 8) &+ 1 == bigEndian32(header, 16)
                continue
            }
            wal.chainedFrames = wal.frames
            if bigEndian32(frame, 0) == 1 { pendingPageOne = Array(frame[frameHeaderSize...]) }
            // A commit frame says the database's size after it; other frames hold 0 there.
            if bigEndian32(frame, 4) != 0 {
                wal.appliedFrames = wal.frames
                if let pendingPageOne { wal.pageOne = pendingPageOne }
            }
        }
        return .wal(wal)
    }

    /// SQLite's WAL checksum: over 32-bit words taken two at a time, each sum carried into
    /// the next, from the header through every frame in order.
    struct Checksum {
        var s1: UInt32 = 0
        var s2: UInt32 = 0

        mutating func add(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) {
            var index = bytes.startIndex
            while index + 8 <= bytes.endIndex {
                let first = word(bytes, index, bigEndian), second = word(bytes, index + 4, bigEndian)
                s1 = s1 &+ first &+ s2
                s2 = s2 &+ second &+ s1
                index += 8
            }
        }

        private func word(_ bytes: ArraySlice<UInt8>, _ at: Int, _ bigEndian: Bool) -> UInt32 {
            let (a, b, c, d) = (UInt32(bytes[at]), UInt32(bytes[at + 1]), UInt32(bytes[at + 2]), UInt32(bytes[at + 3]))
            return bigEndian ? a << 24 | b << 16 | c << 8 | d : d << 24 | c << 16 | b << 8 | a
        }
    }

    static func bigEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}
