import Foundation
import Glibc
import MigrationCore
import Simulation
import Testing
import TestSupport

/// The synthesis cache (docs/synthesis.md, "The synthesis cache"): its key changes with
/// every input that shapes a synthesized file and with nothing else; it evicts the least
/// recently used entries at its limit; two processes wanting one file make it once; a store
/// killed half done and a damaged entry are never used; a second matrix finds its files.
@Suite("synthesis cache")
struct SynthesisCacheTests {
    static let plan = """
        {"name": "keyed", "runner": "sqliteopenhelper", "steps": [
          {"version": 1, "name": "notes", "sql": "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL)"},
          {"version": 2, "name": "tags", "sql": "CREATE TABLE tags(id INTEGER PRIMARY KEY, name TEXT UNIQUE)"},
          {"version": 3, "name": "index", "sql": "CREATE INDEX notes_body ON notes(body)"}
        ]}
        """

    static func key(
        _ text: String = plan, version: Int = 2, rows: [String: Int] = ["notes": 100], seed: UInt64 = 1, sample: String? = nil,
        engine: String = SynthesisKey.linkedEngine, format: Int = SynthesisKey.formatVersion
    ) throws -> SynthesisKey {
        SynthesisKey(
            plan: try PlanDecoder.decode(Array(text.utf8)), version: version, rows: rows, seed: seed, sampleSHA256: sample,
            engine: engine, format: format)
    }

    @Test func eachInputOfTheKeyChangesIt() throws {
        let base = try Self.key()
        let changed: [(String, SynthesisKey)] = [
            ("a step up to the version", try Self.key(Self.plan.replacingOccurrences(of: "body TEXT NOT NULL", with: "body TEXT"))),
            ("the runner", try Self.key(Self.plan.replacingOccurrences(of: "sqliteopenhelper", with: "room"))),
            ("the version", try Self.key(version: 1)),
            ("a table's rows", try Self.key(rows: ["notes": 101])),
            ("another table's rows", try Self.key(rows: ["notes": 100, "tags": 5])),
            ("the seed", try Self.key(seed: 2)),
            ("the sample", try Self.key(sample: String(repeating: "a", count: 64))),
            ("another sample", try Self.key(sample: String(repeating: "b", count: 64))),
            ("the engine", try Self.key(engine: SynthesisKey.linkedEngine + " SQLITE_DEFAULT_PAGE_SIZE=8192")),
            ("the synthesizer's format", try Self.key(format: SynthesisKey.formatVersion + 1)),
        ]
        for (input, key) in changed {
            #expect(key != base, "\(input) left the key as it was")
        }
        #expect(Set(changed.map(\.1.hex)).count == changed.count, "two inputs gave one key")
        // What does not shape the file leaves it: a step after the version, the plan's name.
        #expect(try Self.key(Self.plan.replacingOccurrences(of: "ON notes(body)", with: "ON notes(id, body)")) == base)
        #expect(try Self.key(Self.plan.replacingOccurrences(of: "\"keyed\"", with: "\"renamed\"")) == base)
        #expect(try Self.key(rows: ["notes": 100]) == base)
        // The engine is the linked SQLite with its compile options.
        #expect(SynthesisKey.linkedEngine.contains("THREADSAFE"))
    }

    /// A made-up file of `bytes` bytes stands for a synthesis: what is under test is the
    /// cache's bookkeeping, which only copies files.
    private func provide(
        _ cache: SynthesisCache, _ name: String, bytes: Int, at path: String, made: inout [String]
    ) throws -> SynthesisCache.Provided {
        var calls: [String] = []
        let provided = try cache.provide(
            try Self.key(rows: [name: bytes]), at: path, placement: .copy, deadline: .now + .seconds(60),
            cancellation: JobCancellation(), note: { _ in }
        ) { () throws(SynthesisError) -> SynthesisSummary in
            calls.append(name)
            FileManager.default.createFile(atPath: path, contents: Data(repeating: UInt8(name.utf8.first ?? 0), count: bytes))
            return SynthesisSummary(tables: [name: 1], bytes: Int64(bytes), journalMode: "delete")
        }
        made += calls
        return provided
    }

    /// Sets an entry's last use (its summary's modification time) `secondsAgo` in the past.
    private func used(_ cache: SynthesisCache, _ name: String, bytes: Int, secondsAgo: Int) throws {
        var times = [timespec](repeating: timespec(tv_sec: time(nil) - secondsAgo, tv_nsec: 0), count: 2)
        #expect(utimensat(AT_FDCWD, cache.directory + "/" + (try Self.key(rows: [name: bytes])).hex + "/summary.json", &times, 0) == 0)
    }

    @Test func evictsTheLeastRecentlyUsedAtItsLimit() throws {
        let directory = TemporaryDirectory("synthesis-cache")
        let cache = SynthesisCache(directory: directory.file("cache"), maxBytes: 2_500)
        let out = directory.file("out.db")
        var made: [String] = []
        _ = try provide(cache, "a", bytes: 1_000, at: out, made: &made)
        _ = try provide(cache, "b", bytes: 1_000, at: out, made: &made)
        try used(cache, "a", bytes: 1_000, secondsAgo: 100)
        try used(cache, "b", bytes: 1_000, secondsAgo: 50)
        // a is used again: now b is the least recently used.
        #expect(try provide(cache, "a", bytes: 1_000, at: out, made: &made).cached)
        #expect(FileManager.default.contents(atPath: out) == Data(repeating: UInt8(ascii: "a"), count: 1_000))
        _ = try provide(cache, "c", bytes: 1_000, at: out, made: &made)
        #expect(made == ["a", "b", "c"])
        #expect(try provide(cache, "a", bytes: 1_000, at: out, made: &made).cached)
        #expect(try provide(cache, "c", bytes: 1_000, at: out, made: &made).cached)
        #expect(try !provide(cache, "b", bytes: 1_000, at: out, made: &made).cached, "b should have been evicted")
        #expect(made == ["a", "b", "c", "b"])
        // A file larger than the whole cache is used but not kept, and evicts nothing.
        #expect(try !provide(cache, "d", bytes: 3_000, at: out, made: &made).cached)
        #expect(try !provide(cache, "d", bytes: 3_000, at: out, made: &made).cached)
        let left = try FileManager.default.contentsOfDirectory(atPath: cache.directory)
        #expect(left.filter { !$0.hasSuffix(".lock") }.count == 2)
        #expect(left.filter { $0.hasSuffix(".lock") }.count == 2, "an evicted or unkept key left its lock file: \(left)")
    }

    // MARK: - Real processes

    private func synthesize(_ directory: TemporaryDirectory, out: String, cache: String, environment: [String: String] = [:]) throws
        -> TestProcess
    {
        try TestProcess.preflight(
            [
                "synthesize", "--plan", "Config/plans/notes.json", "--version", "2", "--rows", "notes=3000", "--out", out,
                "--synthesis-cache", cache, "--synthesis-cache-bytes", "100000000",
            ],
            environment: environment)
    }

    @Test func twoProcessesWantingOneFileMakeItOnce() throws {
        let directory = TemporaryDirectory("synthesis-cache")
        let cache = directory.file("cache")
        let (first, second) = (directory.file("first"), directory.file("second"))
        for place in [first, second] { try FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true) }
        let hold = [Worker.faultVariable: "hold_synthesis=on"]
        let making = try synthesize(directory, out: directory.file("first.db"), cache: cache, environment: hold.merging(["TMPDIR": first]) { $1 })
        let held = try #require(HeldJob.await(under: first), "the first synthesis never held; stderr: \(making.stderr)")
        let wanting = try synthesize(directory, out: directory.file("second.db"), cache: cache, environment: hold.merging(["TMPDIR": second]) { $1 })
        #expect(eventually { wanting.stderr.contains("waiting for another job that makes the same file") }, "stderr: \(wanting.stderr)")
        #expect(HeldJob.held(under: second).isEmpty, "the second process started a synthesis of its own")
        try held.release()
        let made = try making.wait()
        let found = try wanting.wait()
        #expect(made.status == 0 && found.status == 0, "stderr: \(made.stderr) / \(found.stderr)")
        #expect(!made.stderr.contains("from the synthesis cache"))
        #expect(found.stderr.contains("from the synthesis cache"), "stderr: \(found.stderr)")
        #expect(FileManager.default.contents(atPath: directory.file("first.db")) == FileManager.default.contents(atPath: directory.file("second.db")))
    }

    @Test func aStoreKilledHalfDoneAndADamagedEntryAreNeverUsed() throws {
        let directory = TemporaryDirectory("synthesis-cache")
        let cache = directory.file("cache")
        let killed = try synthesize(
            directory, out: directory.file("killed.db"), cache: cache, environment: [Worker.faultVariable: "hold_cache_store=on"])
        let store = try #require(HeldJob.await(under: cache), "the store never held; stderr: \(killed.stderr)")
        #expect(FileManager.default.fileExists(atPath: store.directory + "/database"))
        kill(killed.pid, SIGKILL)
        _ = try? killed.wait()

        let after = try synthesize(directory, out: directory.file("after.db"), cache: cache).wait()
        #expect(after.status == 0, "stderr: \(after.stderr)")
        #expect(!after.stderr.contains("from the synthesis cache"), "a half-stored entry was used")
        #expect(!FileManager.default.fileExists(atPath: store.directory), "the killed store's leftovers stay")
        let database = try Connection(path: directory.file("after.db"), readOnly: true)
        #expect(try database.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(try database.integer("SELECT count(*) FROM notes") == 3000)

        let again = try synthesize(directory, out: directory.file("again.db"), cache: cache).wait()
        #expect(again.stderr.contains("from the synthesis cache"), "stderr: \(again.stderr)")
        #expect(FileManager.default.contents(atPath: directory.file("again.db")) == FileManager.default.contents(atPath: directory.file("after.db")))

        // One byte of the kept file changed: its hash no longer matches, and it is made anew.
        let entry = try #require(try FileManager.default.contentsOfDirectory(atPath: cache).first { $0.count == 64 })
        let handle = try #require(FileHandle(forUpdatingAtPath: cache + "/" + entry + "/database"))
        try handle.seek(toOffset: 5_000)
        try handle.write(contentsOf: Data([0xFF]))
        try handle.close()
        let repaired = try synthesize(directory, out: directory.file("repaired.db"), cache: cache).wait()
        #expect(repaired.status == 0 && !repaired.stderr.contains("from the synthesis cache"), "stderr: \(repaired.stderr)")
        #expect(FileManager.default.contents(atPath: directory.file("repaired.db")) == FileManager.default.contents(atPath: directory.file("after.db")))
    }

    @Test func aSecondMatrixTakesEverySynthesizedFileFromTheCache() throws {
        let directory = TemporaryDirectory("synthesis-cache")
        let arguments = [
            "matrix", "--plan", "Config/plans/notes.json", "--rows", "notes=500", "--synthesis-cache", directory.file("cache"),
            "--synthesis-cache-bytes", "100000000",
        ]
        let first = try PreflightProcess.run(arguments)
        let second = try PreflightProcess.run(arguments)
        let answers = try [first, second].map { try JSONDecoder().decode(MatrixAnswer.self, from: $0.stdout) }
        let synthesized = answers.map { $0.rows.filter { $0.source == .synthesized } }
        #expect(synthesized[0].count == 5 && synthesized[1].count == 5)
        #expect(synthesized[0].allSatisfy { $0.cached == false })
        #expect(synthesized[1].allSatisfy { $0.cached == true }, "stderr: \(second.stderr)")
        #expect(answers[0].rows.map(\.cached) == answers[0].rows.map { $0.source == .synthesized ? false : nil })
        #expect(synthesized[0].map(\.bytes) == synthesized[1].map(\.bytes))
        #expect(answers[0].cells.map(\.cell.outcome) == answers[1].cells.map(\.cell.outcome))
        #expect(second.stderr.contains("v1 from the synthesis cache"))
    }
}
