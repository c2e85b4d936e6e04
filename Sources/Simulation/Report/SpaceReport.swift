import MigrationCore

/// Space used by all of the database's files (main, journal, WAL, shm, temp) at one instant.
public struct SpaceReport: Sendable, Codable, Equatable {
    public var initialBytes: Int64?
    public var peakBytes: Int64?
    public var peakGrowthBytes: Int64?
    public var finalBytes: Int64?
    /// The simulated free space at the start; nil for unlimited.
    public var freeBytes: Int64?
    /// The least free space with which this run succeeds (the peak growth of the run).
    public var minFreeBytes: Int64?
    /// Peak of each file class: main, journal, wal, shm, temp.
    public var byClass: [String: Int64]?
    /// The files' sizes while the launches ran: at most 500 rows `[t_ms, main, journal,
    /// wal, shm, temp]`, `t_ms` from the first launch's start; empty when nothing ran.
    public var samples: [[Int64]] = []

    public init() {}

    enum CodingKeys: String, CodingKey {
        case initialBytes = "initial_bytes", peakBytes = "peak_bytes", peakGrowthBytes = "peak_growth_bytes"
        case finalBytes = "final_bytes", freeBytes = "free_bytes", minFreeBytes = "min_free_bytes"
        case byClass = "by_class", samples
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(initialBytes, forKey: .initialBytes)
        try container.encode(peakBytes, forKey: .peakBytes)
        try container.encode(peakGrowthBytes, forKey: .peakGrowthBytes)
        try container.encode(finalBytes, forKey: .finalBytes)
        try container.encode(freeBytes, forKey: .freeBytes)
        try container.encode(minFreeBytes, forKey: .minFreeBytes)
        try container.encode(byClass, forKey: .byClass)
        try container.encode(samples, forKey: .samples)
    }
}
