import MigrationCore

/// Space used by all of the database's files (main, journal, WAL, shm, temp) at one instant.
public struct SpaceReport: Sendable, Codable, Equatable {
    @Nullable public var initialBytes: Int64?
    @Nullable public var peakBytes: Int64?
    @Nullable public var peakGrowthBytes: Int64?
    @Nullable public var finalBytes: Int64?
    /// The simulated free space at the start; nil for unlimited.
    @Nullable public var freeBytes: Int64?
    /// The least free space with which this run succeeds (the peak growth of the run).
    @Nullable public var minFreeBytes: Int64?
    /// Peak of each file class: main, journal, wal, shm, temp.
    @Nullable public var byClass: [String: Int64]?
    /// The files' sizes while the launches ran: at most 500 rows `[t_ms, main, journal,
    /// wal, shm, temp]`, `t_ms` from the first launch's start; empty when nothing ran.
    public var samples: [[Int64]] = []

    public init() {}

    enum CodingKeys: String, CodingKey {
        case initialBytes = "initial_bytes", peakBytes = "peak_bytes", peakGrowthBytes = "peak_growth_bytes"
        case finalBytes = "final_bytes", freeBytes = "free_bytes", minFreeBytes = "min_free_bytes"
        case byClass = "by_class", samples
    }
}
