import Foundation
import Testing
import TestSupport

/// Preflight on a device profile against that profile's engine itself: real apps' chains
/// through `preflight run --device` (whose workers run on the engine) and through the
/// engine's own `sqlite3` shell must leave the same database, and the report must describe it.
@Suite("Differential: each device engine against its own shell")
struct EngineDifferentialTests {
    /// A profile for each engine scripts/build-engines makes, and the engine it runs on
    /// (`DeviceEngineTests` checks the pairing through the report).
    static let profiles = [
        ("android-33", "android-3.34.1"), ("android-34", "android-3.40.1"), ("android-35", "android-3.44.0"),
        ("ios-17", "ios-3.40.1"), ("ios-18", "ios-3.46.1"),
    ]

    /// Three of the corpus's chains, each of which every engine runs (K-9 Mail's uses DROP
    /// COLUMN, which 3.34 lacks): AntennaPod's, DuckDuckGo's (its steps that lose rows on
    /// purpose) and FairEmail's (its full-text table).
    static let apps = ["antennapod", "duckduckgo-android", "fairemail"]

    @Test(arguments: profiles)
    func preflightOnTheProfileAgreesWithTheEnginesShell(profile: String, engine: String) throws {
        let shell = try #require(PreflightProcess.engineShell(engine), "the engine \(engine) is not built (scripts/build-engines)")
        for app in Self.apps {
            for start in Differential.Start.allCases {
                let discrepancies = try Differential.discrepancies(
                    Corpus.differentialCase(app), from: start, device: (profile, shell))
                #expect(
                    discrepancies.isEmpty,
                    "\(app) on \(profile) (\(engine)) from \(start.rawValue): \(discrepancies.count) discrepancies:\n- \(discrepancies.joined(separator: "\n- "))")
            }
        }
    }
}
