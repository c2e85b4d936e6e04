import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

/// A synthesized file grown by appending rows (`Synthesizer.grow`) against a synthesis of
/// the larger size from scratch with the same seed: the same rows in every table, and the
/// same file past its header (which counts its own changes), so that a capacity search that
/// grows its sizes rehearses the files it would have made.
@Suite("synthesis grown by appending")
struct SynthesisGrowthTests {
    private let directory = TemporaryDirectory("synthesis-growth")

    /// Every table's row count and a hash of its rows in key order.
    private func content(_ path: String) throws -> [String: String] {
        let connection = try Connection(path: path, readOnly: true)
        var result: [String: String] = [:]
        for row in try connection.rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name") {
            let table = try #require(row[0].textValue)
            var hash = SHA256()
            for values in try connection.rows("SELECT * FROM \(SQLText.quote(table))") {
                hash.update(Array(values.map(\.description).joined(separator: "|").utf8) + [10])
            }
            let count = try connection.integer("SELECT count(*) FROM \(SQLText.quote(table))")
            result[table] = "\(count) rows, \(hash.finalizeHex())"
        }
        return result
    }

    /// The file past its 100-byte header, where the two may differ only in the counter of
    /// changes and the version that wrote it last.
    private func pages(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path)).dropFirst(100)
    }

    private func plan(_ path: String) throws -> Plan {
        path.hasSuffix("notes.json")
            ? try PlanDecoder.decode(Array(try Data(contentsOf: URL(fileURLWithPath: Repository.path(path)))))
            : try SynthesizeTests.corpusPlan(path)
    }

    /// The notes plan's table, and the two corpus tables the capacity benchmark grows.
    @Test(arguments: [
        ("Config/plans/notes.json", 1, "notes"), ("wikipedia-android", 4, "HistoryEntry"), ("k9mail", 7, "folders"),
    ])
    func aGrownFileIsTheFileMadeFromScratch(source: String, version: Int, table: String) throws {
        let plan = try plan(source)
        let request = { (rows: Int) in SynthesisRequest(plan: plan, version: version, rows: [table: rows], like: nil, seed: 1) }
        let grown = directory.file("grown-\(table).db")
        let scratch = directory.file("scratch-\(table).db")
        _ = try Synthesizer.synthesize(request(3_000), to: grown)
        let summary = try #require(try Synthesizer.grow(request(7_100), from: [table: 3_000], at: grown))
        let made = try Synthesizer.synthesize(request(7_100), to: scratch)
        #expect(summary.tables == made.tables)
        #expect((summary.tables[table] ?? 0) >= 7_100)
        #expect(summary.bytes == made.bytes)
        let expected = try content(scratch)
        #expect(expected.count > 0)
        #expect(try content(grown) == expected)
        #expect(try pages(grown) == pages(scratch))
        #expect(try Connection(path: grown, readOnly: true).scalar("PRAGMA integrity_check") == .text("ok"))
    }

    /// Where appending would not make the file a synthesis from scratch makes, the file is
    /// left as it was and the caller is told (nil): a table whose CHECK makes rows again
    /// after the whole counter, and a table filled before a child that holds rows.
    @Test func refusesWhatAppendingCannotMakeTheSame() throws {
        let checked = try PlanDecoder.decode(Array(SynthesizeTests.checkedPlan.utf8))
        let path = directory.file("checked.db")
        let small = SynthesisRequest(plan: checked, version: 1, rows: ["t": 200], like: nil, seed: 1)
        _ = try Synthesizer.synthesize(small, to: path)
        let before = try content(path)
        var larger = small
        larger.rows = ["t": 400]
        #expect(try Synthesizer.grow(larger, from: small.rows, at: path) == nil)
        #expect(try content(path) == before)

        let notes = try plan("Config/plans/notes.json")
        let parent = directory.file("notes-outbox.db")
        let both = SynthesisRequest(plan: notes, version: 6, rows: ["notes": 500, "outbox": 800], like: nil, seed: 1)
        _ = try Synthesizer.synthesize(both, to: parent)
        var moreNotes = both
        moreNotes.rows = ["notes": 900, "outbox": 800]
        #expect(try Synthesizer.grow(moreNotes, from: both.rows, at: parent) == nil)
        #expect(try FixtureDatabase.count("notes", at: parent) == 500)
    }
}
