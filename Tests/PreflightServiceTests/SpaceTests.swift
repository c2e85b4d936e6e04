import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

/// Disk space (issue 4), end to end: the real `preflight` binary, its workers and the
/// space VFS they register, on real files. Nothing here registers the VFS in this
/// process (registration is per process and would clash with other suites).
///
/// Every case runs in both journal modes: a rollback journal holds the originals of the
/// pages a transaction changes, a WAL the new pages, so the same step needs different
/// room in each.
@Suite("disk space")
struct SpaceTests {
    static let modes = ["delete", "wal"]

    // MARK: - min_free_bytes

    /// The two steps whose space the issue names: a rebuild and an index build.
    static let spaceHungrySteps = [SpaceFixtures.rebuild, SpaceFixtures.indexBuild]

    /// min_free_bytes is the steps' peak, so a page less fails in the step itself, at
    /// version 1, in both modes: not in a rebuild's purge after its bump (clean-up,
    /// measured apart, which waits for a launch with room), nor in the WAL checkpoint at
    /// close (which SQLite skips silently on a full disk).
    @Test(
        "min_free_bytes is enough for a rebuild and an index build; a page less fills the disk",
        arguments: spaceHungrySteps, modes)
    func stepNeedsExactlyMinFreeBytes(step: String, mode: String) throws {
        let run = try SpaceRehearsal(step: step, rows: 20_000, mode: mode)
        let ample = try run.report(Self.ampleSpace)
        #expect(ample.outcome == .completed, "\(ample.stderr)")
        let needed = try #require(ample.space.minFreeBytes)
        try Self.expectEstimateCovers(ample)

        let enough = try run.report(["--free-bytes", "\(needed)", "--space-check", "off"])
        #expect(enough.outcome == .completed, "\(String(describing: enough.failure))")
        let short = try run.report(["--free-bytes", "\(needed - run.pageSize)", "--space-check", "off"])
        Self.expectDiskFullRolledBack(short, rows: 20_000)
    }

    // MARK: - Sorter temp files

    @Test("an index build of 100,000 text keys sorts in temp files, and the estimate counts them", arguments: modes)
    func indexBuildSpillsItsSortToTempFiles(mode: String) throws {
        let run = try SpaceRehearsal(step: SpaceFixtures.indexBuild, rows: 100_000, mode: mode)
        let report = try run.report(Self.ampleSpace)
        #expect(report.outcome == .completed, "\(report.stderr)")
        let temp = report.space.byClass?["temp"] ?? 0
        // The keys are ~110 bytes: 100,000 of them are ~11 MB, far past the 2 MB cache.
        #expect(temp > 8_000_000)
        let step = try #require(report.step(2))
        #expect(step.costClass == .index)
        try Self.expectEstimateCovers(report)
    }

    // MARK: - The space check

    @Test("a 100,000-row rebuild: refused with 10% too little, disk full without the check, done with enough", arguments: modes)
    func rebuildOf100000RowsAgainstTheFreeSpace(mode: String) throws {
        let run = try SpaceRehearsal(step: SpaceFixtures.rebuild, rows: 100_000, mode: mode)
        let ample = try run.report(Self.ampleSpace)
        #expect(ample.outcome == .completed, "\(ample.stderr)")
        let needed = try #require(ample.space.minFreeBytes)
        let step = try #require(ample.step(2))
        try Self.expectEstimateCovers(ample)

        // The copy needs room for a whole second table: the step's peak holds both.
        let tableBytes = try SpaceFixtures.treeBytes("notes", at: run.database)
        let initial = try #require(ample.space.initialBytes)
        #expect(try #require(step.peakGrowthBytes) >= tableBytes)
        #expect(try #require(step.peakBytes) >= initial + tableBytes)

        // 10% too little: refused before anything is touched. (The free space the check
        // sees is what is left when the step begins: in WAL mode opening the file maps
        // the 32 KiB -shm first.)
        let tooLittle = needed * 9 / 10
        let beforeStep = try Self.growthBeforeStep(ample)
        let before = FixtureDatabase.sha256(of: run.database)
        let refused = try run.report(["--free-bytes", "\(tooLittle)", "--out", run.directory.file("refused.db")])
        #expect(refused.outcome == .refused, "\(String(describing: refused.failure))")
        #expect(refused.failure?.kind.rawValue == "insufficient_space")
        #expect(refused.failure?.freeBytes == tooLittle - beforeStep)
        #expect(try #require(refused.failure?.neededBytes) >= needed)
        #expect(refused.step(2)?.status == .refused)
        #expect(refused.step(2)?.bytesWritten ?? 0 == 0)
        #expect(refused.launches.allSatisfy { $0.reachedVersion == 1 })
        #expect(FixtureDatabase.sha256(of: run.database) == before)
        if FileManager.default.fileExists(atPath: run.directory.file("refused.db")) {
            #expect(try FixtureDatabase.userVersion(at: run.directory.file("refused.db")) == 1)
            #expect(try FixtureDatabase.count("notes", at: run.directory.file("refused.db")) == 100_000)
        }

        // The same without the check: the disk fills, the step rolls back.
        let full = try run.report(["--free-bytes", "\(tooLittle)", "--space-check", "off"])
        Self.expectDiskFullRolledBack(full, rows: 100_000)

        // Exactly enough: the least free space with which the run succeeds. (The check
        // itself asks for its estimate, which is at least this much.)
        let enough = try run.report(["--free-bytes", "\(needed)", "--space-check", "off"])
        #expect(enough.outcome == .completed, "\(String(describing: enough.failure))")
        let estimated = try #require(step.estimatedBytes)
        let checked = try run.report(["--free-bytes", "\(estimated + beforeStep)"])
        #expect(checked.outcome == .completed, "\(String(describing: checked.failure))")
    }

    // MARK: - The estimate against what steps measure

    /// Steps of each kind the estimate models, each checked against the space VFS.
    static let estimatedSteps: [(name: String, step: String)] = [
        ("UPDATE of every row", #""sql": "UPDATE notes SET title = upper(title)""#),
        ("UPDATE that grows every row", #""sql": "UPDATE notes SET body = body || ' (edited on the train)'""#),
        ("INSERT ... SELECT copy", #""sql": ["CREATE TABLE notes_copy(id INTEGER PRIMARY KEY, title TEXT, body TEXT, updated_at INTEGER NOT NULL)", "INSERT INTO notes_copy SELECT * FROM notes"]"#),
        ("ALTER TABLE DROP COLUMN", #""sql": "ALTER TABLE notes DROP COLUMN body""#),
        ("DELETE of half the rows", #""sql": "DELETE FROM notes WHERE id % 2 = 0", "row_loss": "allowed""#),
        ("backfill", #""backfill": {"table": "notes", "set": "body = lower(title) || ' / ' || body", "batch_rows": 1000}"#),
        // 400 batches that each grow the table by a few bytes: their growth adds up to a
        // few pages, not a page per batch.
        ("backfill in small batches", #""backfill": {"table": "notes", "set": "body = body || '.'", "batch_rows": 50}"#),
        // Batches of 200 kept rows, each spread over 2,000 keys and as many pages.
        ("backfill of every tenth row", #""backfill": {"table": "notes", "set": "body = body || ' (edited on the train)'", "where": "id % 10 = 0", "batch_rows": 200}"#),
        ("rebuild with a filter", #""rebuild": {"table": "notes", "columns": "id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT, updated_at INTEGER NOT NULL", "select": "id, title, body, updated_at", "where": "id % 3 <> 0", "batch_rows": 500}, "row_loss": "allowed""#),
    ]

    @Test(
        "the estimate is at least the measured need and within 1.5x of it",
        arguments: estimatedSteps.indices.flatMap { index in modes.map { (index, $0) } })
    func estimateCoversTheMeasuredNeed(step index: Int, mode: String) throws {
        let (name, step) = Self.estimatedSteps[index]
        let run = try SpaceRehearsal(step: step, rows: 20_000, mode: mode)
        let report = try run.report(Self.ampleSpace)
        #expect(report.step(2)?.status == .applied, "\(name): \(String(describing: report.failure))")
        try Self.expectEstimateCovers(report, name)
    }

    /// The estimate runs only when it can refuse a step: with no free-space limit it is
    /// not made (it reads the step's tables whole, inside the launch), and with one far
    /// above any need it is made and changes nothing else.
    @Test("no estimate without a free-space limit", arguments: modes)
    func noEstimateWithoutALimit(mode: String) throws {
        let run = try SpaceRehearsal(step: SpaceFixtures.rebuild, rows: 2_000, mode: mode)
        let unlimited = try run.report()
        #expect(unlimited.outcome == .completed, "\(unlimited.stderr)")
        #expect(unlimited.step(2)?.estimatedBytes == nil)
        let limited = try run.report(Self.ampleSpace)
        #expect(limited.outcome == .completed, "\(limited.stderr)")
        #expect(try #require(limited.step(2)?.estimatedBytes) > 0)
    }

    /// A free-space limit no step comes near (1 TiB), so that steps are estimated.
    static let ampleSpace = ["--free-bytes", "\(Int64(1) << 40)"]

    // MARK: - Checks

    /// The estimate of step 2 is never below what it measured (the step's own peak
    /// growth, and the run's when the run is only this step) and at most 1.5 times the
    /// larger of the two. In WAL mode the run's peak can come after the step (the
    /// checkpoint at close), so both are compared; the run's growth before the step
    /// began (the -shm mapped when the file is opened) is not the step's.
    static func expectEstimateCovers(_ report: RunReport, _ name: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws {
        let step = try #require(report.step(2), sourceLocation: sourceLocation)
        let estimated = try #require(step.estimatedBytes, "\(name): no estimate", sourceLocation: sourceLocation)
        let stepNeed = try #require(step.peakGrowthBytes, sourceLocation: sourceLocation)
        let runNeed = (report.space.minFreeBytes ?? stepNeed) - (try growthBeforeStep(report))
        #expect(estimated >= stepNeed, "\(name): estimated \(estimated) < step peak growth \(stepNeed)", sourceLocation: sourceLocation)
        #expect(estimated >= runNeed, "\(name): estimated \(estimated) < run peak growth \(runNeed)", sourceLocation: sourceLocation)
        #expect(
            Double(estimated) <= 1.5 * Double(max(stepNeed, runNeed)),
            "\(name): estimated \(estimated) > 1.5 x \(max(stepNeed, runNeed))", sourceLocation: sourceLocation)
    }

    /// How much the files had grown when step 2 began (its peak less its peak growth,
    /// less the files' size at the start).
    static func growthBeforeStep(_ report: RunReport) throws -> Int64 {
        let step = try #require(report.step(2))
        let peak = try #require(step.peakBytes)
        let growth = try #require(step.peakGrowthBytes)
        let initial = try #require(report.space.initialBytes)
        return max(0, peak - growth - initial)
    }

    // MARK: - samples

    /// `space.samples`: the files' sizes, by class, taken from the stats file while the
    /// launches ran; time goes forward, no instant exceeds the peak, and the file the
    /// rebuild's batches commit through (the journal, or the WAL) shows in them.
    @Test("the report samples the files' sizes while the launches run", arguments: modes)
    func samplesFollowTheRun(mode: String) throws {
        let run = try SpaceRehearsal(step: Self.spaceHungrySteps[0], rows: 100_000, mode: mode)
        let report = try run.report()
        #expect(report.outcome == .completed, "\(report.stderr)")
        let rows = report.space.samples
        #expect(rows.count >= 2 && rows.count <= 500, "\(rows.count) samples")
        #expect(rows.allSatisfy { $0.count == 6 })
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0[0] <= $1[0] })
        let peak = try #require(report.space.peakBytes)
        #expect(rows.allSatisfy { $0.dropFirst().reduce(0, +) <= peak })
        let commitFile = mode == "wal" ? 3 : 2  // [t_ms, main, journal, wal, shm, temp]
        #expect(rows.contains { $0[commitFile] > 0 }, "\(rows.prefix(20))")
        #expect(rows.contains { $0[1] > 0 })
    }

    /// disk_full: the step rolled back, the database consistent at version 1, no row lost.
    static func expectDiskFullRolledBack(_ report: RunReport, rows: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(report.outcome == .diskFull, "\(String(describing: report.failure))", sourceLocation: sourceLocation)
        #expect(report.failure?.kind.rawValue == "disk_full", sourceLocation: sourceLocation)
        #expect(report.final?.integrity == "ok", sourceLocation: sourceLocation)
        #expect(report.final?.userVersion == 1, sourceLocation: sourceLocation)
        #expect(report.final?.tables?["notes"] == Int64(rows), sourceLocation: sourceLocation)
        #expect(report.step(2)?.status == .failed, sourceLocation: sourceLocation)
    }
}

/// One fixture and plan in a directory of its own, run as often as a test needs.
struct SpaceRehearsal {
    let directory = TemporaryDirectory("space")
    let database: String
    let plan: String
    let pageSize: Int64 = 4096

    init(step: String, rows: Int, mode: String) throws {
        database = try SpaceFixtures.notes(rows: rows, at: directory.file("notes-\(mode).db"), journalMode: mode)
        plan = try SpaceFixtures.plan(step, at: directory.file("plan.json"))
    }

    func report(_ options: [String] = []) throws -> RunReport {
        try PreflightProcess.runReport(database: database, plan: plan, options)
    }
}
