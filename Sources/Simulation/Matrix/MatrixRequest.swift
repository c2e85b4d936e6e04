import MigrationCore

/// What a matrix runs (docs/CONTRACT.md §11): the plan, the devices with the effective options of
/// each (resolved as for `preflight run`), the fixtures, and how the versions without a
/// fixture are synthesized. Used by `preflight matrix` and `POST /v1/matrix` alike.
public struct MatrixRequest: Sendable {
    public var plan: Plan
    public var devices: [MatrixDevice]
    /// The oldest version the team still supports: rows run from here to the target - 1.
    public var fromVersion: Int
    public var fixtures: [MatrixFixture]
    /// The size of the synthesized files: rows per table (others stay empty).
    public var rows: [String: Int]
    /// A sample whose shape the synthesized rows follow (`--like`).
    public var sample: String?
    /// Wall-clock budget of the whole matrix; cells not started by then end `failed`
    /// with kind `time_limit`.
    public var maxSeconds: Int
    /// How many cells (and syntheses) run at once.
    public var parallelism: Int
    /// This process's share of the cells; nil for all of them.
    public var shard: MatrixShard?
    /// Where synthesized files made before are found and the new ones kept; nil for none.
    public var synthesisCache: SynthesisCache?

    public init(
        plan: Plan, devices: [MatrixDevice], fromVersion: Int = 1, fixtures: [MatrixFixture], rows: [String: Int] = [:],
        sample: String? = nil, maxSeconds: Int, parallelism: Int, shard: MatrixShard? = nil,
        synthesisCache: SynthesisCache? = nil
    ) {
        self.plan = plan
        self.devices = devices
        self.fromVersion = fromVersion
        self.fixtures = fixtures
        self.rows = rows
        self.sample = sample
        self.maxSeconds = maxSeconds
        self.parallelism = parallelism
        self.shard = shard
        self.synthesisCache = synthesisCache
    }

    /// The version every row migrates to (the devices share the plan; their options may
    /// name another target, which the first device's names).
    public var target: Int { devices.first?.options.target ?? plan.newestVersion }
}

/// One column of the matrix: a device profile and the run options it resolves to.
public struct MatrixDevice: Sendable {
    public var options: RunOptions
    public var profile: DeviceProfile

    public init(options: RunOptions, profile: DeviceProfile) {
        self.options = options
        self.profile = profile
    }

    public var name: String { options.device }
}

/// A database a team keeps for an old version, as the matrix was given it.
public struct MatrixFixture: Sendable {
    /// The name the row shows: the file's name as given (its basename, or the upload's
    /// filename).
    public var name: String
    /// The main file; nil for a `-wal` that came without one.
    public var database: String?
    public var wal: String?

    public init(name: String, database: String?, wal: String?) {
        self.name = name
        self.database = database
        self.wal = wal
    }
}

/// `--shard I/N`: the I-th of N deterministic shares of the cells (I from 1).
public struct MatrixShard: Sendable, Codable, Equatable {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Reads `I/N`; nil unless 1 ≤ I ≤ N.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (1...count).contains(index)
        else { return nil }
        self.init(index: index, count: count)
    }

    /// Whether the cell at `position` in the matrix's canonical order (rows as the answer
    /// lists them, devices as given) is this shard's: every N-th, so that each shard gets
    /// cells of every row and every device.
    public func owns(cell position: Int) -> Bool { position % count == index - 1 }

    public var text: String { "\(index)/\(count)" }
}
