import MigrationCore

/// What one step did in the run (docs/CONTRACT.md §3 `steps[]`).
public struct StepReport: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable { case applied, interrupted, failed, refused, skipped }

    public var version: Int
    /// The step's identifier (required under GRDB); nil when the plan gives none.
    @Nullable public var id: String?
    public var name: String
    public var kind: StepKind
    @Nullable public var costClass: CostClass?
    public var status: Status
    /// The launch the step ran (or was cut) in.
    @Nullable public var launch: Int?
    @Nullable public var elapsedMs: Int?
    /// Of a rebuild: the final swap transaction alone (index builds included), so that
    /// the part that does not grow with the row count can be seen apart from the copy.
    @Nullable public var swapMs: Int?
    /// Highest total bytes of all the database's files during the step.
    @Nullable public var peakBytes: Int64?
    /// Growth of the files during the step over their size when it began: the free space it needed.
    @Nullable public var peakGrowthBytes: Int64?
    /// The space check's estimate of `peak_growth_bytes`, made before the step touched anything.
    @Nullable public var estimatedBytes: Int64?
    @Nullable public var bytesWritten: Int64?
    @Nullable public var syncs: Int64?
    @Nullable public var rows: Int64?
    @Nullable public var batches: Int?
    /// The rows a chunked step (`rebuild`, `backfill`) commits per batch: its `batch_rows`.
    @Nullable public var batchRows: Int?
    /// The worker's peak resident memory during the step (with `temp_store` memory, its
    /// sorts and temp files included); for a step cut by a kill, the peak seen until then.
    @Nullable public var peakMemoryBytes: Int64?
    /// The step's modelled time on the device (`clock: device`), and what it was spent on.
    @Nullable public var deviceMs: Int?
    @Nullable public var device: DeviceTime?

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
        case batchRows = "batch_rows", peakMemoryBytes = "peak_memory_bytes", deviceMs = "device_ms", device
    }
}
