import MigrationCore

/// The effective options of a run after defaults (CONTRACT §2), as the report shows them.
public struct RunOptions: Sendable, Codable, Equatable {
    public var device: String
    public var target: Int?
    /// Wall-clock budget of one launch; nil for no watchdog.
    public var watchdogMs: Int?
    /// Simulated free space at the start; nil for unlimited.
    public var freeBytes: Int64?
    public var launches: Int
    public var spaceCheck: MigrationSettings.SpaceCheck
    public var verify: Verifier.Mode

    public init(
        device: String = "default", target: Int? = nil, watchdogMs: Int? = nil, freeBytes: Int64? = nil,
        launches: Int = 5, spaceCheck: MigrationSettings.SpaceCheck = .estimate, verify: Verifier.Mode = .full
    ) {
        self.device = device
        self.target = target
        self.watchdogMs = watchdogMs
        self.freeBytes = freeBytes
        self.launches = launches
        self.spaceCheck = spaceCheck
        self.verify = verify
    }

    enum CodingKeys: String, CodingKey {
        case device, target, watchdogMs = "watchdog_ms", freeBytes = "free_bytes", launches
        case spaceCheck = "space_check", verify
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(device, forKey: .device)
        try container.encode(target, forKey: .target)
        try container.encode(watchdogMs, forKey: .watchdogMs)
        try container.encode(freeBytes, forKey: .freeBytes)
        try container.encode(launches, forKey: .launches)
        try container.encode(spaceCheck, forKey: .spaceCheck)
        try container.encode(verify, forKey: .verify)
    }
}
