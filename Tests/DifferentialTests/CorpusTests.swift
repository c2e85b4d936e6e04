import Foundation
import Testing
import TestSupport

/// Real apps' migration chains through Preflight and through plain SQLite: after every step
/// of the app's history, from its version 1 with rows and from an empty file, both must
/// leave the same database and Preflight's report must describe it.
@Suite("Differential: the real-app corpus")
struct CorpusTests {
    @Test(arguments: Corpus.apps, Differential.Start.allCases)
    func preflightAgreesWithSQLite(app: String, start: Differential.Start) throws {
        let discrepancies = try Differential.discrepancies(Corpus.differentialCase(app), from: start)
        #expect(
            discrepancies.isEmpty,
            "\(app) from \(start.rawValue): \(discrepancies.count) discrepancies:\n- \(discrepancies.joined(separator: "\n- "))")
    }

    /// The steps the loader declares as removing rows are the steps after which plain SQLite
    /// has fewer rows in a table than before them, in the seeded upgrade.
    @Test(arguments: Corpus.apps)
    func rowLossIsDeclaredWhereSQLiteLosesRows(app: String) throws {
        let oracle = try Oracle.run(Corpus.differentialCase(app), from: .seeded, in: TemporaryDirectory("oracle"))
        #expect(
            Set(oracle.stepLosses.keys) == Set((Corpus.rowLossSteps[app] ?? [:]).keys),
            "\(app): plain SQLite loses rows in steps \(oracle.stepLosses.sorted { $0.key < $1.key })")
    }

    /// K-9 Mail's FTS4 table in the report of a real run, under its own name and with plain
    /// SQLite's count, before and after the chain; none of its shadow tables is listed.
    @Test func k9MailsFullTextTableIsCountedByName() throws {
        let testCase = try Corpus.differentialCase("k9mail")
        let directory = TemporaryDirectory("corpus")
        let input = try Oracle.buildVersionOne(testCase, at: directory.file("v1.db")).path
        let planPath = directory.file("plan.json")
        try testCase.planDocument.write(to: URL(fileURLWithPath: planPath))
        let out = directory.file("out.db")
        let result = try PreflightProcess.run(["run", "--db", input, "--plan", planPath, "--out", out])
        let report = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stderr)")
        let inputTables = try #require((report["input"] as? [String: Any])?["tables"] as? [String: Int])
        let finalTables = try #require((report["final"] as? [String: Any])?["tables"] as? [String: Int])
        let countBefore = try PlainSQLite(path: input).integer("SELECT count(*) FROM messages_fulltext")
        let countAfter = try PlainSQLite(path: out).integer("SELECT count(*) FROM messages_fulltext")
        #expect(countBefore == 6)
        #expect(inputTables["messages_fulltext"].map(Int64.init) == countBefore)
        #expect(finalTables["messages_fulltext"].map(Int64.init) == countAfter)
        for tables in [inputTables, finalTables] {
            #expect(!tables.keys.contains { $0.hasPrefix("messages_fulltext_") }, "\(tables.keys.sorted())")
        }
    }

    /// Each fixture in the folder is one of the apps above, and each app has its fixture.
    @Test func theCorpusFolderHoldsExactlyTheListedApps() throws {
        #expect(try Corpus.appsInFolder() == Corpus.apps.sorted())
    }
}
