import MigrationCore

/// What a capacity search runs: the plan and the effective run options (resolved as for
/// `preflight run`), and how the synthesized databases grow.
public struct CapacityRequest: Sendable {
    public var plan: Plan
    public var options: RunOptions
    public var device: DeviceProfile
    /// The version the synthesized files are at; nil: the sample's, else 1.
    public var fromVersion: Int?
    /// The table that grows; nil: the sample's largest, else the first the plan rewrites.
    public var table: String?
    /// The largest size tried.
    public var maxRows: Int
    /// Wall-clock budget of the whole search, synthesis and rehearsals together.
    public var maxSeconds: Int
    /// The first size tried.
    public var startRows: Int
    /// `--bisect PERCENT`: no prediction; bisection until the sizes either side of each
    /// boundary are this close (the exhaustive reference). Nil: predict, then confirm.
    public var bisectPercent: Double?
    /// How many sizes are rehearsed at once (the runs that confirm one prediction): the
    /// command line's search has the machine to itself; a server's runs in the one slot
    /// its job was given. Above 1, the first round runs all of the measuring's first
    /// sizes (`PredictingSearch.firstSizes`), which are mostly their processes' starts.
    public var sideBySide = 1
    /// Where synthesized files made before are found and the new ones kept; nil for none.
    public var synthesisCache: SynthesisCache?

    public static let defaultMaxRows = 100_000_000
    public static let defaultMaxSeconds = 300
    public static let defaultStartRows = 1_000

    public init(
        plan: Plan, options: RunOptions, device: DeviceProfile, fromVersion: Int? = nil, table: String? = nil,
        maxRows: Int = defaultMaxRows, maxSeconds: Int = defaultMaxSeconds, startRows: Int = defaultStartRows
    ) {
        self.plan = plan
        self.options = options
        self.device = device
        self.fromVersion = fromVersion
        self.table = table
        self.maxRows = maxRows
        self.maxSeconds = maxSeconds
        self.startRows = startRows
    }

    /// The version the migration runs to.
    var target: Int { options.target ?? plan.newestVersion }

    /// The run options each size is rehearsed with: the request's, with `verify` at most
    /// `quick`. A size answers whether the migration completes in one launch and what each
    /// step costs there; `integrity_check`'s cross-check of every index against its table
    /// answers neither, reads like another build of each index, and would be paid at every
    /// size, where one `preflight run` pays it once, on its one file. The quick check still
    /// reads every page, and the rows, foreign keys and schema are checked as ever.
    var sizeOptions: RunOptions {
        var sizeOptions = options
        if sizeOptions.verify == .full { sizeOptions.verify = .quick }
        return sizeOptions
    }
}

/// Why a capacity search could not run, with a code and a message a person can act on.
public struct CapacityError: Error, Sendable, CustomStringConvertible {
    public var code: String
    public var message: String

    public init(code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
