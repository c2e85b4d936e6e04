import CPageCache
import Foundation
import Glibc
import MigrationCore
import Testing
import TestSupport
@testable import Simulation

/// The work copy a rehearsal runs on (`JobInput.copy`): the device's bytes, and on the
/// disk before the first launch starts, as the device's file is. Otherwise the first
/// launch's first sync writes the whole copy, inside that launch's watchdog budget.
@Suite struct WorkCopyTests {
    let directory = TemporaryDirectory("work-copy")

    /// Whether the page cache can show here that a file is on the disk: the kernel tells
    /// what it holds of a file (cachestat, Linux 6.5), and the temporary directory's
    /// filesystem has a disk (tmpfs shows no page dirty, ever): a file just written shows
    /// pages left to write, and none once synced.
    static let pageCacheShowsWrittenFiles: Bool = {
        let path = NSTemporaryDirectory() + "preflight-page-cache-probe-\(getpid())"
        let file = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard file >= 0 else { return false }
        defer {
            close(file)
            unlink(path)
        }
        let bytes = [UInt8](repeating: 1, count: 1 << 16)
        var dirty: UInt64 = 0, writeback: UInt64 = 0
        guard bytes.withUnsafeBytes({ writeAll(file, $0) }),
            preflight_test_unwritten_pages(file, &dirty, &writeback) == 0, dirty + writeback > 0,
            fdatasync(file) == 0
        else { return false }
        return preflight_test_unwritten_pages(file, &dirty, &writeback) == 0 && dirty + writeback == 0
    }()

    /// The pages of `path` that are not on the disk yet: dirty, or on their way there.
    private func unwrittenPages(_ path: String) throws -> UInt64 {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        try #require(file >= 0, "cannot open \(path)")
        defer { close(file) }
        var dirty: UInt64 = 0, writeback: UInt64 = 0
        let result = preflight_test_unwritten_pages(file, &dirty, &writeback)
        try #require(result == 0, "cachestat: \(String(cString: strerror(-result)))")
        return dirty + writeback
    }

    /// A device's WAL-mode database with rows in both files, the WAL left uncheckpointed.
    private func deviceDatabase() throws -> JobInput {
        let path = directory.file("device.db")
        let app = try Connection(path: path, create: true)
        try app.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
        try app.execute(NotesHistory.schema(version: 2))
        try app.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
            INSERT INTO notes(id, title, updated_at) SELECT i, hex(randomblob(200)), i FROM n
            """)
        try app.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try app.execute("UPDATE notes SET title = upper(title) WHERE id <= 2000")
        app.keepWALOnClose()
        return JobInput(database: path, wal: path + "-wal")
    }

    @Test(.enabled(if: pageCacheShowsWrittenFiles, "needs cachestat(2) (Linux 6.5) and a temporary directory on a disk"))
    func theWorkCopyIsOnTheDiskWhenItIsMade() throws {
        let input = try deviceDatabase()
        let wal = try #require(input.existingWAL)
        // What the copy was before: the same bytes left in the page cache, to be written
        // by whoever syncs the file first.
        let plain = directory.file("plain.db")
        try copyFile(input.database, to: plain)
        #expect(try unwrittenPages(plain) > 0)

        let work = DatabaseFiles(directory.file("work.db"))
        try input.copy(to: work)
        #expect(try unwrittenPages(work.path) == 0)
        #expect(try unwrittenPages(work.wal) == 0)
        #expect(FixtureDatabase.sha256(of: work.path) == FixtureDatabase.sha256(of: input.database))
        #expect(FixtureDatabase.sha256(of: work.wal) == FixtureDatabase.sha256(of: wal))
        #expect(try FixtureDatabase.count("notes", at: work.path) == 20_000)
    }

    /// The copy is made durable only for launches that may write: a file the header shows
    /// at the target already (under a runner that keeps its version there, with no WAL)
    /// runs no step, and a sync would only keep the rehearsal waiting.
    @Test func onlyAFileWithStepsToRunNeedsADurableCopy() throws {
        let path = try FixtureDatabase.create(at: directory.file("v2.db"), sql: """
            CREATE TABLE t(x INTEGER);
            PRAGMA user_version = 2;
            """)
        let header = DatabaseHeader.read(path: path)
        let steps = #"[{"version": 1, "sql": ["CREATE TABLE t(x INTEGER)"]}, {"version": 2, "sql": ["CREATE INDEX t_x ON t(x)"]}]"#
        let perStep = try PlanDecoder.decode(Array(#"{"name": "t", "steps": \#(steps)}"#.utf8))
        let input = JobInput(database: path, wal: path + "-wal")
        #expect(!input.launchesMayWrite(header: header, plan: perStep, target: 2))
        #expect(input.launchesMayWrite(header: header, plan: perStep, target: 1))
        #expect(input.launchesMayWrite(header: .empty, plan: perStep, target: 2))
        let grdbSteps = #"[{"version": 1, "id": "t", "sql": ["CREATE TABLE t(x INTEGER)"]}, {"version": 2, "id": "t_x", "sql": ["CREATE INDEX t_x ON t(x)"]}]"#
        let grdb = try PlanDecoder.decode(Array(#"{"name": "t", "runner": "grdb", "steps": \#(grdbSteps)}"#.utf8))
        #expect(input.launchesMayWrite(header: header, plan: grdb, target: 2))
        // A WAL may hold a newer user_version than the header's.
        try Data().write(to: URL(fileURLWithPath: path + "-wal"))
        #expect(input.launchesMayWrite(header: header, plan: perStep, target: 2))
    }
}
