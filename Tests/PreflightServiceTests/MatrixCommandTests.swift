import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

/// `preflight matrix` (docs/CONTRACT.md §11) with the real binary: every starting version on every
/// device, each cell a real rehearsal that a direct `preflight run` on the same file
/// confirms; bad fixtures as rows; shards merged into the unsharded answer; the time
/// limit. Device-clock profiles only, so that verdicts do not depend on this machine.
@Suite("preflight matrix")
struct MatrixCommandTests {
    static let devices = ["ios-launch", "android-low-end"]
    static let rows = 300

    static func answer(_ result: PreflightProcess.Result) throws -> MatrixAnswer {
        do {
            return try JSONDecoder().decode(MatrixAnswer.self, from: result.stdout)
        } catch {
            Issue.record("no matrix answer (exit \(result.status)): \(error); stderr: \(result.stderr)")
            throw error
        }
    }

    static func notesFixtures(_ directory: TemporaryDirectory, versions: [Int]) throws -> String {
        let fixtures = directory.file("fixtures")
        try FileManager.default.createDirectory(atPath: fixtures, withIntermediateDirectories: true)
        for version in versions {
            try NotesHistory.database(version: version, rows: rows, at: fixtures + "/notes-v\(version).db")
        }
        return fixtures
    }

    static func matrix(_ arguments: [String], environment: [String: String] = [:]) throws -> PreflightProcess.Result {
        try PreflightProcess.run(
            ["matrix", "--plan", "Config/plans/notes.json", "--devices", devices.joined(separator: ","), "--rows", "notes=\(rows)"]
                + arguments, environment: environment)
    }

    /// A Room app whose history starts at 24 and ships even versions (one step spans two):
    /// rows for the versions its steps reach, each file made as Room leaves it at that
    /// version, migrated along Room's path; the empty file is created, not migrated.
    @Test func aRoomPlanIsRehearsedFromTheVersionsItShips() throws {
        let directory = TemporaryDirectory("matrix")
        let plan = try ShelfRoomPlan.write(in: directory)
        let result = try PreflightProcess.run(["matrix", "--plan", plan, "--devices", "android-low-end", "--rows", "book=\(Self.rows)"])
        let answer = try Self.answer(result)
        #expect(answer.rows.map(\.fromVersion) == [0, 24, 26], "\(result.stderr)")
        #expect(answer.allCompleted, "\(answer.cells.map { "\($0.row.fromVersion ?? -1): \($0.cell.failure?.message ?? "")" })")
        let reports = answer.rows.map { $0.cells["android-low-end"]?.report }
        #expect(reports.map { $0?.firstLaunch?.rawValue } == ["created", "migrated", "migrated"])
        #expect(reports.map { $0?.steps.map(\.version) ?? [] } == [[], [26, 28], [28]])
        #expect(reports.map { $0?.final?.tables?["book"] } == [0, Int64(Self.rows), Int64(Self.rows)])
    }

    /// Issue 31's "done when": fixtures at v1 and v3 only give rows v0 to v5, two from the
    /// fixtures and the rest synthesized; every cell's outcome and launches are what a
    /// direct `preflight run` of the same file on the same device gives, and its final row
    /// counts are SQLite's own count(*) of that run's migrated file.
    @Test func everyVersionOnEveryDeviceAgreesWithDirectRuns() throws {
        let directory = TemporaryDirectory("matrix")
        let fixtures = try Self.notesFixtures(directory, versions: [1, 3])
        let result = try Self.matrix(["--fixtures", fixtures])
        let answer = try Self.answer(result)
        #expect(answer.matrixVersion == 1)
        #expect(answer.rows.map(\.fromVersion) == [0, 1, 2, 3, 4, 5])
        #expect(answer.rows.map(\.source) == [.freshInstall, .fixture, .synthesized, .fixture, .synthesized, .synthesized])
        #expect(answer.rows.map(\.file) == [nil, "notes-v1.db", nil, "notes-v3.db", nil, nil])
        #expect(answer.devices == Self.devices)
        #expect(answer.targetVersion == 6)
        #expect(result.status == (answer.allCompleted ? 0 : 1))
        let progress = result.stderr.split(separator: "\n").filter { $0.contains("/12] ") }
        #expect(progress.count == 12, "\(result.stderr)")
        #expect(result.stderr.contains("[12/12] "))
        for row in answer.rows where row.source == .synthesized {
            #expect(row.tables?["notes"] == Int64(Self.rows), "v\(row.fromVersion ?? -1): \(String(describing: row.tables))")
        }
        for (index, row) in answer.rows.enumerated() {
            let version = try #require(row.fromVersion)
            let file: String
            switch row.source {
            case .fixture: file = fixtures + "/" + (row.file ?? "")
            case .freshInstall:
                file = directory.file("fresh.db")
                FileManager.default.createFile(atPath: file, contents: Data())
            case .synthesized:
                // The same plan, version, size and seed make the same file.
                file = directory.file("v\(version).db")
                let made = try PreflightProcess.run(
                    ["synthesize", "--plan", "Config/plans/notes.json", "--version", "\(version)", "--rows", "notes=\(Self.rows)",
                     "--seed", "\(SynthesisRequest.rehearsalSeed)", "--out", file])
                #expect(made.status == 0, "\(made.stderr)")
            }
            for device in Self.devices {
                let cell = try #require(row.cells[device], "row \(index) on \(device)")
                let report = try #require(cell.report)
                #expect(report.input.sha256 == FixtureDatabase.sha256(of: file), "the cell ran on v\(version)'s file")
                #expect(report.options.device == device)
                #expect(report.options.clock == .device)
                let migrated = directory.file("migrated-\(index)-\(device).db")
                let direct = try PreflightProcess.run(["run", "--db", file, "--plan", "Config/plans/notes.json", "--device", device, "--out", migrated])
                let directReport = try direct.decodedReport
                #expect(cell.outcome == directReport.outcome, "from v\(version) on \(device)")
                #expect(cell.launches == directReport.launches.count, "from v\(version) on \(device)")
                #expect(cell.peakBytes == report.space.peakBytes)
                #expect(cell.deviceMs == report.launches.compactMap(\.deviceMs).reduce(0, +))
                for (table, count) in report.final?.tables ?? [:] {
                    #expect(try FixtureDatabase.count(table, at: migrated) == count, "\(table) from v\(version) on \(device)")
                }
            }
        }
        #expect(answer.schemasAgree == true)
        #expect(answer.summary.worstOutcome == answer.cells.map(\.cell.outcome).max { $0.severity < $1.severity })
        for device in Self.devices {
            let watchdog = try #require(answer.cells.first { $0.device == device }?.cell.report?.options.watchdogMs)
            let slowest = answer.cells.filter { $0.device == device }.flatMap { $0.cell.report?.launches ?? [] }.compactMap(\.deviceMs).max()
            #expect(answer.summary.marginMs[device] == watchdog - (slowest ?? 0))
        }
    }

    /// The work as a graph, the longest cells first: on one thread, ios-launch's cells
    /// (a watchdog of 20 s and 5 launches) before android-low-end's (5 s, 3 launches), the
    /// oldest version first, the fresh install last; each version synthesized just before
    /// its first cell, which does not wait for the other versions' files.
    @Test func cellsGoLongestFirstEachAfterItsOwnRowsFile() throws {
        let result = try Self.matrix(["--jobs", "1"])
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("matrix: ") }.map { line in
            line.contains(" synthesized")
                ? String(line.split(separator: " ")[1]) + " synthesized"
                : String(line.split(separator: ":")[1].split(separator: "]")[1].dropFirst())
        }
        var expected: [String] = []
        for version in 1...5 { expected += ["v\(version) synthesized", "from v\(version) on ios-launch"] }
        expected.append("from v0 on ios-launch")
        for version in [1, 2, 3, 4, 5, 0] { expected.append("from v\(version) on android-low-end") }
        #expect(lines == expected, "\(result.stderr)")
    }

    /// Fixtures that cannot start a migration are rows with their own outcome, never an
    /// error: another app's file, a future version, garbage, a WAL without its file, and
    /// two fixtures at one version (each a row of its own).
    @Test func badFixturesAreRowsWithTheirOwnOutcome() throws {
        let directory = TemporaryDirectory("matrix-bad")
        let fixtures = try Self.notesFixtures(directory, versions: [2])
        try NotesHistory.database(version: 2, rows: 5, at: fixtures + "/second-v2.db")
        try FixtureDatabase.create(
            at: fixtures + "/other-app.db", sql: "CREATE TABLE t(x); PRAGMA user_version = 2; PRAGMA application_id = 7;")
        try NotesHistory.database(version: 2, rows: 5, at: fixtures + "/future.db")
        try FixtureDatabase.execute("PRAGMA user_version = 99", at: fixtures + "/future.db")
        try Data("not a database at all".utf8).write(to: URL(fileURLWithPath: fixtures + "/garbage.db"))
        try Data(repeating: 7, count: 64).write(to: URL(fileURLWithPath: fixtures + "/lost.db-wal"))
        let result = try PreflightProcess.run(
            ["matrix", "--plan", "Config/plans/notes.json", "--fixtures", fixtures, "--device", "ios-launch", "--from", "5",
             "--rows", "notes=20"])
        #expect(result.status == 1, "\(result.stderr)")
        let answer = try Self.answer(result)
        func cell(_ file: String) -> MatrixCell? { answer.rows.first { $0.file == file }?.cells["ios-launch"] }
        #expect(cell("other-app.db")?.outcome == .refused)
        #expect(cell("other-app.db")?.failure?.kind.rawValue == "foreign_application_id")
        #expect(cell("future.db")?.outcome == .refused)
        #expect(cell("future.db")?.failure?.kind.rawValue == "future_version")
        #expect(answer.rows.first { $0.file == "future.db" }?.fromVersion == 99)
        #expect(cell("garbage.db")?.outcome == .invalidDatabase)
        #expect(cell("lost.db-wal")?.outcome == .invalidDatabase)
        #expect(cell("lost.db-wal")?.report == nil)
        // Both fixtures at v2 run, each as its own row, below --from as well.
        #expect(cell("notes-v2.db")?.outcome == .completed)
        #expect(cell("second-v2.db")?.outcome == .completed)
        #expect(answer.rows.map(\.fromVersion) == [0, 2, 2, 2, 5, 99, nil, nil])
        let text = try PreflightProcess.run(
            ["matrix", "--plan", "Config/plans/notes.json", "--fixtures", fixtures, "--device", "ios-launch", "--from", "5",
             "--rows", "notes=20", "--format", "junit"])
        let junit = String(decoding: text.stdout, as: UTF8.self)
        #expect(junit.contains("name=\"from v5 on ios-launch\""))
        #expect(junit.contains("name=\"from v2 (second-v2.db) on ios-launch\""))
        #expect(junit.contains("name=\"from an unknown version (garbage.db) on ios-launch\""))
        #expect(junit.contains("<failure type=\"refused\""))
        #expect(junit.contains("tests=\"8\" failures=\"4\""), "\(junit)")
    }

    /// Under GRDB a fixture's version is in `grdb_migrations`, which a worker reads before
    /// any cell runs: the fixture's row stands at its version from the start (in a shard
    /// that does not run its cell too), and no file is synthesized for that version.
    @Test func grdbFixtureRowsTakeTheirVersionFromGrdbMigrations() throws {
        let directory = TemporaryDirectory("matrix-grdb")
        let planPath = directory.file("items.json")
        let plan: [String: Any] = [
            "name": "items", "runner": "grdb",
            "steps": [
                ["version": 1, "id": "createItems", "name": "items", "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"],
                ["version": 2, "id": "addLabel", "name": "label", "sql": "ALTER TABLE items ADD COLUMN label TEXT"],
                ["version": 3, "id": "fillLabel", "name": "fill label", "sql": "UPDATE items SET label = 'item ' || n"],
            ],
        ]
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: planPath))
        let fixtures = directory.file("fixtures")
        try FileManager.default.createDirectory(atPath: fixtures, withIntermediateDirectories: true)
        try FixtureDatabase.create(at: fixtures + "/items-v2.db", sql: """
            CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, label TEXT);
            INSERT INTO items(n) VALUES (1), (2), (3);
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('createItems'), ('addLabel');
            """)
        let arguments = ["matrix", "--plan", planPath, "--fixtures", fixtures, "--device", "ios-launch", "--rows", "items=20"]

        let whole = try Self.answer(try PreflightProcess.run(arguments))
        #expect(whole.rows.map(\.fromVersion) == [0, 1, 2])
        #expect(whole.rows.map(\.source) == [.freshInstall, .synthesized, .fixture])
        let fixtureCell = try #require(whole.rows.last?.cells["ios-launch"])
        #expect(fixtureCell.outcome == .completed, "\(String(describing: fixtureCell.failure))")
        #expect(fixtureCell.report?.launches.first?.fromVersion == 2)

        // The first of three shards runs the fresh install's cell alone; the fixture's row
        // is at v2 all the same.
        let shard = try Self.answer(try PreflightProcess.run(arguments + ["--shard", "1/3"]))
        #expect(shard.rows.map(\.fromVersion) == [0, 1, 2])
        #expect(shard.rows.map(\.file) == [nil, nil, "items-v2.db"])
        #expect(shard.rows.last?.cells.isEmpty == true)
    }

    /// Three shards as three processes, merged: the unsharded answer, cell for cell. A
    /// merge with a shard missing, twice, or from other options fails and says which.
    @Test func threeShardsMergeIntoTheUnshardedAnswer() throws {
        let directory = TemporaryDirectory("matrix-shards")
        let fixtures = try Self.notesFixtures(directory, versions: [2])
        let whole = try Self.answer(try Self.matrix(["--fixtures", fixtures]))
        var paths: [String] = []
        for index in 1...3 {
            let path = directory.file("shard-\(index).json")
            let shard = try Self.matrix(["--fixtures", fixtures, "--shard", "\(index)/3", "--out", path])
            #expect(shard.stdout.isEmpty)
            #expect(FileManager.default.fileExists(atPath: path), "\(shard.stderr)")
            paths.append(path)
        }
        let merged = try PreflightProcess.run(["matrix", "merge"] + paths.reversed())
        #expect(merged.status == (whole.allCompleted ? 0 : 1), "\(merged.stderr)")
        let answer = try Self.answer(merged)
        #expect(answer.shard == nil)
        #expect(answer.identity == whole.identity)
        #expect(answer.rows.count == whole.rows.count)
        for (row, expected) in zip(answer.rows, whole.rows) {
            #expect(row.fromVersion == expected.fromVersion)
            #expect(row.source == expected.source)
            #expect(row.file == expected.file)
            #expect(row.bytes == expected.bytes)
            #expect(row.tables == expected.tables)
            #expect(Set(row.cells.keys) == Set(expected.cells.keys))
            for (device, cell) in row.cells {
                let other = try #require(expected.cells[device])
                #expect(cell.outcome == other.outcome)
                #expect(cell.failure?.kind == other.failure?.kind)
                #expect(cell.launches == other.launches)
                #expect(cell.deviceMs == other.deviceMs)
                #expect(cell.report?.input.sha256 == other.report?.input.sha256)
            }
        }
        #expect(answer.summary == whole.summary)
        #expect(answer.schemasAgree == whole.schemasAgree)

        let missing = try PreflightProcess.run(["matrix", "merge", paths[0], paths[2]])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("shard 2/3 missing"), "\(missing.stderr)")
        let twice = try PreflightProcess.run(["matrix", "merge", paths[0], paths[1], paths[1], paths[2]])
        #expect(twice.stderr.contains("shard 2/3 is given twice"), "\(twice.stderr)")
        let otherSize = directory.file("other.json")
        _ = try PreflightProcess.run(
            ["matrix", "--plan", "Config/plans/notes.json", "--devices", Self.devices.joined(separator: ","), "--rows", "notes=10",
             "--fixtures", fixtures, "--shard", "2/3", "--out", otherSize])
        let mixed = try PreflightProcess.run(["matrix", "merge", paths[0], otherSize, paths[2]])
        #expect(mixed.status == 1)
        #expect(mixed.stderr.contains("shard 2/3 ran with other options"), "\(mixed.stderr)")
    }

    /// `--max-seconds`: an endless step on a device without a watchdog ends its cells
    /// `failed` / `time_limit` at the deadline, the cells not started too, exit 1, and no
    /// worker is left.
    @Test func maxSecondsEndsTheMatrix() throws {
        let directory = TemporaryDirectory("matrix-time")
        let planPath = directory.file("plan.json")
        let plan: [String: Any] = [
            "name": "slow",
            "steps": [
                ["version": 1, "name": "create", "sql": "CREATE TABLE t(x)"],
                ["version": 2, "name": "count forever",
                 "sql": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE (SELECT count(*) FROM t) >= 0) SELECT count(*) FROM c"],
                ["version": 3, "name": "more", "sql": "CREATE TABLE u(x)"],
            ],
        ]
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: planPath))
        let jobs = directory.file("jobs")
        try FileManager.default.createDirectory(atPath: jobs, withIntermediateDirectories: true)
        let result = try PreflightProcess.run(
            ["matrix", "--plan", planPath, "--device", "default", "--watchdog-ms", "off", "--launches", "1", "--jobs", "1",
             "--max-seconds", "2", "--format", "json"],
            environment: ["TMPDIR": jobs])
        #expect(result.status == 1, "\(result.stderr)")
        let answer = try Self.answer(result)
        #expect(answer.rows.map(\.fromVersion) == [0, 1, 2])
        for (_, _, cell) in answer.cells {
            #expect(cell.outcome == .failed)
            #expect(cell.failure?.kind.rawValue == "time_limit")
        }
        #expect(answer.cells.contains { $0.cell.report == nil }, "a cell not started by the deadline")
        #expect(WorkerProcesses.under(jobs).isEmpty, "workers left: \(WorkerProcesses.under(jobs))")
        #expect((try FileManager.default.contentsOfDirectory(atPath: jobs)).isEmpty)
        let help = String(decoding: try PreflightProcess.run(["matrix", "--help"]).stdout, as: UTF8.self)
        #expect(help.contains("--max-seconds S"))
        #expect(help.contains("600, the service's max_job_seconds"))
    }
}
