import Foundation
import Glibc
import Testing
import TestSupport
import Simulation
@testable import PreflightService

/// The device clock: launches timed and killed on the device's modelled time, which moves
/// with the work done, so that a verdict is the same on any machine under any load.
@Suite("Device clock", .serialized)
struct DeviceClockTests {
    private func database(in directory: TemporaryDirectory) throws -> String {
        try ItemsFixture.database(at: directory.file("items.db"), rows: 20_000, payloadWidth: 100)
    }

    private func plan(chunked: Bool, in directory: TemporaryDirectory) throws -> String {
        try ItemsFixture.plan(chunked: chunked, in: directory)
    }

    private func run(
        _ database: String, plan: String, devices: String, in directory: TemporaryDirectory, _ options: [String] = []
    ) throws -> Report {
        try SlowPhoneRun.report(database, plan: plan, devices: devices, in: directory, options)
    }

    /// The device time of the whole migration, run once with no watchdog.
    private func unwatchedDeviceMs(_ database: String, plan: String, devices: String, in directory: TemporaryDirectory) throws -> Int {
        let report = try run(database, plan: plan, devices: devices, in: directory)
        #expect(report.outcome == .completed)
        #expect(report.options.clock == .device)
        return try #require(report.launches.first?.deviceMs)
    }

    @Test func aRunUnderTwoBusyProcessesEndsAsTheQuietRunDid() throws {
        let directory = TemporaryDirectory("device-clock")
        let devices = try SlowPhone.devicesDirectory(in: directory)
        let database = try database(in: directory)
        let plan = try plan(chunked: true, in: directory)
        // A third of the migration's device time: several launches, each killed mid-copy.
        let watchdog = try unwatchedDeviceMs(database, plan: plan, devices: devices, in: directory) / 3
        let options = ["--watchdog-ms", String(watchdog), "--launches", "20"]
        let quiet = try run(database, plan: plan, devices: devices, in: directory, options)
        let busy = try BusyProcesses(count: 2)
        let loaded = try run(database, plan: plan, devices: devices, in: directory, options)
        busy.stop()

        #expect(quiet.outcome == .completedAfterKills)
        #expect(quiet.launches.filter { $0.ended == .killed }.count >= 2)
        try SlowPhoneRun.expectSameEnd(quiet, loaded)
        for launch in quiet.launches where launch.ended == .killed {
            #expect(launch.deviceMs.map { $0 >= watchdog } == true, "a kill before the device's deadline")
        }
    }

    @Test func oneTransactionLongerThanTheWatchdogIsACrashLoopOnTheDevicesTime() throws {
        let directory = TemporaryDirectory("device-clock")
        let devices = try SlowPhone.devicesDirectory(in: directory)
        let database = try database(in: directory)
        let plan = try plan(chunked: false, in: directory)
        let watchdog = try unwatchedDeviceMs(database, plan: plan, devices: devices, in: directory) / 2
        let report = try run(database, plan: plan, devices: devices, in: directory, ["--watchdog-ms", String(watchdog)])
        #expect(report.outcome == .crashLoop)
        #expect(report.launches.first?.ended == .killed)
        #expect(report.final?.userVersion == 1)
        let step = try #require(report.steps.first { $0.version == 2 })
        #expect(step.status == .interrupted)
        #expect(step.device.map { $0.cpuMs > 0 && $0.writeMs > 0 } == true)
    }

    /// SQLite counts a statement's instructions only when its step returns: a statement that
    /// never returns must still move the clock, or its launch would never meet the watchdog.
    @Test func aStatementThatNeverEndsIsKilledAtTheDevicesDeadline() throws {
        let directory = TemporaryDirectory("device-clock")
        let devices = try SlowPhone.devicesDirectory(in: directory)
        let database = try FixtureDatabase.create(
            at: directory.file("endless.db"), sql: "CREATE TABLE t(x INTEGER); PRAGMA user_version = 1")
        let plan = directory.file("endless.json")
        try Data("""
            {"name": "endless", "steps": [
              {"version": 1, "name": "t", "sql": "CREATE TABLE t(x INTEGER)"},
              {"version": 2, "name": "count forever", "sql": "INSERT INTO t SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c)"}]}
            """.utf8).write(to: URL(fileURLWithPath: plan))
        // The run's own time limit ends the test if the clock never reaches the deadline.
        let report = try run(
            database, plan: plan, devices: devices, in: directory,
            ["--watchdog-ms", "1000", "--launches", "2", "--max-seconds", "120"])
        #expect(report.outcome == .crashLoop)
        let launch = try #require(report.launches.first)
        #expect(launch.ended == .killed)
        let deviceMs = try #require(launch.deviceMs)
        #expect(deviceMs >= 1000 && deviceMs <= 1010, "killed at \(deviceMs) device ms")
    }

    /// The space estimate before a step is Preflight's, not the app's: with a free-space limit
    /// (the estimate runs) a step takes the device time it takes without one. The estimate
    /// leaves the step's pages in SQLite's cache, so the step may read a little less.
    @Test func theSpaceEstimateIsNotTheDevicesWork() throws {
        let directory = TemporaryDirectory("device-clock")
        let devices = try SlowPhone.devicesDirectory(in: directory)
        let database = try database(in: directory)
        let plan = try plan(chunked: true, in: directory)
        let estimated = try run(database, plan: plan, devices: devices, in: directory, ["--free-bytes", "1000000000"])
        let unestimated = try run(database, plan: plan, devices: devices, in: directory, ["--space-check", "off"])

        let withEstimate = try #require(estimated.steps.first { $0.version == 2 })
        let without = try #require(unestimated.steps.first { $0.version == 2 })
        #expect(withEstimate.estimatedBytes != nil)
        #expect(without.estimatedBytes == nil)
        let estimatedMs = try #require(withEstimate.deviceMs), unestimatedMs = try #require(without.deviceMs)
        #expect(estimatedMs <= unestimatedMs + 1, "\(estimatedMs) ms with the estimate against \(unestimatedMs) ms without")
        #expect(estimatedMs >= unestimatedMs * 9 / 10, "\(estimatedMs) ms with the estimate against \(unestimatedMs) ms without")
    }

    /// An index on a `NOCASE` text calls the collation for each comparison of its sort, CPU
    /// that the instructions do not show: the device charges it (`collation_ns`), so the same
    /// index on the same texts costs the device more without case than with.
    @Test func anIndexWithoutCaseChargesItsComparisons() throws {
        let directory = TemporaryDirectory("device-clock")
        let devices = try SlowPhone.devicesDirectory(in: directory)
        let database = try database(in: directory)
        var cpuMs: [String: Double] = [:]
        for collation in ["BINARY", "NOCASE"] {
            let plan = directory.file("\(collation).json")
            try Data("""
                {"name": "items", "steps": [
                  {"version": 1, "name": "create", "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, payload TEXT NOT NULL, n INTEGER NOT NULL)"},
                  {"version": 2, "name": "index", "sql": "CREATE INDEX items_payload ON items(payload COLLATE \(collation))"}]}
                """.utf8).write(to: URL(fileURLWithPath: plan))
            let report = try run(database, plan: plan, devices: devices, in: directory)
            #expect(report.outcome == .completed)
            cpuMs[collation] = try #require(report.steps.first { $0.version == 2 }?.device).cpuMs
        }
        let binary = try #require(cpuMs["BINARY"]), nocase = try #require(cpuMs["NOCASE"])
        // The sort compares each text some log2(20,000) times, each comparison through the
        // collation dearer on the test phone than the instruction that fed it the row.
        #expect(nocase > binary * 1.5, "NOCASE \(nocase) ms of CPU against BINARY \(binary) ms")
    }

    /// A launch that ends before the watchdog, but closer to it than the model can be sure
    /// of, is at risk: the report says so on the launch and in a warning, and the text
    /// summary too. With the deadline well past the band's top, the same launch is not.
    /// The device clock puts the launch at the same time on every run, so the watchdog can
    /// be set just above it.
    @Test func aLaunchEndingWithinItsBandOfTheWatchdogIsAtRisk() throws {
        let directory = TemporaryDirectory("device-clock")
        let devices = try SlowPhone.devicesDirectory(in: directory)
        let database = try database(in: directory)
        let plan = try plan(chunked: true, in: directory)
        let modelled = try unwatchedDeviceMs(database, plan: plan, devices: devices, in: directory)

        let near = modelled + max(1, modelled / 50)
        let atRisk = try run(database, plan: plan, devices: devices, in: directory, ["--watchdog-ms", String(near)])
        #expect(atRisk.outcome == .completed)
        let launch = try #require(atRisk.launches.first)
        #expect(launch.ended == .finished && launch.deviceMs == modelled)
        let band = try #require(launch.deviceBand)
        #expect(band.lowMs < modelled && modelled < near && near <= band.highMs)
        #expect(launch.atRisk)
        let warning = try #require(atRisk.warnings.first { $0.code == "launch_at_risk" })
        #expect(warning.message.contains("\(near - modelled) ms before the \(near) ms watchdog"))
        let text = String(decoding: ReportRendering.render(atRisk, as: .rendered(.text)), as: UTF8.self)
        #expect(text.contains("at risk (\(band.lowMs)-\(band.highMs) ms)"))
        #expect(text.contains("warning launch_at_risk"))

        let far = band.highMs + 1_000
        let safe = try run(database, plan: plan, devices: devices, in: directory, ["--watchdog-ms", String(far)])
        #expect(safe.outcome == .completed)
        #expect(safe.launches.first?.deviceMs == modelled)
        #expect(safe.launches.first?.atRisk == false)
        #expect(!safe.warnings.contains { $0.code == "launch_at_risk" })
    }

    @Test func theTextSummarySaysWhichTimesAreModelled() throws {
        let directory = TemporaryDirectory("device-clock")
        let devices = try SlowPhone.devicesDirectory(in: directory)
        let database = try database(in: directory)
        let plan = try plan(chunked: true, in: directory)
        let result = try PreflightProcess.run(
            ["run", "--db", database, "--plan", plan, "--devices-dir", devices, "--device", SlowPhone.name, "--format", "text"],
            environment: ["TMPDIR": directory.path])
        let text = String(decoding: result.stdout, as: UTF8.self)
        #expect(text.contains("clock device: launch and step times are the device's, modelled"))
        #expect(text.contains(" here)"))
    }

    @Test func theDeviceClockNeedsAProfileWithASpeedModel() throws {
        let directory = TemporaryDirectory("device-clock")
        let database = try database(in: directory)
        let plan = try plan(chunked: true, in: directory)
        let result = try PreflightProcess.run(
            ["run", "--db", database, "--plan", plan, "--clock", "device"], environment: ["TMPDIR": directory.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("needs a device profile with a speed model"))
    }
}

/// CPU-bound processes that load the machine while a test runs, ended by `stop()` (or
/// when the value goes away).
private final class BusyProcesses {
    private var processes: [TestProcess] = []

    init(count: Int) throws {
        processes = try (0..<count).map { _ in try TestProcess("/bin/sh", ["-c", "while :; do :; done"]) }
    }

    /// SIGKILL: a shell started by the test process may have inherited SIGTERM blocked.
    func stop() {
        for process in processes { process.stop(signal: SIGKILL) }
        processes = []
    }

    deinit { stop() }
}
