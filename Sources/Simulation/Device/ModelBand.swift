import MigrationCore

/// How far the device clock can be off for one launch: for each kind of time it models, the
/// largest relative error its checks against measured times showed on work of that kind
/// (docs/FIDELITY.md, "How close the device clock comes"), charged on that launch's own mix.
/// A launch of syncs is as sure as the flush figures; one of SQLite's own work as the CPU
/// checks. The app's start (`start_ms`) is the profile's own figure and carries no band.
public struct ModelBand: Sendable, Equatable {
    /// The relative error of the CPU's time: instructions, comparisons, page copies,
    /// statements and transactions.
    public static let cpu = 0.45
    /// Of reads from flash.
    public static let read = 0.55
    /// Of writes to flash at a sync.
    public static let write = 0.55
    /// Of the syncs' flushes.
    public static let sync = 0.55

    public var lowMs: Int
    public var highMs: Int

    /// The band around a launch of `startMs` plus `work`.
    public init(startMs: Double, work: DeviceTime) {
        let modelled = startMs + work.totalMs
        let spread = work.cpuMs * Self.cpu + work.readMs * Self.read + work.writeMs * Self.write + work.syncMs * Self.sync
        lowMs = Int((modelled - spread).rounded(.down))
        highMs = Int((modelled + spread).rounded(.up))
    }

    /// Whether a watchdog of `watchdogMs` falls inside the band.
    public func crosses(_ watchdogMs: Int) -> Bool { lowMs <= watchdogMs && watchdogMs <= highMs }
}

extension ModelBand: Codable {
    enum CodingKeys: String, CodingKey { case lowMs = "low_ms", highMs = "high_ms" }
}
