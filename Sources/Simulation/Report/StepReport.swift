import MigrationCore

/// What one step did in the run (CONTRACT §3 `steps[]`).
public struct StepReport: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable { case applied, interrupted, failed, refused, skipped }

    public var version: Int
    /// The step's identifier (required under GRDB); nil when the plan gives none.
    public var id: String?
    public var name: String
    public var kind: StepKind
    public var costClass: CostClass?
    public var status: Status
    /// The launch the step ran (or was cut) in.
    public var launch: Int?
    public var elapsedMs: Int?
    /// Of a rebuild: the final swap transaction alone (index builds included), so that
    /// the part that does not grow with the row count can be seen apart from the copy.
    public var swapMs: Int?
    /// Highest total bytes of all the database's files during the step.
    public var peakBytes: Int64?
    /// Growth of the files during the step over their size when it began: the free space it needed.
    public var peakGrowthBytes: Int64?
    /// The space check's estimate of `peak_growth_bytes`, made before the step touched anything.
    public var estimatedBytes: Int64?
    public var bytesWritten: Int64?
    public var syncs: Int64?
    public var rows: Int64?
    public var batches: Int?
    /// The worker's peak resident memory during the step (with `temp_store` memory, its
    /// sorts and temp files included); for a step cut by a kill, the peak seen until then.
    public var peakMemoryBytes: Int64?
    /// The step's modelled time on the device (`clock: device`), and what it was spent on.
    public var deviceMs: Int?
    public var device: DeviceTime?

    public init(version: Int, id: String? = nil, name: String, kind: StepKind, status: Status) {
        self.version = version
        self.id = id
        self.name = name
        self.kind = kind
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case version, id, name, kind, costClass = "cost_class", status, launch, elapsedMs = "elapsed_ms"
        case swapMs = "swap_ms", peakBytes = "peak_bytes", peakGrowthBytes = "peak_growth_bytes"
        case estimatedBytes = "estimated_bytes", bytesWritten = "bytes_written", syncs, rows, batches
        case peakMemoryBytes = "peak_memory_bytes", deviceMs = "device_ms", device
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(kind, forKey: .kind)
        try container.encode(costClass, forKey: .costClass)
        try container.encode(status, forKey: .status)
        try container.encode(launch, forKey: .launch)
        try container.encode(elapsedMs, forKey: .elapsedMs)
        try container.encode(swapMs, forKey: .swapMs)
        try container.encode(peakBytes, forKey: .peakBytes)
        try container.encode(peakGrowthBytes, forKey: .peakGrowthBytes)
        try container.encode(estimatedBytes, forKey: .estimatedBytes)
        try container.encode(bytesWritten, forKey: .bytesWritten)
        try container.encode(syncs, forKey: .syncs)
        try container.encode(rows, forKey: .rows)
        try container.encode(batches, forKey: .batches)
        try container.encode(peakMemoryBytes, forKey: .peakMemoryBytes)
        try container.encode(deviceMs, forKey: .deviceMs)
        try container.encode(device, forKey: .device)
    }
}
