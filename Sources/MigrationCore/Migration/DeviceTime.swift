/// A span of a phone's modelled time, by what it was spent on. The migrator does not model
/// time; the process that runs it does (Preflight's device clock) and stamps its events
/// with it, so that this travels with them.
public struct DeviceTime: Sendable, Codable, Equatable {
    public var cpuMs: Double = 0
    public var readMs: Double = 0
    public var writeMs: Double = 0
    public var syncMs: Double = 0

    public init(cpuMs: Double = 0, readMs: Double = 0, writeMs: Double = 0, syncMs: Double = 0) {
        self.cpuMs = cpuMs
        self.readMs = readMs
        self.writeMs = writeMs
        self.syncMs = syncMs
    }

    public var totalMs: Double { cpuMs + readMs + writeMs + syncMs }

    public static func - (left: DeviceTime, right: DeviceTime) -> DeviceTime {
        DeviceTime(
            cpuMs: left.cpuMs - right.cpuMs, readMs: left.readMs - right.readMs, writeMs: left.writeMs - right.writeMs,
            syncMs: left.syncMs - right.syncMs)
    }

    public static func + (left: DeviceTime, right: DeviceTime) -> DeviceTime {
        DeviceTime(
            cpuMs: left.cpuMs + right.cpuMs, readMs: left.readMs + right.readMs, writeMs: left.writeMs + right.writeMs,
            syncMs: left.syncMs + right.syncMs)
    }

    enum CodingKeys: String, CodingKey {
        case cpuMs = "cpu_ms", readMs = "read_ms", writeMs = "write_ms", syncMs = "sync_ms"
    }
}
