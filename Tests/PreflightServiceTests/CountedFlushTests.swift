import Testing
import TestSupport
import Simulation

/// On the device clock a launch counts its syncs and does not wait for this machine's disk
/// (`spacevfs_count_flushes_only`): the prediction must be the one a run that does flush
/// gives. `os_flush=on` makes every launch pass its syncs on to the OS, as the wall clock's do.
@Suite("Counted flushes", .serialized)
struct CountedFlushTests {
    @Test(arguments: [false, true])
    func aRunThatFlushesEndsAsOneThatCountsItsFlushes(wal: Bool) throws {
        let directory = TemporaryDirectory("counted-flush")
        let devices = try SlowPhone.devicesDirectory(in: directory)
        let database = try ItemsFixture.database(at: directory.file("items.db"), rows: 20_000, payloadWidth: 100)
        // A launch keeps the journal mode of the file it opens.
        if wal { try FixtureDatabase.execute("PRAGMA journal_mode = WAL", at: database) }
        let plan = try ItemsFixture.plan(chunked: true, in: directory)
        let unwatched = try SlowPhoneRun.report(database, plan: plan, devices: devices, in: directory)
        #expect(unwatched.options.clock == .device)
        #expect(unwatched.input.journalMode == (wal ? "wal" : "delete"))
        // A third of the migration's device time: several launches, each killed mid-copy.
        let watchdog = try #require(unwatched.launches.first?.deviceMs) / 3
        let options = ["--watchdog-ms", String(watchdog), "--launches", "20"]
        let counted = try SlowPhoneRun.report(database, plan: plan, devices: devices, in: directory, options)
        let flushed = try SlowPhoneRun.report(
            database, plan: plan, devices: devices, in: directory, options, environment: ["PREFLIGHT_TEST_FAULT": "os_flush=on"])

        #expect(counted.outcome == .completedAfterKills)
        try SlowPhoneRun.expectSameEnd(counted, flushed)
        #expect(counted.steps.map { $0.device?.syncMs } == flushed.steps.map { $0.device?.syncMs })
        #expect(counted.final?.tables == flushed.final?.tables)
    }
}
