import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

/// The engines scripts/build-engines made hold what `SQLiteBuild` says each platform's build
/// holds: read back from each engine through its own `sqlite3` shell.
@Suite("Device engines as built")
struct EngineBuildTests {
    private static let engines = SQLiteEngine.installed(forExecutable: PreflightProcess.executable)

    /// What `sql` prints on a fresh in-memory database of `engine`, through its own shell.
    private func shell(_ engine: SQLiteEngine, _ sql: String) throws -> String {
        let directory = try #require(engine.directory)
        let result = try TestProcess.run(
            (directory as NSString).appendingPathComponent("sqlite3"), [":memory:", sql], mergingErrors: true)
        return String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func everyEngineTheProfilesNeedIsBuilt() {
        #expect(Self.engines.map(\.name) == ["android-3.34.1", "android-3.40.1", "android-3.44.0", "ios-3.40.1", "ios-3.46.1"])
    }

    @Test(arguments: engines)
    func theEngineHasItsPlatformsOptions(engine: SQLiteEngine) throws {
        #expect(try shell(engine, "SELECT sqlite_version()") == engine.version.description)
        let options = Set(try shell(engine, "PRAGMA compile_options").split(separator: "\n").map(String.init))
        #expect(options.contains("ENABLE_MATH_FUNCTIONS") == engine.build.hasMathFunctions, "\(engine.name): \(options)")
        #expect(options.contains("ENABLE_UPDATE_DELETE_LIMIT") == engine.build.hasUpdateDeleteLimit, "\(engine.name)")
        #expect(options.contains("THREADSAFE=2"))
        let fts5 = try shell(engine, "CREATE VIRTUAL TABLE f USING fts5(body); SELECT 'fts5'")
        let rtree = try shell(engine, "CREATE VIRTUAL TABLE r USING rtree(id, x0, x1); SELECT 'rtree'")
        switch engine.build {
        case .android:
            // AOSP's build: FTS3/4 but no FTS5 or R*Tree; defaults a new connection reads back.
            #expect(fts5.contains("no such module: fts5"), "\(fts5)")
            #expect(rtree.contains("no such module: rtree"), "\(rtree)")
            #expect(try shell(engine, "CREATE VIRTUAL TABLE f USING fts4(body); SELECT 'fts4'") == "fts4")
            #expect(try shell(engine, "PRAGMA legacy_alter_table") == "1")
            #expect(try shell(engine, "PRAGMA secure_delete") == "1")
            #expect(try shell(engine, "PRAGMA journal_size_limit") == "1048576")
            #expect(options.contains("DEFAULT_AUTOVACUUM") && options.contains("TEMP_STORE=3"))
        case .ios:
            #expect(fts5 == "fts5")
            #expect(rtree == "rtree")
            #expect(try shell(engine, "PRAGMA legacy_alter_table") == "0")
            #expect(try shell(engine, "PRAGMA journal_size_limit") == "32768")
            #expect(try shell(engine, "PRAGMA synchronous") == "2")
        case .host:
            Issue.record("\(engine.name) is built as host, which names this machine's own SQLite")
        }
    }
}

extension SQLiteEngine: CustomTestStringConvertible {
    public var testDescription: String { name }
}
