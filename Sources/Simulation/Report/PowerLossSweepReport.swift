import MigrationCore

/// The report's `power_loss_sweep` (docs/CONTRACT.md §3): how many crash points and states of the
/// run were opened by a fresh launch, how many ended as the uninterrupted run did, and
/// what went wrong at the others.
public struct PowerLossSweepReport: Sendable, Codable, Equatable {
    /// The crash points at least one state was opened at.
    public var points: Int
    /// The states opened (two states of one point that leave the same disk count once).
    public var states: Int
    public var survived: Int
    public var failures: [StateFailure]

    public init(points: Int = 0, states: Int = 0, survived: Int = 0, failures: [StateFailure] = []) {
        self.points = points
        self.states = states
        self.survived = survived
        self.failures = failures
    }

    /// What a failed state did.
    public enum Kind: String, Sendable, Codable {
        /// The file opened consistent, at a version below one the app had committed, and
        /// the relaunch applied the step again: a step taken back, not damage.
        case versionRolledBack = "version_rolled_back"
        /// SQLite cannot read the file, or integrity_check finds it damaged.
        case corruption
        /// The relaunched run reached its target, but rows or the schema differ from the
        /// uninterrupted run's.
        case dataLost = "data_lost"
        /// The relaunched run did not reach its target (a step failed on what the power
        /// cut left, or the launches ran out).
        case relaunchFailed = "relaunch_failed"
    }

    /// A state whose relaunch did not end as the uninterrupted run did.
    public struct StateFailure: Sendable, Codable, Equatable {
        /// The crash point's ordinal (`CrashPoint`): syncs and commits of the run, in order.
        public var point: Int
        /// The state's id (`CrashState`): `--power-loss-sweep POINT:STATE` replays it alone.
        public var state: String
        /// The plan step the app was in at that point; null after the last one.
        @Nullable public var step: Int?
        /// The file being synced (`main`, `journal`, `wal`), or `commit`.
        public var phase: String
        public var message: String
        public var kind: Kind

        public init(point: Int, state: String, step: Int?, phase: String, message: String, kind: Kind) {
            self.point = point
            self.state = state
            self.step = step
            self.phase = phase
            self.message = message
            self.kind = kind
        }
    }

    /// "power-loss sweep: survives 40/42 power-loss states at 12 points", for the progress lines.
    public var summary: String {
        "power-loss sweep: survives \(survived)/\(states) power-loss states at \(points) points"
    }
}
