import MigrationCore

/// The effective options of a run after defaults (docs/CONTRACT.md §2), as the report shows them.
public struct RunOptions: Sendable, Codable, Equatable {
    public var device: String
    @Nullable public var target: Int?
    /// Wall-clock budget of one launch in the device's time; nil for no watchdog.
    @Nullable public var watchdogMs: Int?
    /// Simulated free space at the start; nil for unlimited.
    @Nullable public var freeBytes: Int64?
    public var launches: Int
    public var spaceCheck: MigrationSettings.SpaceCheck
    public var verify: Verifier.Mode
    public var sqliteCheck: SQLiteCheck
    /// The device profile's `time_scale`: the watchdog kills at `watchdogMs / timeScale` of
    /// this machine's time, and the report's times are this machine's.
    public var timeScale: Double
    /// Which clock launches are timed and killed on.
    public var clock: Clock
    /// The device's speed model, which `clock: device` charges the work at; nil under `wall`.
    @Nullable public var speed: SpeedModel?
    /// After the run, replay it killed at its durable points (docs/CONTRACT.md §2 `kill_sweep`).
    public var killSweep: SweepSelection
    /// After the run, replay it with the disk filling at its writes. Preflight's own
    /// option: docs/CONTRACT.md names only `kill_sweep`.
    public var diskFullSweep: SweepSelection
    /// After the run, open the states a power cut at each durable point can leave
    /// (docs/CONTRACT.md §2 `power_loss_sweep`).
    public var powerLossSweep: PowerLossSelection

    public init(
        device: String = "default", target: Int? = nil, watchdogMs: Int? = nil, freeBytes: Int64? = nil,
        launches: Int = 5, spaceCheck: MigrationSettings.SpaceCheck = .estimate, verify: Verifier.Mode = .full,
        sqliteCheck: SQLiteCheck = .fail, timeScale: Double = 1, clock: Clock = .wall, speed: SpeedModel? = nil,
        killSweep: SweepSelection = .off, diskFullSweep: SweepSelection = .off, powerLossSweep: PowerLossSelection = .off
    ) {
        self.device = device
        self.target = target
        self.watchdogMs = watchdogMs
        self.freeBytes = freeBytes
        self.launches = launches
        self.spaceCheck = spaceCheck
        self.verify = verify
        self.sqliteCheck = sqliteCheck
        self.timeScale = timeScale
        self.clock = clock
        self.speed = speed
        self.killSweep = killSweep
        self.diskFullSweep = diskFullSweep
        self.powerLossSweep = powerLossSweep
    }

    /// The clock a launch's watchdog counts (docs/CONTRACT.md §2 `clock`).
    public enum Clock: String, Sendable, Codable, CaseIterable {
        /// The device's modelled time, which advances with the work (`DeviceClock`).
        case device
        /// This machine's wall clock, divided by `time_scale`.
        case wall
    }

    /// The speed model the device clock runs on, when the run uses it.
    var deviceSpeed: SpeedModel? { clock == .device ? speed : nil }

    /// Whether a launch's syncs reach this machine's disk: on the wall clock, which times
    /// them. On the device clock a launch counts them and the clock charges the count
    /// (`Worker.migrate`).
    var launchesFlush: Bool { deviceSpeed == nil }

    /// What a step that uses an SQL feature newer than the device's SQLite does.
    public enum SQLiteCheck: String, Sendable, Codable {
        /// It fails as it would on the device (failure kind `sqlite_too_old`).
        case fail
        /// It runs on the device's engine (`SQLiteEngine`), which may be newer than the
        /// device's own SQLite or lack the feature too, with a `sqlite_too_old` warning.
        case warn
    }

    /// "the watchdog at 5000 ms device": where the watchdog kills, as the report's messages
    /// say it, with its clock: the device's under `clock: device`, else this machine's
    /// (`watchdog_ms / time_scale`, "700 ms here").
    var watchdogText: String {
        guard let watchdogMs else { return "the watchdog" }
        let here = Int((Double(watchdogMs) / max(timeScale, 0.000_001)).rounded())
        return clock == .device ? "the watchdog at \(watchdogMs) ms device" : "the watchdog at \(here) ms here"
    }

    /// How long a watchdog of `deviceMs` lasts on this machine.
    public func realDuration(ofDeviceMs deviceMs: Int) -> Duration {
        .milliseconds(Double(deviceMs) / timeScale)
    }

    enum CodingKeys: String, CodingKey {
        case device, target, watchdogMs = "watchdog_ms", freeBytes = "free_bytes", launches
        case spaceCheck = "space_check", verify, sqliteCheck = "sqlite_check", timeScale = "time_scale", clock, speed
        case killSweep = "kill_sweep", diskFullSweep = "disk_full_sweep", powerLossSweep = "power_loss_sweep"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            device: try container.decode(String.self, forKey: .device),
            target: try container.decodeIfPresent(Int.self, forKey: .target),
            watchdogMs: try container.decodeIfPresent(Int.self, forKey: .watchdogMs),
            freeBytes: try container.decodeIfPresent(Int64.self, forKey: .freeBytes),
            launches: try container.decode(Int.self, forKey: .launches),
            spaceCheck: try container.decode(MigrationSettings.SpaceCheck.self, forKey: .spaceCheck),
            verify: try container.decode(Verifier.Mode.self, forKey: .verify),
            sqliteCheck: try container.decode(SQLiteCheck.self, forKey: .sqliteCheck),
            timeScale: try container.decode(Double.self, forKey: .timeScale),
            // Reports written before the device clock existed timed everything on the wall clock.
            clock: try container.decodeIfPresent(Clock.self, forKey: .clock) ?? .wall,
            speed: try container.decodeIfPresent(SpeedModel.self, forKey: .speed),
            // Reports written before the sweeps existed have neither.
            killSweep: try container.decodeIfPresent(SweepSelection.self, forKey: .killSweep) ?? .off,
            diskFullSweep: try container.decodeIfPresent(SweepSelection.self, forKey: .diskFullSweep) ?? .off,
            powerLossSweep: try container.decodeIfPresent(PowerLossSelection.self, forKey: .powerLossSweep) ?? .off)
    }
}
