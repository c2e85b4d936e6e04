import MigrationCore

/// What a capacity boundary separates: sizes that held from sizes that did not.
public enum CapacityBoundary: String, Sendable, Codable, Hashable {
    /// Completed in the first launch.
    case completes
    /// Reached the target, in one launch or after kills.
    case reachesTarget = "reaches_target"

    func holds(_ outcome: Outcome) -> Bool {
        switch self {
        case .completes: return outcome == .completed
        case .reachesTarget: return outcome == .completed || outcome == .completedAfterKills
        }
    }
}
