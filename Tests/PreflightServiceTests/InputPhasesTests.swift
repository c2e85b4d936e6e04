import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

/// The upload's hash (copied and hashed at once) and the report's `timings.phases`, from
/// the real binary.
@Suite("preflight run: input hash and phases")
struct InputPhasesTests {
    let plan = Repository.path("Config/plans/notes.json")

    @Test func theInputHashIsSha256sumsAndEveryPhaseIsTimed() throws {
        let directory = TemporaryDirectory("phases")
        // Several MiB, so that the copy and the hash run many pieces.
        let path = try NotesHistory.database(version: 1, rows: 40_000, at: directory.file("v1.db"))
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", plan, "--out", directory.file("out.db")])
        let report = try result.decodedReport
        #expect(result.status == 0, "\(result.stderr)")
        #expect(report.outcome == .completed)
        #expect(report.input.sha256 == (try sha256sum(path)))
        let phases = report.timings.phases
        let measured = [phases.hashMs, phases.copyMs, phases.countMs, phases.launchesMs, phases.verifyMs, phases.reportMs]
        #expect(measured.allSatisfy { $0 != nil }, "\(phases)")
        #expect(measured.compactMap { $0 }.allSatisfy { $0 >= 0 && $0 <= report.timings.totalMs })
    }

    /// Without a WAL, the inspection reads the upload where it lies, beside the copy being
    /// made: immutable, so nothing is made next to it (a WAL-mode file would otherwise get
    /// a -shm and a -wal there, which the worker's sandbox refuses), under a name that
    /// needs escaping in SQLite's URI. With a WAL it reads the work copy: the same counts.
    @Test func theUploadIsReadWhereItLiesAndNothingIsMadeBesideIt() throws {
        let directory = TemporaryDirectory("phases")
        let device = directory.file("device.db")
        let app = try Connection(path: device, create: true)
        try app.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
        try app.execute(NotesHistory.schema(version: 2) + "PRAGMA user_version = 2; PRAGMA application_id = \(NotesHistory.applicationID);")
        try app.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40) INSERT INTO notes(id, title, updated_at) SELECT i, 'n', i FROM n")
        try app.execute("PRAGMA wal_checkpoint(TRUNCATE); INSERT INTO notes(id, title, updated_at) VALUES (41, 'only in the WAL', 41)")
        let pulled = directory.file("pulled")
        try FileManager.default.createDirectory(atPath: pulled, withIntermediateDirectories: false)
        let upload = pulled + "/my notes 100% ?#.db"
        try FileManager.default.copyItem(atPath: device, toPath: upload)
        try FileManager.default.copyItem(atPath: device + "-wal", toPath: pulled + "/pulled-wal")
        withExtendedLifetime(app) {}
        let listing = try FileManager.default.contentsOfDirectory(atPath: pulled).sorted()
        let before = FixtureDatabase.sha256(of: upload)

        let inPlace = try PreflightProcess.run(["run", "--db", upload, "--plan", plan])
        let report = try inPlace.decodedReport
        #expect(report.outcome == .completed, "\(inPlace.stderr)")
        #expect(report.input.tables == ["notes": 40])
        #expect(report.input.journalMode == "wal")
        #expect(report.final?.tables?["notes"] == 40)

        let withWAL = try PreflightProcess.run(["run", "--db", upload, "--wal", pulled + "/pulled-wal", "--plan", plan])
        #expect(try withWAL.decodedReport.input.tables == ["notes": 41], "\(withWAL.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: pulled).sorted() == listing)
        #expect(FixtureDatabase.sha256(of: upload) == before)
    }

    /// A file that is no database stops before the copy: the phases it never reached are
    /// null, not zero.
    @Test func phasesNotReachedAreNull() throws {
        let directory = TemporaryDirectory("phases")
        let path = directory.file("text.db")
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", plan])
        let report = try result.decodedReport
        #expect(report.outcome == .invalidDatabase, "\(result.stderr)")
        #expect(report.input.sha256 == (try sha256sum(path)))
        let phases = report.timings.phases
        #expect(phases.copyMs == nil && phases.countMs == nil && phases.launchesMs == nil && phases.verifyMs == nil)
        #expect(phases.hashMs != nil && phases.reportMs != nil)
    }
}

/// The digest coreutils' `sha256sum` prints for `path`: a second, independent SHA-256.
private func sha256sum(_ path: String) throws -> String {
    try TestProcess.run("/usr/bin/sha256sum", [path]).stdoutText.split(separator: " ").first.map(String.init) ?? ""
}
