import Foundation
import Testing
import TestSupport
import MigrationCore
@testable import Simulation

/// What `preflight run` says while a long step runs, and how it ends when it is stopped.
@Suite struct ProgressAndStopTests {
    // MARK: - Progress lines, by the events' own clock

    private func event(
        _ kind: MigrationEvent.Kind, version: Int = 4, at: Int, rows: Int64? = nil, phase: String? = nil
    ) -> MigrationEvent {
        var event = MigrationEvent(kind, version: version)
        event.atMs = at
        event.rows = rows
        event.phase = phase
        return event
    }

    @Test func aChunkedStepSaysHowFarItIsAboutOnceASecond() throws {
        var lines = ProgressLine(launch: 2, plan: try NotesHistory.plan(), inputTables: ["notes": 10_000])
        let events = [
            event(.stepStarted, at: 0), event(.phaseStarted, at: 1, phase: "copy"),
            event(.batchCommitted, at: 300, rows: 500, phase: "copy"), event(.batchCommitted, at: 900, rows: 1_500, phase: "copy"),
            event(.batchCommitted, at: 1_200, rows: 2_000, phase: "copy"), event(.batchCommitted, at: 1_900, rows: 3_000, phase: "copy"),
            event(.batchCommitted, at: 2_300, rows: 4_120, phase: "copy"), event(.batchCommitted, at: 2_400, rows: 4_200, phase: "copy"),
        ]
        let said = events.compactMap { lines.describe($0) }
        #expect(said == [
            "launch 2: step 4 rebuild notes copy 2,000/10,000 rows (20%), 1.2 s here",
            "launch 2: step 4 rebuild notes copy 4,120/10,000 rows (41%), 2.3 s here",
        ])
        // After the swap, the purge counts the old table's rows: a full copy and a purge
        // under way do not both read 100%.
        #expect(lines.describe(event(.batchCommitted, at: 3_400, rows: 10_000, phase: "copy")) == "launch 2: step 4 rebuild notes copy 10,000/10,000 rows (100%), 3.4 s here")
        #expect(lines.describe(event(.phaseStarted, at: 3_500, phase: "purge")) == nil)
        #expect(lines.describe(event(.batchCommitted, at: 4_500, rows: 2_000, phase: "purge")) == "launch 2: step 4 rebuild notes purge of the old table 2,000/10,000 rows (20%), 4.5 s here")
        // A new step starts its own clock.
        #expect(lines.describe(event(.stepStarted, version: 6, at: 5_000)) == nil)
        #expect(lines.describe(event(.batchCommitted, version: 6, at: 6_000, rows: 10_000, phase: "backfill")) == "launch 2: step 6 backfill notes 10,000/10,000 rows (100%), 1.0 s here")
    }

    @Test func aPurgeAnEarlierLaunchLeftHasItsOwnClock() throws {
        var lines = ProgressLine(launch: 7, plan: try NotesHistory.plan(), inputTables: ["notes": 10_000])
        #expect(lines.describe(event(.phaseStarted, at: 40, phase: "purge")) == nil)
        #expect(lines.describe(event(.batchCommitted, at: 100, rows: 2_000, phase: "purge")) == nil)
        #expect(lines.describe(event(.batchCommitted, at: 1_240, rows: 6_000, phase: "purge")) == "launch 7: step 4 rebuild notes purge of the old table 6,000/10,000 rows (60%), 1.2 s here")
    }

    @Test func aTableTheInputLacksHasNoTotal() throws {
        var lines = ProgressLine(launch: 1, plan: try NotesHistory.plan(), inputTables: [:])
        _ = lines.describe(event(.stepStarted, at: 0))
        #expect(lines.describe(event(.batchCommitted, at: 1_000, rows: 1_234_567)) == "launch 1: step 4 rebuild notes 1,234,567 rows, 1.0 s here")
        // An sql step has no batches to speak of.
        #expect(lines.describe(event(.batchCommitted, version: 2, at: 9_000, rows: 5)) == nil)
    }

    // MARK: - A real run held at its step, stopped by a real signal

    /// A rebuild in batches of 10.
    static let busyPlan = """
        {"name": "busy", "steps": [
          {"version": 1, "name": "create items", "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, label TEXT NOT NULL)"},
          {"version": 2, "name": "label required and shorter",
           "rebuild": {"table": "items", "columns": "id INTEGER PRIMARY KEY, label TEXT NOT NULL CHECK (length(label) < 40)",
                       "select": "id, substr(label, 1, 39)", "batch_rows": 10}}]}
        """

    @Test(arguments: [SIGINT, SIGTERM])
    func aStoppedRunRemovesItsJobAndItsWorkers(signal: Int32) throws {
        let directory = TemporaryDirectory("stop")
        let temporary = directory.file("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let plan = directory.file("busy.json")
        try Data(Self.busyPlan.utf8).write(to: URL(fileURLWithPath: plan))
        let database = try FixtureDatabase.create(
            at: directory.file("items.db"),
            sql: "CREATE TABLE items(id INTEGER PRIMARY KEY, label TEXT NOT NULL); PRAGMA user_version = 1; \(series(600)) INSERT INTO items SELECT value, 'item number ' || value FROM series;")
        let before = FixtureDatabase.sha256(of: database)

        // Held at its step until stopped: surely running when the signal comes.
        let run = try TestProcess.preflight(
            ["run", "--db", database, "--plan", plan],
            environment: HeldJob.environment(atStep: 2).merging(["TMPDIR": temporary + "/"]) { $1 }, workingDirectory: directory.path)
        let held = try #require(HeldJob.await(under: temporary), "the run never reached its step: \(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).count == 1)
        #expect(!Self.processes(mentioning: held.directory).isEmpty, "no worker is running the job")

        let status = run.stop(signal: signal)
        #expect(status == 128 + signal, "\(run.stderr)")
        #expect(run.stderr.contains("preflight run: stopped by \(signal == SIGINT ? "SIGINT" : "SIGTERM")"))
        #expect(run.stdout.isEmpty, "a report was printed for a stopped run")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "the job directory is left")
        #expect(Self.processes(mentioning: held.directory).isEmpty, "a worker outlived the run")
        #expect(FixtureDatabase.sha256(of: database) == before)
    }

    /// Processes whose command line names `text` (a worker names its job directory).
    static func processes(mentioning text: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { $0.allSatisfy(\.isNumber) }.compactMap { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let line = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return line.contains(text) ? pid : nil
        }
    }
}
