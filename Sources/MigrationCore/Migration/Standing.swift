/// Where a database stands in a plan, read the way the plan's runner reads it: its
/// `user_version`, or under GRDB the identifiers in `grdb_migrations`.
public struct Standing: Sendable, Equatable {
    /// The version the file is at: `user_version`; under GRDB the position of the last step
    /// of the unbroken run of applied migrations from the plan's first (0 for none).
    public var version: Int
    /// Under GRDB, the identifier of the step at `version`; nil elsewhere and for none.
    public var id: String?
    /// The furthest step that is applied: `version`, or under GRDB the position of the last
    /// applied migration the plan knows (GRDB skips those already applied).
    public var furthest: Int
    /// Under GRDB, recorded identifiers that the plan does not register: a newer app's.
    public var unknownIDs: [String]
    /// Under GRDB, every identifier recorded.
    var appliedIDs: Set<String>

    /// A file whose version is its `user_version`.
    init(userVersion: Int) {
        version = userVersion
        furthest = userVersion
        unknownIDs = []
        appliedIDs = []
    }

    public static func read(_ connection: Connection, plan: Plan) throws(SQLiteError) -> Standing {
        guard !plan.runner.keepsUserVersion else { return Standing(userVersion: try connection.userVersion) }
        let applied = try GRDBMigrations.applied(connection)
        var standing = Standing(userVersion: 0)
        standing.appliedIDs = applied
        let known = plan.steps.compactMap(\.id)
        standing.unknownIDs = applied.subtracting(known).sorted()
        for step in plan.steps where step.id.map(applied.contains) ?? false {
            standing.furthest = step.version
        }
        for step in plan.steps {
            guard let id = step.id, applied.contains(id) else { break }
            standing.version = step.version
            standing.id = id
        }
        return standing
    }

    /// The steps up to `target` that have still to run, in the order they run: from
    /// `user_version`, the plan's migration path (empty when there is none); under GRDB,
    /// every step not applied, in plan order.
    func pendingSteps(in plan: Plan, through target: Int) -> [Step] {
        guard !plan.runner.keepsUserVersion else { return plan.migrationPath(from: version, to: target) ?? [] }
        return plan.steps.filter { step in
            step.version <= target && !(step.id.map(appliedIDs.contains) ?? false)
        }
    }
}
