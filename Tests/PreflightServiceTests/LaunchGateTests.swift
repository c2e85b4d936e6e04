import Foundation
import MigrationCore
import Testing
import TestSupport

/// Examples/LaunchGate, an app's launch gate on MigrationCore alone, run as a phone runs it:
/// the real binary on a real file, SIGKILLed in the middle of the notes plan's rebuild and
/// started again.
@Suite("launch-gate")
struct LaunchGateTests {
    static let rows = 20_000
    static let rebuildLine = "step 4 title required, category required: "

    @Test func aLaunchKilledMidRebuildLeavesACompletedVersionAndTheNextLaunchFinishes() throws {
        let directory = TemporaryDirectory("gate")
        let database = try NotesHistory.database(version: 3, rows: Self.rows, at: directory.file("notes.db"))
        let plan = try Self.planWithSmallRebuildBatches(at: directory.file("plan.json"))
        let expected = try NotesContent(at: database, Self.v6FromV3)
        let before = try NotesContent(at: database, Self.v3AndV4Columns)

        let first = try GateProcess(["--db", database, "--plan", plan], in: directory)
        #expect(first.read(until: { Self.rebuildBatches(in: $0).count >= 20 }), "no rebuild batches: \(first.lines)")
        kill(first.pid, SIGKILL)
        let killed = first.waitForExit()
        #expect(killed.reason == .uncaughtSignal && killed.status == SIGKILL, "not killed: \(killed), \(first.lines)")
        let lastBatch = try #require(Self.rebuildBatches(in: first.lines).last)
        #expect(lastBatch.rows < Self.rows, "the rebuild had copied every row before the kill")

        // Consistent, at a completed version (3 before the swap, 4 after it), no row lost.
        // (Opening it rolls back the killed launch's hot journal, as any next open does.)
        #expect(try Self.integrity(database) == "ok")
        #expect([3, 4].contains(try FixtureDatabase.userVersion(at: database)))
        #expect(try NotesContent(at: database, Self.v3AndV4Columns) == before)
        #expect(try FixtureDatabase.count("outbox", at: database) == Int64(Self.rows / 4))

        let second = try GateProcess(["--db", database, "--plan", plan], in: directory)
        #expect(second.readToEnd(), "launch-gate did not finish: \(second.lines)")
        let finished = second.waitForExit()
        #expect(finished.reason == .exit && finished.status == 0, "\(second.lines) \(second.stderr)")
        // It resumed from the batches the killed launch committed, not from the start.
        let resumed = try #require(second.lines.first { $0.contains("resuming step 4") }, "\(second.lines)")
        let resumedAt = try #require(Self.counts(in: resumed))
        #expect(resumedAt.batches >= lastBatch.batches)
        #expect(Self.rebuildBatches(in: second.lines).first?.batches == resumedAt.batches + 1)
        #expect(second.lines.last == "at version 6")

        #expect(try FixtureDatabase.userVersion(at: database) == 6)
        #expect(try Self.integrity(database) == "ok")
        #expect(try Connection(path: database).rows("PRAGMA foreign_key_check").isEmpty)
        #expect(try NotesContent(at: database, Self.v6Columns) == expected)
        #expect(try FixtureDatabase.count("outbox", at: database) == Int64(Self.rows / 4))
        // Nothing of the rebuild's own left behind: the objects of a fresh version-6 install.
        let fresh = try NotesHistory.database(version: 6, rows: 0, at: directory.file("fresh.db"))
        #expect(try Self.schemaObjects(database) == Self.schemaObjects(fresh))
    }

    @Test func tooLittleFreeSpaceRefusesTheRebuildAndLeavesTheFileUntouched() throws {
        let directory = TemporaryDirectory("gate")
        let database = try NotesHistory.database(version: 3, rows: 2_000, at: directory.file("notes.db"))
        let before = FixtureDatabase.sha256(of: database)
        let gate = try GateProcess(
            ["--db", database, "--plan", Repository.path("Config/plans/notes.json"), "--free-bytes", "1000"], in: directory)
        #expect(gate.readToEnd(), "launch-gate did not finish: \(gate.lines)")
        let ended = gate.waitForExit()
        #expect(ended.reason == .exit && ended.status == 1, "\(gate.lines) \(gate.stderr)")
        #expect(gate.stderr.hasPrefix("launch-gate: refused: step 4 "), "\(gate.stderr)")
        #expect(gate.stderr.contains("only 1000 are free"), "\(gate.stderr)")
        #expect(gate.lines == ["opened at version 3"])
        #expect(FixtureDatabase.sha256(of: database) == before)
        #expect(!FileManager.default.fileExists(atPath: DatabaseFiles(database).journal))
    }

    // MARK: - Fixtures and readings

    /// The repository's notes plan with its rebuild (step 4) in batches of 100 rows: 200
    /// copy batches of the fixture's 20,000 notes, each its own transaction.
    static func planWithSmallRebuildBatches(at path: String) throws -> String {
        let original = try Data(contentsOf: URL(fileURLWithPath: Repository.path("Config/plans/notes.json")))
        var plan = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
        var steps = try #require(plan["steps"] as? [[String: Any]])
        var rebuild = try #require(steps[3]["rebuild"] as? [String: Any])
        rebuild["batch_rows"] = 100
        steps[3]["rebuild"] = rebuild
        plan["steps"] = steps
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A version-3 row as the plan should leave it at version 6, computed by plain SQLite
    /// from the version-3 columns: step 4's select, step 6's backfill.
    static let v6FromV3 = [
        "id", "coalesce(title, '')", "body", "'uncategorized'", "sync_status", "updated_at", "lower(coalesce(title, ''))",
    ]
    static let v6Columns = ["id", "title", "body", "category", "sync_status", "updated_at", "search_key"]
    /// What versions 3 and 4 hold alike (version 4 made the missing titles '').
    static let v3AndV4Columns = ["id", "coalesce(title, '')", "body", "sync_status", "updated_at"]

    /// Step 4's batch lines: the step's rows and batches so far.
    static func rebuildBatches(in lines: [String]) -> [(rows: Int, batches: Int)] {
        lines.filter { $0.hasPrefix(rebuildLine) }.compactMap(counts(in:))
    }

    /// "..., 6,000 rows, 3 batches" as numbers.
    static func counts(in line: String) -> (rows: Int, batches: Int)? {
        guard let match = line.firstMatch(of: /([0-9,]+) rows, ([0-9]+) batch(es)?$/),
            let rows = Int(match.1.filter { $0 != "," }), let batches = Int(match.2)
        else { return nil }
        return (rows, batches)
    }

    static func integrity(_ path: String) throws -> String? {
        try Connection(path: path).scalar("PRAGMA integrity_check").textValue
    }

    static func schemaObjects(_ path: String) throws -> [[SQLiteValue]] {
        try Connection(path: path).rows("SELECT type, name, tbl_name FROM sqlite_schema ORDER BY name")
    }
}

/// The notes table's rows as `columns` (SQL expressions) give them, in key order: their
/// count and a digest of every value, typed (`quote`), so that NULL and '' differ.
struct NotesContent: Equatable {
    let count: Int
    let sha256: String

    init(at path: String, _ columns: [String]) throws {
        let line = columns.map { "quote(\($0))" }.joined(separator: " || '|' || ")
        let rows = try Connection(path: path).rows("SELECT \(line) FROM notes ORDER BY id")
        count = rows.count
        sha256 = SHA256.hex(Array(rows.map { $0[0].textValue ?? "" }.joined(separator: "\n").utf8))
    }
}

/// `launch-gate` running, its output read line by line as it comes.
final class GateProcess {
    private let process = Process()
    private let output = Pipe()
    private let stderrPath: String
    private var pending = Data()
    private(set) var lines: [String] = []
    private var outputEnded = false

    var pid: Int32 { process.processIdentifier }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    init(_ arguments: [String], in directory: TemporaryDirectory) throws {
        let executable = PreflightProcess.builtProduct("launch-gate")
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw GateError("no launch-gate at \(executable): run `swift build` before `swift test`")
        }
        stderrPath = directory.file("gate-stderr-\(UUID().uuidString.prefix(8))")
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
    }

    /// Reads lines until `condition` holds for the lines so far (true), or the output
    /// ends or `polls` waits of 20 ms pass without it (false): a hung gate fails the test,
    /// it does not hang it.
    @discardableResult
    func read(until condition: ([String]) -> Bool, polls: Int = 3_000) -> Bool {
        let descriptor = output.fileHandleForReading.fileDescriptor
        var chunk = [UInt8](repeating: 0, count: 65_536)
        for _ in 0..<polls {
            if condition(lines) || outputEnded { break }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 20) >= 0 else { break }
            guard ready.revents != 0 else { continue }
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            guard count > 0 else {
                outputEnded = true
                break
            }
            pending.append(contentsOf: chunk[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
        return condition(lines)
    }

    /// Reads the whole output; false when it had not ended after `polls` waits of 20 ms.
    func readToEnd(polls: Int = 3_000) -> Bool {
        read(until: { _ in false }, polls: polls)
        return outputEnded
    }

    /// Waits for the process to end and says how. One whose output has not ended is
    /// killed first, so that a gate that hangs fails the test instead of hanging it.
    func waitForExit() -> (reason: Process.TerminationReason, status: Int32) {
        if !outputEnded && process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (process.terminationReason, process.terminationStatus)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

struct GateError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
