import MigrationCore

/// The report's `kill_sweep` (docs/CONTRACT.md §3) and `disk_full_sweep` (Preflight's own): how
/// many points of the run were replayed with a fault, how many of them survived it, and
/// what went wrong at the others.
public struct SweepReport: Sendable, Codable, Equatable {
    /// The points replayed. When the job's time ran out during the sweep, the points
    /// replayed until then (the report's `failure` says so).
    public var points: Int
    public var survived: Int
    public var failures: [PointFailure]

    public init(points: Int = 0, survived: Int = 0, failures: [PointFailure] = []) {
        self.points = points
        self.survived = survived
        self.failures = failures
    }

    /// A point whose replay did not end as the uninterrupted run did.
    public struct PointFailure: Sendable, Codable, Equatable {
        /// The ordinal of the point: of the run's durable syncs (kill sweep), of its
        /// writes (disk-full sweep).
        public var point: Int
        /// The plan step running at that moment; nil before the first step began.
        @Nullable public var step: Int?
        /// The file being synced or written: `journal`, `wal`, `main` (`temp` and `shm`
        /// for writes), or `not_reached` when the replay never got to the point.
        public var phase: String
        /// What differed, for a person.
        public var message: String

        public init(point: Int, step: Int?, phase: String, message: String) {
            self.point = point
            self.step = step
            self.phase = phase
            self.message = message
        }
    }
}
