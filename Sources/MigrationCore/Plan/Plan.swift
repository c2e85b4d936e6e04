/// A migration plan (docs/CONTRACT.md §1): the app's steps from its base version to its newest.
public struct Plan: Sendable, Equatable {
    public var name: String
    public var description: String?
    /// The value the app writes at header offset 68; nil when the app does not set one.
    public var applicationID: Int32?
    /// Whether the app's connection enforces foreign keys while it migrates.
    public var foreignKeys: Bool
    /// How the app's migration framework uses transactions.
    public var runner: Runner
    /// The identity hash Room writes to `room_master_table` (`runner` room only).
    public var roomIdentityHash: String?
    /// The rest of what a Room plan says about the app's Room; nil under every other runner.
    public var room: RoomSettings?
    /// The oldest version the plan can build: its first step creates that version's schema
    /// on an empty file (1 for a plan whose history starts at the beginning).
    public var baseVersion: Int = 1
    /// In the plan's order: versions never go down. Under every runner but Room's, each
    /// step migrates from the version before it, so versions are consecutive.
    public var steps: [Step]
    public var freshInstall: FreshInstall?
    /// SHA-256 of the plan document as given, hex.
    public var sha256: String
    /// The plan document as given, byte for byte (to hand to another process).
    public var document: [UInt8]

    /// The version a fresh install of the newest app has.
    public var newestVersion: Int { steps.last?.version ?? 0 }

    /// The step that ends at `version` (the first in the plan's order, where several do).
    public func step(version: Int) -> Step? {
        steps.first { $0.version == version }
    }

    /// The steps that take a file from `start` to `end`, chosen as Room's
    /// `MigrationContainer.findMigrationPath` chooses (androidx `RoomDatabase.kt`): from each
    /// version, the step that goes furthest without passing `end`, with no going back when
    /// that leads nowhere. Nil when there is no such path (a plan's steps only go up);
    /// empty when `start == end`. Where steps are consecutive it is every step after
    /// `start` up to `end`.
    public func migrationPath(from start: Int, to end: Int) -> [Step]? {
        guard start <= end else { return nil }
        var path: [Step] = []
        var at = start
        while at < end {
            let next = steps.filter { $0.fromVersion == at && $0.version <= end }.max { $0.version < $1.version }
            guard let next else { return nil }
            path.append(next)
            at = next.version
        }
        return path
    }
}

/// One step: migrates a database from user_version `fromVersion` to `version`.
public struct Step: Sendable, Equatable {
    public var version: Int
    /// The version the step migrates from: `version - 1` unless the plan says otherwise
    /// (Room's `Migration(a, b)` spans versions); 0 for the base step of a plan whose base
    /// version is above 1, which creates its schema on an empty file.
    public var fromVersion: Int
    /// The migration's identifier as the app registers it (required under GRDB).
    public var id: String?
    public var name: String
    /// True when the step removes rows on purpose (`"row_loss": "allowed"`).
    public var rowLossAllowed: Bool
    public var action: StepAction
    /// SHA-256 of the step's own definition: a resumed rebuild or backfill checks it so
    /// that half-done work from another definition is discarded, not mixed.
    public var definitionHash: String
    /// What `plan import` could not read from the app's code (`"needs_review"`): each names
    /// the file and line a person must check; the step runs what was read.
    public var needsReview: [String]

    public init(
        version: Int, fromVersion: Int? = nil, id: String? = nil, name: String, rowLossAllowed: Bool,
        action: StepAction, definitionHash: String, needsReview: [String] = []
    ) {
        self.version = version
        self.fromVersion = fromVersion ?? version - 1
        self.id = id
        self.name = name
        self.rowLossAllowed = rowLossAllowed
        self.action = action
        self.definitionHash = definitionHash
        self.needsReview = needsReview
    }
}

public enum StepAction: Sendable, Equatable {
    /// Statements run in order in one `BEGIN IMMEDIATE` transaction.
    case sql([String])
    case rebuild(Rebuild)
    case backfill(Backfill)

    public var kind: StepKind {
        switch self {
        case .sql: return .sql
        case .rebuild: return .rebuild
        case .backfill: return .backfill
        }
    }

    /// The rows a chunked step commits per batch; nil for `sql`, which commits once.
    public var batchRows: Int? {
        switch self {
        case .sql: return nil
        case .rebuild(let rebuild): return rebuild.batchRows
        case .backfill(let backfill): return backfill.batchRows
        }
    }
}

public enum StepKind: String, Sendable, Codable {
    case sql, rebuild, backfill
}

/// SQLite's generalized ALTER TABLE as a chunked, resumable copy.
public struct Rebuild: Sendable, Equatable {
    public var table: String
    /// The new table's body: column definitions and table constraints.
    public var columns: String
    /// The expression list computed from each old row, in the new columns' order.
    public var select: String
    /// Keeps only the old rows matching this expression.
    public var filter: String?
    /// Table options after the body, e.g. `WITHOUT ROWID` or `STRICT`.
    public var options: String?
    public var batchRows: Int
    /// CREATE INDEX statements replacing the old table's own indexes.
    public var indexes: [String]?
    /// CREATE TRIGGER statements replacing the old table's own triggers.
    public var triggers: [String]?

    public static let defaultBatchRows = 500
}

/// A chunked, resumable `UPDATE table SET <set> WHERE <where>`.
public struct Backfill: Sendable, Equatable {
    public var table: String
    public var set: String
    public var filter: String?
    public var batchRows: Int

    public static let defaultBatchRows = 500
}

/// The app's create-from-scratch script for `version` (the `onCreate` path).
public struct FreshInstall: Sendable, Equatable {
    public var version: Int
    public var sql: [String]
}
