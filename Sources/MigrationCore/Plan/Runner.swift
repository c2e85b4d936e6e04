/// How the app's own migration code uses transactions (docs/CONTRACT.md §1 `runner`), which decides
/// what a kill or a failure undoes and where the version is kept. The frameworks' sources
/// are named in docs/FIDELITY.md.
public enum Runner: String, Sendable, Codable, CaseIterable {
    /// One `BEGIN IMMEDIATE` per step, `user_version` set inside it.
    case perStep = "per_step"
    /// GRDB's `DatabaseMigrator`: one `BEGIN IMMEDIATE` per migration; applied migrations
    /// are rows of `grdb_migrations`, and `user_version` is neither read nor written.
    case grdb
    /// Android's `SQLiteOpenHelper` (and SQLDelight, sqflite on it): one `BEGIN EXCLUSIVE`
    /// around every pending step, `user_version` set at its end.
    case sqliteOpenHelper = "sqliteopenhelper"
    /// Room: as `sqliteOpenHelper`, with its schema validation and `room_master_table`
    /// inside the same transaction.
    case room
    /// Drift: no transaction, every statement commits on its own; `user_version` is
    /// written once, after the last step.
    case drift

    /// Whether every pending step runs inside one transaction that commits at the end of
    /// the path: a kill or a failure anywhere rolls the whole path back.
    public var commitsWholePath: Bool { self == .sqliteOpenHelper || self == .room }

    /// Whether each step commits with its version (or its GRDB row): a kill loses at most the
    /// step in progress, and a finished step is durable.
    public var commitsEachStep: Bool { !commitsWholePath && !autocommits }

    /// Whether statements commit one by one: a killed launch leaves what its finished
    /// statements did, at the old version.
    public var autocommits: Bool { self == .drift }

    /// Whether the version is `user_version` (GRDB keeps applied identifiers instead).
    public var keepsUserVersion: Bool { self != .grdb }

    /// Tables the framework creates for itself, which are not part of the app's schema: a
    /// fresh install made from the app's own script has none of them.
    public var frameworkTables: Set<String> {
        switch self {
        case .perStep, .drift: return []
        case .grdb: return [GRDBMigrations.table]
        // Android's SQLiteDatabase adds `android_metadata` (the locale) to every file.
        case .sqliteOpenHelper: return ["android_metadata"]
        case .room: return ["android_metadata", RoomMasterTable.table]
        }
    }
}
