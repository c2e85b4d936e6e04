import Foundation
import Simulation
import Testing
import TestSupport

/// The device decides, through the real `preflight run` (and once over HTTP): its SQLite's
/// version and build, its watchdog by entry point, its speed, and its memory.
@Suite("Devices through preflight run", .serialized)
struct DeviceRunTests {
    /// A table read by a view, at version 1; step 2 is the classic create-copy-drop-rename.
    private static let viewPlan = """
        {"name": "shop", "steps": [
          {"version": 1, "name": "create items",
           "sql": ["CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL)", "CREATE VIEW item_names AS SELECT name FROM items"]},
          {"version": 2, "name": "price, the classic way",
           "sql": ["CREATE TABLE items_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price INTEGER NOT NULL DEFAULT 0)",
                   "INSERT INTO items_new(id, name) SELECT id, name FROM items", "DROP TABLE items",
                   "ALTER TABLE items_new RENAME TO items"]}]}
        """

    private static let dropColumnPlan = """
        {"name": "notes", "steps": [
          {"version": 1, "name": "create notes", "sql": "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT)"},
          {"version": 2, "name": "no more bodies", "sql": "ALTER TABLE notes DROP COLUMN body"}]}
        """

    private func write(_ text: String, to path: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func shopDatabase(in directory: TemporaryDirectory) throws -> String {
        try FixtureDatabase.create(at: directory.file("shop.db"), sql: """
            CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE VIEW item_names AS SELECT name FROM items;
            INSERT INTO items(name) VALUES ('pen'), ('ink'); PRAGMA user_version = 1;
            """)
    }

    private func notesDatabase(in directory: TemporaryDirectory) throws -> String {
        try FixtureDatabase.create(at: directory.file("notes.db"), sql: """
            CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT);
            INSERT INTO notes(title, body) VALUES ('a', 'b'); PRAGMA user_version = 1;
            """)
    }

    /// `preflight run` with its job directory inside `directory`, and the report it printed.
    private func run(
        _ arguments: [String], in directory: TemporaryDirectory, environment: [String: String] = [:]
    ) throws -> (status: Int32, report: Report) {
        let result = try PreflightProcess.run(
            ["run"] + arguments, environment: environment.merging(["TMPDIR": directory.path]) { $1 })
        return (result.status, try result.decodedReport)
    }

    @Test func aRenameOverATableAViewReadsWorksOnAndroid30AndFailsOnIOS17() throws {
        let directory = TemporaryDirectory("device-view")
        let database = try shopDatabase(in: directory)
        let plan = try write(Self.viewPlan, to: directory.file("shop.json"))

        let android = try run(["--db", database, "--plan", plan, "--device", "android-30"], in: directory)
        #expect(android.status == 0)
        #expect(android.report.outcome == .completed, "\(String(describing: android.report.failure))")
        #expect(android.report.final?.schemaMatchesFreshInstall == true)

        let iPhone = try run(["--db", database, "--plan", plan, "--device", "ios-17"], in: directory)
        #expect(iPhone.status == 1)
        #expect(iPhone.report.outcome == .failed)
        let failure = try #require(iPhone.report.failure)
        #expect(failure.kind.rawValue == "sql_error")
        #expect(failure.message.contains("error in view item_names: no such table: main.items"), "\(failure.message)")
        #expect(failure.statement == "ALTER TABLE items_new RENAME TO items")
        #expect(iPhone.report.final?.userVersion == 1)
    }

    @Test func dropColumnFailsOnTheSQLiteOfAndroid30AndRunsOnAndroid35() throws {
        let directory = TemporaryDirectory("device-drop")
        let database = try notesDatabase(in: directory)
        let plan = try write(Self.dropColumnPlan, to: directory.file("notes.json"))

        let old = try run(["--db", database, "--plan", plan, "--device", "android-30"], in: directory)
        #expect(old.status == 1)
        #expect(old.report.outcome == .failed)
        let failure = try #require(old.report.failure)
        #expect(failure.kind.rawValue == "sqlite_too_old")
        #expect(failure.step == 2)
        #expect(failure.statement == "ALTER TABLE notes DROP COLUMN body")
        #expect(failure.sqliteCode == 1)
        #expect(
            failure.message.contains("ALTER TABLE DROP COLUMN") && failure.message.contains("3.35.0")
                && failure.message.contains("3.28"), "\(failure.message)")
        #expect(old.report.steps.map(\.status) == [.failed])
        #expect(old.report.options.sqliteCheck == .fail)
        #expect(old.report.final?.userVersion == 1)

        let current = try run(["--db", database, "--plan", plan, "--device", "android-35"], in: directory)
        #expect(current.status == 0)
        #expect(current.report.outcome == .completed)

        // Run anyway, on android-30's engine (3.34.1), which has no DROP COLUMN either.
        let warned = try run(["--db", database, "--plan", plan, "--device", "android-30", "--sqlite-check", "warn"], in: directory)
        #expect(warned.report.outcome == .failed)
        #expect(warned.report.failure?.message.contains("near \"DROP\": syntax error") == true, "\(String(describing: warned.report.failure))")
        #expect(warned.report.options.sqliteCheck == .warn)
        #expect(warned.report.warnings.map(\.code) == ["sqlite_too_old"])
        #expect(warned.report.warnings.first?.step == 2)
        #expect(warned.report.warnings.first?.message.contains("android-30") == true)
    }

    /// On SQLite 3.22 (nothing newer passes there): `over` as a column and `DROP COLUMN`
    /// in a string are what they are, not features.
    @Test func aColumnNamedOverAndAStringSayingDropColumnAreNoFeatures() throws {
        let directory = TemporaryDirectory("device-names")
        let database = try FixtureDatabase.create(at: directory.file("log.db"), sql: "PRAGMA user_version = 0;")
        let plan = try write("""
            {"name": "log", "steps": [
              {"version": 1, "name": "log", "sql": ["CREATE TABLE log(id INTEGER PRIMARY KEY, over INTEGER, note TEXT)",
                "INSERT INTO log(over, note) VALUES (1, 'ALTER TABLE log DROP COLUMN note; then RETURNING')",
                "CREATE VIEW overs AS SELECT over, note FROM log WHERE over > 0"]}]}
            """, to: directory.file("log.json"))
        let result = try run(["--db", database, "--plan", plan, "--device", "android-28"], in: directory)
        #expect(result.status == 0)
        #expect(result.report.outcome == .completed, "\(String(describing: result.report.failure))")
        #expect(result.report.warnings.isEmpty)
    }

    @Test func theEntryPointSetsTheWatchdogOfTheRun() throws {
        let directory = TemporaryDirectory("device-entry")
        let database = try notesDatabase(in: directory)
        let plan = try write(Self.dropColumnPlan, to: directory.file("notes.json"))
        for (device, watchdogMs) in [("android-35", 15_000), ("android-anr", 5_000), ("ios-18", 20_000), ("default", nil)] {
            let result = try run(["--db", database, "--plan", plan, "--device", device, "--target", "1"], in: directory)
            #expect(result.report.options.watchdogMs == watchdogMs, "\(device)")
        }
        let explicit = try run(
            ["--db", database, "--plan", plan, "--device", "android-35", "--watchdog-ms", "777", "--target", "1"], in: directory)
        #expect(explicit.report.options.watchdogMs == 777)
    }

    // MARK: - Time and memory

    /// A table of `rows` rows of about 200 bytes with no index, at version 1 of `indexPlan`.
    private func eventsDatabase(rows: Int, in directory: TemporaryDirectory) throws -> String {
        try FixtureDatabase.create(at: directory.file("events.db"), sql: """
            CREATE TABLE events(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
            \(series(rows)) INSERT INTO events(body) SELECT printf('%08d-', (value * 7919) % \(rows)) || hex(randomblob(90)) FROM series;
            PRAGMA user_version = 1;
            """)
    }

    private func indexPlan(in directory: TemporaryDirectory) throws -> String {
        try write("""
            {"name": "events", "steps": [
              {"version": 1, "name": "create events", "sql": "CREATE TABLE events(id INTEGER PRIMARY KEY, body TEXT NOT NULL)"},
              {"version": 2, "name": "index bodies", "sql": "CREATE INDEX idx_events_body ON events(body)"},
              {"version": 3, "name": "seen flag", "sql": "ALTER TABLE events ADD COLUMN seen INTEGER NOT NULL DEFAULT 0"}]}
            """, to: directory.file("events.json"))
    }

    /// Writes device profiles (name to the JSON after the name) into a devices directory.
    private func devices(_ profiles: [String: String], in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("devices")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, rest) in profiles {
            _ = try write(#"{"name": "\#(name)", \#(rest)}"#, to: path + "/\(name).json")
        }
        return path
    }

    /// On the wall clock the watchdog counts the device's time: `watchdog_ms` over
    /// `time_scale` of this machine's. A launch held at its step (it never ends of itself)
    /// under a 100 s watchdog on a device 100 times slower is killed by the watchdog (after
    /// a second here), long before the job's own time limit would end it; the same
    /// watchdog at `time_scale` 1 leaves an unheld run to complete.
    @Test func onTheWallClockTheWatchdogKillsAtWatchdogOverTimeScale() throws {
        let directory = TemporaryDirectory("device-time")
        let database = try eventsDatabase(rows: 100, in: directory)
        let plan = try indexPlan(in: directory)
        let watchdogMs = 100_000
        let devicesDirectory = try devices([
            "same": #""watchdog_ms": \#(watchdogMs), "launches": 2"#,
            "slower": #""watchdog_ms": \#(watchdogMs), "time_scale": 100, "launches": 2"#,
        ], in: directory)
        let arguments = [
            "--db", database, "--plan", plan, "--target", "2", "--verify", "off", "--devices-dir", devicesDirectory,
            "--max-seconds", "90",
        ]

        let same = try run(arguments + ["--device", "same"], in: directory)
        #expect(same.report.outcome == .completed)
        let slower = try run(arguments + ["--device", "slower"], in: directory, environment: HeldJob.environment(atStep: 2))
        #expect(slower.report.outcome == .crashLoop, "\(slower.report.failure?.message ?? "")")
        #expect(slower.report.launches.first?.ended == .killed)
        #expect(slower.report.options.watchdogMs == watchdogMs)
        #expect(slower.report.options.timeScale == 100)
    }

    /// With temp files in memory a big CREATE INDEX sorts in RAM: no temp bytes on disk,
    /// and a peak memory that a device's `memory_limit_bytes` turns into a kill.
    @Test func aSortInMemoryPastTheMemoryLimitIsKilledAsTheLowMemoryKillerWould() throws {
        let directory = TemporaryDirectory("device-memory")
        let database = try eventsDatabase(rows: 200_000, in: directory)
        let plan = try indexPlan(in: directory)
        let memory = #""connection": {"temp_store": "MEMORY"}"#
        let profiles = try devices(["disk": #""launches": 1"#, "ram": memory], in: directory)
        let arguments = ["--db", database, "--plan", plan, "--verify", "off", "--devices-dir", profiles]

        let onDisk = try run(arguments + ["--device", "disk"], in: directory).report
        let inRAM = try run(arguments + ["--device", "ram"], in: directory).report
        for report in [onDisk, inRAM] {
            #expect(report.outcome == .completed, "\(String(describing: report.failure))")
            #expect(report.steps.count == 2)
            for step in report.steps { #expect((step.peakMemoryBytes ?? 0) > 0, "step \(step.version)") }
        }
        #expect((onDisk.space.byClass?["temp"] ?? 0) > 1_000_000)
        #expect(inRAM.space.byClass?["temp"] == 0)
        let sortOnDisk = try #require(onDisk.steps.first?.peakMemoryBytes)
        let sortInRAM = try #require(inRAM.steps.first?.peakMemoryBytes)
        #expect(sortInRAM > sortOnDisk + 20_000_000, "\(sortInRAM) vs \(sortOnDisk)")

        // Half-way between the two peaks: the sort on disk would fit, the one in RAM does not.
        let limit = (sortOnDisk + sortInRAM) / 2
        let tightProfiles = try devices(["tight": #""memory_limit_bytes": \#(limit), \#(memory)"#], in: directory)
        let killed = try run(
            ["--db", database, "--plan", plan, "--verify", "off", "--devices-dir", tightProfiles, "--device", "tight"], in: directory)
        #expect(killed.status == 1)
        #expect(killed.report.outcome == .failed)
        let failure = try #require(killed.report.failure)
        #expect(failure.kind.rawValue == "memory")
        #expect(failure.step == 2)
        #expect(failure.message.contains("memory_limit_bytes"), "\(failure.message)")
        #expect(killed.report.launches.map(\.ended) == [.killed])
        #expect(killed.report.steps.map(\.status) == [.failed, .skipped])
        #expect((killed.report.steps.first?.peakMemoryBytes ?? 0) > 0)
        #expect(killed.report.final?.userVersion == 1)
    }

    /// Over HTTP, as a pipeline asks: the same upload answers differently by device.
    @Test func overHTTPTheDeviceParameterChoosesTheProfile() throws {
        let devicesDirectory = Repository.path("Config/devices")
        var profiles: [String: String] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: devicesDirectory) where file.hasSuffix(".json") {
            profiles[String(file.dropLast(5))] = try String(contentsOfFile: devicesDirectory + "/" + file, encoding: .utf8)
        }
        let server = try ServerProcess(plans: ["shop": Self.viewPlan], devices: profiles)
        let directory = TemporaryDirectory("device-http")
        let database = try shopDatabase(in: directory)
        let android = server.curl("/v1/migrations?plan=shop&device=android-30", ["--data-binary", "@" + database])
        #expect(android.status == 200)
        #expect(android.headers["preflight-outcome"] == "completed")
        #expect(try android.report.options.device == "android-30")
        let iPhone = server.curl("/v1/migrations?plan=shop&device=ios-17", ["--data-binary", "@" + database])
        #expect(iPhone.headers["preflight-outcome"] == "failed")
        #expect(try iPhone.report.failure?.message.contains("error in view item_names") == true)
        let listed = server.get("/v1/devices").json["devices"] as? [[String: Any]] ?? []
        let android30 = listed.first { $0["name"] as? String == "android-30" }
        #expect(android30?["sqlite_version"] as? String == "3.28")
        #expect(android30?["entry_point"] as? String == "application_start")
        #expect((android30?["connection"] as? [String: Any])?["legacy_alter_table"] as? Bool == true)
    }
}
