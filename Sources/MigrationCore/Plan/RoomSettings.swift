/// What a Room plan says about the app's Room (docs/CONTRACT.md §1, `runner: room`): the
/// library's version, each schema version's identity hash and the destructive fallback the
/// app's `RoomDatabase.Builder` enables.
public struct RoomSettings: Sendable, Equatable {
    /// The androidx.room version the app builds with; the runner follows it where Room's
    /// behaviour changed between versions.
    public var version: RoomVersion
    /// Each version's identity hash (from its exported schema), what Room leaves in
    /// `room_master_table` at that version.
    public var identityHashes: [Int: String]
    public var destructiveFallback: RoomDestructiveFallback

    public init(
        version: RoomVersion = .newestRead, identityHashes: [Int: String] = [:],
        destructiveFallback: RoomDestructiveFallback = .off
    ) {
        self.version = version
        self.identityHashes = identityHashes
        self.destructiveFallback = destructiveFallback
    }
}

/// An androidx.room release, compared by its numbers (a pre-release suffix is ignored: it
/// behaves as the release it leads to).
public struct RoomVersion: Sendable, Equatable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int

    public init(_ major: Int, _ minor: Int, _ patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// "2.6.1", "2.7.0-alpha01"; nil for anything else.
    public init?(_ text: String) {
        let release = text.split(separator: "-", maxSplits: 1).first.map(String.init) ?? ""
        let numbers = release.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard numbers.count == 3, let major = numbers[0], let minor = numbers[1], let patch = numbers[2],
            major >= 0, minor >= 0, patch >= 0
        else { return nil }
        self.init(major, minor, patch)
    }

    /// The newest release whose source the runner follows (docs/FIDELITY.md).
    public static let newestRead = RoomVersion(2, 7, 0)
    /// `TableInfo.Column.equals` compares a column's default (when the entity declares one)
    /// from this release on (b/136019383); before it, defaults were never compared.
    public static let comparesDefaults = RoomVersion(2, 2, 0)

    public var description: String { "\(major).\(minor).\(patch)" }

    public static func < (a: RoomVersion, b: RoomVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }
}

/// Which of `RoomDatabase.Builder`'s `fallbackToDestructiveMigration*` the app calls: when
/// Room finds no migration path, whether it erases the database and creates it anew
/// instead of failing.
public enum RoomDestructiveFallback: Sendable, Equatable {
    /// None: a missing path fails ("A migration from X to Y was required but not found").
    case off
    /// `fallbackToDestructiveMigration()`.
    case always
    /// `fallbackToDestructiveMigrationOnDowngrade()`.
    case onDowngrade
    /// `fallbackToDestructiveMigrationFrom(versions)`.
    case from(Set<Int>)

    /// Room's `DatabaseConfiguration.isMigrationRequired(from, to)`, negated: whether a file
    /// at `from` that has no migration path to `to` is erased rather than failed.
    public func erases(from: Int, to: Int) -> Bool {
        switch self {
        case .off: return false
        case .always: return true
        case .onDowngrade: return from > to
        case .from(let versions): return versions.contains(from)
        }
    }
}
