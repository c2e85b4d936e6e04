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

    /// Each fixture in the folder is one of the apps above, and each app has its fixture.
    @Test func theCorpusFolderHoldsExactlyTheListedApps() throws {
        #expect(try Corpus.appsInFolder() == Corpus.apps.sorted())
    }
}
