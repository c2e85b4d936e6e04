import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

/// An upload with a damaged page that its schema and row counts do not read: the run goes
/// ahead, as it would on the phone, and when it meets the damage a check of the upload
/// itself ends it `invalid_database` instead of blaming the plan.
@Suite("preflight run: damage inside the upload")
struct InputDamageTests {
    /// `notes` has an index, so counting its rows reads the index and not the table; when
    /// `damaged`, one of the table's leaf pages is overwritten with 0xFF (no valid page type).
    static func database(at path: String, damaged: Bool = true) throws -> String {
        try FixtureDatabase.create(at: path, sql: """
            CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT);
            CREATE INDEX idx_title ON notes(title);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
            INSERT INTO notes SELECT i, 't' || i, printf('%.200c', 'b') FROM n;
            PRAGMA user_version = 1;
            """)
        guard damaged else { return path }
        let connection = try Connection(path: path)
        let page = try connection.integer(
            "SELECT pageno FROM dbstat WHERE name = 'notes' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 20")
        let pageSize = try connection.integer("PRAGMA page_size")
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? file.close() }
        try file.seek(toOffset: UInt64((page - 1) * pageSize))
        try file.write(contentsOf: Data(repeating: 0xFF, count: Int(pageSize)))
        return path
    }

    static func plan(_ sql: String, at path: String) throws -> String {
        try Data("""
            {"name": "damage", "steps": [
              {"version": 1, "name": "create", "sql": ["CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT)", "CREATE INDEX idx_title ON notes(title)"]},
              {"version": 2, "name": "change", "sql": \(sql)}]}
            """.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a step that reads the damaged page, and a verification that finds it, end invalid_database")
    func damageTheRunMeetsIsTheUploads() throws {
        let directory = TemporaryDirectory("damage")
        let damaged = try Self.database(at: directory.file("damaged.db"))
        let before = FixtureDatabase.sha256(of: damaged)
        let rewrite = try Self.plan(#""UPDATE notes SET body = upper(body)""#, at: directory.file("rewrite.json"))
        let elsewhere = try Self.plan(#""CREATE TABLE tags(name TEXT)""#, at: directory.file("elsewhere.json"))

        for (plan, met) in [(rewrite, "step 2"), (elsewhere, "integrity")] {
            let out = directory.file("out.db")
            let result = try PreflightProcess.run(["run", "--db", damaged, "--plan", plan, "--out", out])
            let report = try result.decodedReport
            #expect(result.status == 1)
            #expect(report.outcome == .invalidDatabase, "\(met): \(String(describing: report.failure))")
            #expect(report.failure?.kind == "invalid_database")
            let message = report.failure?.message ?? ""
            #expect(message.hasPrefix("the database is damaged: "), "\(message)")
            #expect(message.contains("(the upload itself, before any step ran); the run met it: "), "\(message)")
            #expect(report.final == nil)
            #expect(report.input.tables == ["notes": 2000])
            #expect(!FileManager.default.fileExists(atPath: out), "\(met): a damaged file's rehearsal is no migrated database")
            #expect(FixtureDatabase.sha256(of: damaged) == before)
        }
    }

    /// What a phone does: the migration never reads the damaged page, and nothing checks
    /// the file after it.
    @Test func withoutVerificationDamageNothingReadsGoesUnseen() throws {
        let directory = TemporaryDirectory("damage")
        let damaged = try Self.database(at: directory.file("damaged.db"))
        let elsewhere = try Self.plan(#""CREATE TABLE tags(name TEXT)""#, at: directory.file("elsewhere.json"))
        let report = try PreflightProcess.run(["run", "--db", damaged, "--plan", elsewhere, "--verify", "off"]).decodedReport
        #expect(report.outcome == .completed, "\(String(describing: report.failure))")
        #expect(report.final?.userVersion == 2)
    }

    /// The same plans on the same file undamaged: they are not what fails.
    @Test func theSamePlansCompleteOnTheUndamagedFile() throws {
        let directory = TemporaryDirectory("damage")
        let healthy = try Self.database(at: directory.file("healthy.db"), damaged: false)
        for sql in [#""UPDATE notes SET body = upper(body)""#, #""CREATE TABLE tags(name TEXT)""#] {
            let plan = try Self.plan(sql, at: directory.file("plan.json"))
            let report = try PreflightProcess.run(["run", "--db", healthy, "--plan", plan]).decodedReport
            #expect(report.outcome == .completed, "\(sql): \(String(describing: report.failure))")
        }
    }
}
