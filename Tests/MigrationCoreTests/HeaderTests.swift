import Foundation
import Testing
import TestSupport
@testable import MigrationCore

@Suite("Database header")
struct HeaderTests {
    @Test func readsVersionApplicationIDAndJournalMode() throws {
        let directory = TemporaryDirectory("header")
        let path = try NotesHistory.database(version: 2, at: directory.file("v2.db"), journalMode: "WAL")
        guard case .database(let header) = DatabaseHeader.read(path: path) else {
            Issue.record("not read as a database")
            return
        }
        #expect(header.userVersion == 2)
        #expect(header.applicationID == NotesHistory.applicationID)
        #expect(header.pageSize == 4096)
        #expect(header.isWAL)
    }

    @Test func zeroByteFileIsAFreshInstall() throws {
        let directory = TemporaryDirectory("header")
        _ = FileManager.default.createFile(atPath: directory.file("empty.db"), contents: Data())
        #expect(DatabaseHeader.read(path: directory.file("empty.db")) == .empty)
    }

    @Test func garbageTruncatedAndEncryptedFilesAreInvalid() throws {
        let directory = TemporaryDirectory("header")
        let good = try NotesHistory.database(version: 1, rows: 500, at: directory.file("good.db"))
        let bytes = [UInt8](FileManager.default.contents(atPath: good) ?? Data())

        let garbage = [UInt8]((0..<8192).map { UInt8(truncatingIfNeeded: $0 * 7919) })
        guard case .invalid(let garbageReason) = DatabaseHeader.parse(garbage, fileSize: 8192) else {
            Issue.record("garbage accepted")
            return
        }
        #expect(garbageReason.contains("SQLite format 3"))

        let truncatedSize = UInt64(bytes.count - 4096)
        guard case .invalid(let truncatedReason) = DatabaseHeader.parse(Array(bytes[0..<100]), fileSize: truncatedSize) else {
            Issue.record("truncated file accepted")
            return
        }
        #expect(truncatedReason.contains("truncated"))

        // An encrypted file (SQLCipher) is random from its first byte.
        var encrypted = bytes
        for index in encrypted.indices { encrypted[index] ^= UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
        if case .database = DatabaseHeader.parse(Array(encrypted[0..<100]), fileSize: UInt64(encrypted.count)) {
            Issue.record("encrypted file accepted")
        }

        #expect(DatabaseHeader.parse(Array(bytes[0..<40]), fileSize: 40) != .empty)
    }

    @Test func aFileLeftMidTransactionWithAHotJournalIsForRecoveryToJudge() throws {
        let directory = TemporaryDirectory("header")
        let good = try NotesHistory.database(version: 1, rows: 500, at: directory.file("good.db"))
        let bytes = [UInt8](FileManager.default.contents(atPath: good) ?? Data())
        // A launch killed while the file grew: page 1 already says more pages than are written.
        let cut = directory.file("cut.db")
        _ = FileManager.default.createFile(atPath: cut, contents: Data(bytes.prefix(bytes.count - 4096)))
        guard case .invalid = DatabaseHeader.read(path: cut) else {
            Issue.record("a short file without a journal must be invalid")
            return
        }
        _ = FileManager.default.createFile(atPath: cut + "-journal", contents: Data(repeating: 1, count: 512))
        guard case .database(let header) = DatabaseHeader.read(path: cut) else {
            Issue.record("a short file with a hot journal must be left to SQLite's recovery")
            return
        }
        #expect(header.userVersion == 1)
    }

    @Test func aFileThatCannotBeReadIsNotAFreshInstall() {
        // A directory opens for reading, but reading it fails (EISDIR): an I/O error must
        // not read as an empty file, which is a fresh install.
        let directory = TemporaryDirectory("header")
        guard case .invalid(let reason) = DatabaseHeader.read(path: directory.path) else {
            Issue.record("an unreadable file must be invalid")
            return
        }
        #expect(reason.hasPrefix("the file cannot be read"))
    }
}
