/// The policies a file must pass before any step touches it: files from a newer app
/// version are refused (an older app cannot know what they hold), files of another app
/// are refused, and a file without an application id is adopted.
public struct Gate: Sendable {
    public var plan: Plan
    public var target: Int

    public init(plan: Plan, target: Int) {
        self.plan = plan
        self.target = target
    }

    /// What the gate decided for a file with this version and application id.
    public enum Decision: Sendable, Equatable {
        /// Go ahead; write `adoptApplicationID` with the first step, when set.
        case proceed(adoptApplicationID: Int32?)
        case refuse(Failure)
    }

    /// For a file whose version is its `user_version` (every runner but GRDB's).
    public func check(userVersion: Int, applicationID: Int32) -> Decision {
        check(Standing(userVersion: userVersion), applicationID: applicationID)
    }

    public func check(_ standing: Standing, applicationID: Int32) -> Decision {
        if let unknown = standing.unknownIDs.first {
            return .refuse(Failure(
                kind: Failure.Kind.futureVersion,
                message: "grdb_migrations records migration \"\(unknown)\", which plan \"\(plan.name)\" does not register: a newer app migrated this file, and this migration cannot undo it"))
        }
        // Room erases a newer file when the app's destructive fallback covers a downgrade.
        let erasedByRoom = plan.room?.destructiveFallback.erases(from: standing.furthest, to: target) ?? false
        if standing.furthest > target, !erasedByRoom {
            let newest = target == plan.newestVersion ? "the plan's newest version" : "the target version"
            let what = plan.runner.keepsUserVersion ? "user_version \(standing.furthest)" : "migration \(standing.furthest) (grdb_migrations)"
            return .refuse(Failure(
                kind: Failure.Kind.futureVersion,
                message: "the database is at \(what), above \(newest) \(target): it was written by a newer app, which this migration cannot downgrade"))
        }
        // Room looks for a migration from whatever version it finds, and fails without one
        // (`missing_migration`, judged by its runner); for every other runner a negative
        // version is none of the plan's.
        if standing.version < 0, plan.runner != .room {
            return .refuse(Failure(
                kind: Failure.Kind.futureVersion,
                message: "the database's user_version is \(standing.version); versions of this plan run from 0 to \(plan.newestVersion)"))
        }
        guard let expected = plan.applicationID, expected != 0 else { return .proceed(adoptApplicationID: nil) }
        if applicationID == 0 { return .proceed(adoptApplicationID: expected) }
        if applicationID != expected {
            return .refuse(Failure(
                kind: Failure.Kind.foreignApplicationID,
                message: "the database's application_id is \(applicationID), but plan \"\(plan.name)\" belongs to application_id \(expected): this is another app's file"))
        }
        return .proceed(adoptApplicationID: nil)
    }
}
