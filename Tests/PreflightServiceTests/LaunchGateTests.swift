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
    /// Step 4's batches of 100 rows (`planWithSmallRebuildBatches`).
    static let rebuildBatchCount = rows / 100
    static let rebuildLine = "step 4 title required, category required: "
    /// The rebuild's batch lines the test reads before it kills the first launch.
    static let batchesBeforeKill = 20
    /// The shortest batch line ("... 100 rows, 1 batch"): how many lines a pipe can hold.
    static let shortestBatchLine = rebuildLine.utf8.count + "100 rows, 1 batch\n".utf8.count

    @Test func aLaunchKilledMidRebuildLeavesACompletedVersionAndTheNextLaunchFinishes() throws {
        let directory = TemporaryDirectory("gate")
        let database = try NotesHistory.database(version: 3, rows: Self.rows, at: directory.file("notes.db"))
        let plan = try Self.planWithSmallRebuildBatches(at: directory.file("plan.json"))
        let expected = try NotesContent(at: database, Self.v6FromV3)
        let before = try NotesContent(at: database, Self.v3AndV4Columns)

        // The first launch writes its lines into a pipe of one page, which the test stops
        // reading after some batches: the gate then stops at its next line once the page
        // is full. It can run only one read and one page ahead of the kill, however fast it
        // is, so the kill is certain to land in the rebuild.
        let output = try GateOutput()
        let linesAhead = 2 * output.capacity / Self.shortestBatchLine + 1
        try #require(
            Self.batchesBeforeKill + linesAhead < Self.rebuildBatchCount,
            "a pipe of \(output.capacity) bytes lets the gate finish the rebuild unread")
        let first = try TestProcess(try Self.launchGate(), ["--db", database, "--plan", plan], output: output.pipe)
        #expect(
            output.read(until: { Self.rebuildBatches(in: $0).count >= Self.batchesBeforeKill }),
            "no rebuild batches: \(output.lines) \(first.stderr)")
        let killed = first.stop(signal: SIGKILL)
        #expect(killed == 128 + SIGKILL, "not killed (\(String(describing: killed))): \(output.lines) \(first.stderr)")
        #expect(output.readToEnd(), "the pipe did not end with the gate: \(output.lines)")
        let lastBatch = try #require(Self.rebuildBatches(in: output.lines).last)
        #expect(lastBatch.rows < Self.rows, "the rebuild had copied every row before the kill")

        // Consistent, at a completed version (3 before the swap, 4 after it), no row lost.
        // (Opening it rolls back the killed launch's hot journal, as any next open does.)
        #expect(try Self.integrity(database) == "ok")
        #expect([3, 4].contains(try FixtureDatabase.userVersion(at: database)))
        #expect(try NotesContent(at: database, Self.v3AndV4Columns) == before)
        #expect(try FixtureDatabase.count("outbox", at: database) == Int64(Self.rows / 4))

        let second = try TestProcess.run(try Self.launchGate(), ["--db", database, "--plan", plan])
        #expect(second.status == 0, "\(second.stdoutText) \(second.stderr)")
        let lines = second.stdoutText.split(separator: "\n").map(String.init)
        // It resumed from the batches the killed launch committed, not from the start.
        let resumed = try #require(lines.first { $0.contains("resuming step 4") }, "\(lines)")
        let resumedAt = try #require(Self.counts(in: resumed))
        #expect(resumedAt.batches >= lastBatch.batches)
        #expect(Self.rebuildBatches(in: lines).first?.batches == resumedAt.batches + 1)
        #expect(lines.last == "at version 6")

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
        let gate = try TestProcess.run(
            try Self.launchGate(), ["--db", database, "--plan", Repository.path("Config/plans/notes.json"), "--free-bytes", "1000"])
        #expect(gate.status == 1, "\(gate.stdoutText) \(gate.stderr)")
        #expect(gate.stderr.hasPrefix("launch-gate: refused: step 4 "), "\(gate.stderr)")
        #expect(gate.stderr.contains("only 1000 are free"), "\(gate.stderr)")
        #expect(gate.stdoutText == "opened at version 3\n")
        #expect(FixtureDatabase.sha256(of: database) == before)
        #expect(!FileManager.default.fileExists(atPath: DatabaseFiles(database).journal))
    }

    // MARK: - Fixtures and readings

    /// The `launch-gate` that `swift build` made.
    static func launchGate() throws -> String {
        let executable = PreflightProcess.builtProduct("launch-gate")
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw GateError("no launch-gate at \(executable): run `swift build` before `swift test`")
        }
        return executable
    }

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

/// `launch-gate`'s standard output, read line by line as it comes, through a pipe of one
/// page: once the test stops reading, the gate stops at the line that finds the page full.
final class GateOutput {
    let pipe = Pipe()
    /// What the pipe holds unread.
    let capacity: Int
    private(set) var lines: [String] = []
    private var pending = Data()
    private var ended = false
    private var descriptor: Int32 { pipe.fileHandleForReading.fileDescriptor }
    /// `F_SETPIPE_SZ` (F_LINUX_SPECIFIC_BASE + 7, part of Linux's ABI), which Glibc's Swift
    /// module leaves out with the other `_GNU_SOURCE` names.
    private static let setPipeSize: Int32 = 1031

    init() throws {
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        let capacity = fcntl(descriptor, Self.setPipeSize, Int32(getpagesize()))
        guard capacity > 0, fcntl(descriptor, F_SETFL, O_NONBLOCK) == 0 else {
            throw GateError("cannot make the gate's pipe one page: \(String(cString: strerror(errno)))")
        }
        self.capacity = Int(capacity)
    }

    /// Reads until `condition` holds for the lines so far (true), or the output ends
    /// (false, unless it holds then). One page at most per look, so that the test reads no
    /// further ahead than that once `condition` holds.
    func read(until condition: ([String]) -> Bool) -> Bool {
        _ = eventually {
            readPage()
            return ended || condition(lines)
        }
        return condition(lines)
    }

    /// Reads to the end of the output (true), which comes once every process holding the
    /// pipe's other end has ended.
    func readToEnd() -> Bool {
        eventually {
            readPage()
            return ended
        }
    }

    private func readPage() {
        var page = [UInt8](repeating: 0, count: capacity)
        let count = Glibc.read(descriptor, &page, page.count)
        // Nothing yet (EAGAIN) is -1; the end of the output, 0.
        guard count != 0 else {
            ended = true
            return
        }
        guard count > 0 else { return }
        pending.append(contentsOf: page[0..<count])
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
            pending.removeSubrange(pending.startIndex...newline)
        }
    }
}

struct GateError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
