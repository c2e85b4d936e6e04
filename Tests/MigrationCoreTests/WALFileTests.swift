import Foundation
import Testing
import TestSupport

@testable import MigrationCore

/// `WALFile` and `WALFinding` on real `-wal` files made by SQLite (copied while the
/// connection that wrote them is open, before any checkpoint), then damaged or paired
/// with another database; SQLite itself says how many frames it applies
/// (`PRAGMA wal_checkpoint`'s `log` column).
@Suite struct WALFileTests {
    /// A WAL-mode database whose `-wal` holds three committed transactions of `rows` rows
    /// each (and, with `openTransaction`, frames of a fourth that never commits; without
    /// `checkpointsSchema`, the schema too); answers the copies' paths.
    private func makeWAL(
        _ directory: TemporaryDirectory, name: String = "app", schema: String = "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)",
        table: String = "notes", pageSize: Int = 4096, openTransaction: Bool = false, checkpointsSchema: Bool = true
    ) throws -> (database: String, wal: String) {
        let live = directory.file("\(name)-live.db")
        let connection = try Connection(path: live, create: true)
        try connection.execute("PRAGMA page_size = \(pageSize); PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; \(schema)")
        if checkpointsSchema { try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        for batch in 0..<3 {
            try connection.execute(
                "INSERT INTO \(table)(body) SELECT printf('%d-%.*c', \(batch), 300, 'x') FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 40) SELECT x FROM c)")
        }
        if openTransaction {
            // A cache of one page spills the transaction's pages into the WAL before COMMIT.
            try connection.execute("PRAGMA cache_size = 1; BEGIN")
            try connection.execute(
                "INSERT INTO \(table)(body) SELECT printf('open-%.*c', 300, 'y') FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200) SELECT x FROM c)")
        }
        let database = directory.file("\(name).db")
        let wal = database + "-wal"
        try FileManager.default.copyItem(atPath: live, toPath: database)
        try FileManager.default.copyItem(atPath: live + "-wal", toPath: wal)
        if openTransaction { try connection.execute("ROLLBACK") }
        return (database, wal)
    }

    private func header(_ path: String) throws -> DatabaseHeader {
        guard case .database(let header) = DatabaseHeader.read(path: path) else { throw WALTestError("not a database: \(path)") }
        return header
    }

    /// Frames SQLite applies from the `-wal` beside `database` (on a copy: a checkpoint
    /// changes the files).
    private func framesSQLiteApplies(_ database: String, _ directory: TemporaryDirectory) throws -> Int {
        let copy = directory.file("oracle-\(UUID().uuidString.prefix(6)).db")
        try FileManager.default.copyItem(atPath: database, toPath: copy)
        try FileManager.default.copyItem(atPath: database + "-wal", toPath: copy + "-wal")
        let row = try Connection(path: copy).rows("PRAGMA wal_checkpoint(PASSIVE)").first ?? []
        guard row.count == 3, case .integer(let log) = row[1] else { throw WALTestError("no checkpoint row") }
        return Int(log)
    }

    private func wal(_ path: String) throws -> WALFile {
        guard case .wal(let wal) = WALFile.read(path: path) else { throw WALTestError("not read as a WAL: \(path)") }
        return wal
    }

    /// Flips a byte of frame `frame` (from 0)'s page, where the checksum covers it.
    private func damage(frame: Int, of path: String, pageSize: Int = 4096) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let offset = UInt64(WALFile.headerSize + frame * (WALFile.frameHeaderSize + pageSize) + WALFile.frameHeaderSize + 200)
        try handle.seek(toOffset: offset)
        let byte = try handle.read(upToCount: 1) ?? Data([0])
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data([byte[0] ^ 0xFF]))
    }

    @Test func anIntactWALIsAppliedWholeAndSaysNothing() throws {
        let directory = TemporaryDirectory("wal")
        let (database, walPath) = try makeWAL(directory)
        let read = try wal(walPath)
        #expect(read.frames > 3)
        #expect(read.appliedFrames == read.frames)
        #expect(read.appliedFrames == (try framesSQLiteApplies(database, directory)))
        #expect(WALFinding.check(walPath: walPath, databasePath: database, database: try header(database)) == nil)
    }

    @Test func aDamagedFrameAndWhatFollowsAreIgnoredAsSQLiteIgnoresThem() throws {
        let directory = TemporaryDirectory("wal")
        let (database, walPath) = try makeWAL(directory)
        let frames = try wal(walPath).frames
        try damage(frame: frames - 2, of: walPath)
        let read = try wal(walPath)
        #expect(read.chainedFrames == frames - 2)
        // SQLite applies up to the commit before the damage, as this reading says.
        let applied = try framesSQLiteApplies(database, directory)
        #expect(read.appliedFrames == applied)
        #expect(applied < frames - 2)
        let finding = WALFinding.check(walPath: walPath, databasePath: database, database: try header(database))
        #expect(finding == .framesIgnored(ignored: frames - applied, frames: frames, afterLastCommit: frames - 2 - applied))
        #expect(finding?.code == "wal_frames_ignored")
        #expect(finding?.message.contains("ignores \(frames - applied) of the \(frames) frames") == true)
    }

    @Test func framesOfATransactionThatNeverCommittedAreCountedAsSuch() throws {
        let directory = TemporaryDirectory("wal")
        let (database, walPath) = try makeWAL(directory, openTransaction: true)
        let read = try wal(walPath)
        #expect(read.appliedFrames == (try framesSQLiteApplies(database, directory)))
        #expect(read.chainedFrames == read.frames)
        #expect(read.ignoredFrames > 0)
        guard case .framesIgnored(let ignored, _, let afterLastCommit) =
            WALFinding.check(walPath: walPath, databasePath: database, database: try header(database))
        else {
            Issue.record("no wal_frames_ignored")
            return
        }
        #expect(ignored == afterLastCommit)
    }

    @Test func aWALWhoseFirstFrameIsBrokenIsAMismatch() throws {
        let directory = TemporaryDirectory("wal")
        let (database, walPath) = try makeWAL(directory)
        try damage(frame: 0, of: walPath)
        #expect(try framesSQLiteApplies(database, directory) == 0)
        let finding = WALFinding.check(walPath: walPath, databasePath: database, database: try header(database))
        #expect(finding?.code == "wal_mismatch")
        #expect(finding?.message.contains("first frame") == true, "\(String(describing: finding))")
    }

    /// A launch killed in a WAL restart, after it wrote the new round's header and before
    /// its first frame: the frames behind the header are the previous round's, all in the
    /// main file already. SQLite applies none of them and reads the file as it is; the
    /// report says they are ignored, not that the WAL is another database's.
    @Test func aWALKilledInItsRestartIsItsOwnWithEveryFrameIgnored() throws {
        let directory = TemporaryDirectory("wal")
        let live = directory.file("restart-live.db")
        let connection = try Connection(path: live, create: true)
        try connection.execute(
            "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
        try connection.execute("\(series(120)) INSERT INTO notes(body) SELECT printf('%.*c', 300, 'x') FROM series")
        // Every frame into the main file; the frames stay until the next writer restarts the WAL.
        try connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        let database = directory.file("restart.db"), walPath = database + "-wal"
        try FileManager.default.copyItem(atPath: live, toPath: database)
        try FileManager.default.copyItem(atPath: live + "-wal", toPath: walPath)
        // The restart, by SQLite: its new header, laid over the old round's frames.
        try connection.execute("INSERT INTO notes(body) VALUES ('next round')")
        let restarted = try Data(contentsOf: URL(fileURLWithPath: live + "-wal")).prefix(WALFile.headerSize)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: walPath))
        try handle.write(contentsOf: restarted)
        try handle.close()
        withExtendedLifetime(connection) {}

        #expect(try framesSQLiteApplies(database, directory) == 0)
        let oracle = directory.file("restart-oracle.db")
        try FileManager.default.copyItem(atPath: database, toPath: oracle)
        try FileManager.default.copyItem(atPath: walPath, toPath: oracle + "-wal")
        #expect(try FixtureDatabase.count("notes", at: oracle) == 120)
        #expect(try Connection(path: oracle).scalar("PRAGMA integrity_check").textValue == "ok")
        let read = try wal(walPath)
        #expect(read.frames > 0 && read.chainedFrames == 0)
        #expect(read.firstFrameFromEarlierRound)
        let finding = WALFinding.check(walPath: walPath, databasePath: database, database: try header(database))
        #expect(finding == .framesIgnored(ignored: read.frames, frames: read.frames, afterLastCommit: 0))
    }

    /// A new database pulled before its first checkpoint: the main file has never had a
    /// schema, so its header has no text encoding yet (0), while the WAL's page 1 says
    /// UTF-8. Still its own WAL.
    @Test func aWALHoldingTheWholeNewDatabaseIsItsOwn() throws {
        let directory = TemporaryDirectory("wal")
        let (database, walPath) = try makeWAL(directory, checkpointsSchema: false)
        let mainPageOne = [UInt8](try Data(contentsOf: URL(fileURLWithPath: database)).prefix(DatabaseHeader.size))
        #expect(WALFile.bigEndian32(mainPageOne, 56) == 0)
        #expect(try wal(walPath).appliedFrames == (try framesSQLiteApplies(database, directory)))
        #expect(WALFinding.check(walPath: walPath, databasePath: database, database: try header(database)) == nil)
    }

    @Test func aWALTakenFromAnotherDatabaseIsAMismatch() throws {
        let directory = TemporaryDirectory("wal")
        let (database, _) = try makeWAL(directory)
        let header = try header(database)
        // Another app's database: same page size, a schema with no table in common.
        let other = try makeWAL(
            directory, name: "other", schema: "CREATE TABLE invoices(id INTEGER PRIMARY KEY, body TEXT)", table: "invoices")
        let schema = WALFinding.check(walPath: other.wal, databasePath: database, database: header)
        #expect(schema?.code == "wal_mismatch")
        #expect(schema?.message.contains("shares no table") == true, "\(String(describing: schema))")
        // Pages of another size.
        let larger = try makeWAL(directory, name: "larger", pageSize: 8192)
        let pageSize = WALFinding.check(walPath: larger.wal, databasePath: database, database: header)
        #expect(pageSize == .mismatch("its pages are 8192 bytes, the database's 4096"))
        // Not a WAL at all.
        let garbage = directory.file("garbage-wal")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: garbage))
        #expect(WALFinding.check(walPath: garbage, databasePath: database, database: header)?.code == "wal_mismatch")
        // A WAL of a database with the same schema is not.
        let own = try makeWAL(directory, name: "own")
        #expect(WALFinding.check(walPath: own.wal, databasePath: database, database: header) == nil)
    }
}

private struct WALTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
