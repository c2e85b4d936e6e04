import MigrationCore

/// What to synthesize: the plan's schema at `version`, with `rows[table]` rows in each
/// named table (the others stay empty), shaped like `like` when given, from `seed`.
public struct SynthesisRequest: Sendable {
    public var plan: Plan
    public var version: Int
    /// Rows per table, by the table's name (matched as SQLite matches names, without case).
    public var rows: [String: Int]
    public var like: SampleShape?
    public var seed: UInt64

    /// The seed a capacity search and a matrix synthesize with. Synthesis is deterministic
    /// for a seed: every shard of a matrix makes the same files, and a benchmark's
    /// `preflight synthesize --seed` makes the very file a search or a matrix rehearsed.
    public static let rehearsalSeed: UInt64 = 1

    public init(plan: Plan, version: Int, rows: [String: Int], like: SampleShape?, seed: UInt64) {
        self.plan = plan
        self.version = version
        self.rows = rows
        self.like = like
        self.seed = seed
    }
}

/// What was made: rows per table (every table of the schema, by its own spelling) and the
/// file's size.
public struct SynthesisSummary: Sendable, Equatable {
    public var tables: [String: Int]
    public var bytes: Int64
    /// The journal mode the file was left in (`delete` or `wal`).
    public var journalMode: String

    public init(tables: [String: Int], bytes: Int64, journalMode: String) {
        self.tables = tables
        self.bytes = bytes
        self.journalMode = journalMode
    }
}
