/// How the migrator runs: everything the app (or a rehearsal of it) chooses.
public struct MigrationSettings: Sendable, Equatable {
    /// The version to migrate to; nil for the plan's newest.
    public var target: Int?
    public var spaceCheck: SpaceCheck
    public var connection: ConnectionSettings
    /// The device's SQLite. A step that uses a feature newer than it fails before it runs,
    /// as it would fail there (`SQLiteFeature`), unless `refusesNewerSQL` is off; the
    /// functions it has and the linked SQLite lacks are provided (`DeviceFunctions`). Nil
    /// for the linked SQLite's own judgement.
    public var sqliteVersion: SQLiteVersion?
    /// Whether a step that uses SQL newer than `sqliteVersion` fails (`sqlite_check: fail`)
    /// or runs here for the caller to warn about (`warn`).
    public var refusesNewerSQL: Bool

    public init(
        target: Int? = nil, spaceCheck: SpaceCheck = .estimate, connection: ConnectionSettings = ConnectionSettings(),
        sqliteVersion: SQLiteVersion? = nil, refusesNewerSQL: Bool = true
    ) {
        self.target = target
        self.spaceCheck = spaceCheck
        self.connection = connection
        self.sqliteVersion = sqliteVersion
        self.refusesNewerSQL = refusesNewerSQL
    }

    /// Whether a step is refused when its space estimate exceeds the free space.
    public enum SpaceCheck: String, Sendable, Codable {
        /// Estimate each step before it runs; refuse it when it would not fit.
        case estimate
        /// Run every step; a disk that fills stops it with SQLITE_FULL.
        case off
    }
}

/// The connection settings of the app's platform that change what a migration costs or
/// how its statements behave. Nil leaves SQLite's own default.
public struct ConnectionSettings: Sendable, Equatable, Codable {
    /// `PRAGMA secure_delete`: Android's SQLite turns it on, so freed pages are overwritten.
    public var secureDelete: Bool?
    /// `PRAGMA journal_mode` for a file that does not say (a fresh install).
    public var journalMode: String?
    /// `PRAGMA synchronous`, e.g. "NORMAL" or "FULL".
    public var synchronous: String?
    /// `PRAGMA legacy_alter_table`: Android's SQLite has it on from API 30, so `ALTER TABLE
    /// ... RENAME` leaves views and triggers alone (and does not fail on their references).
    public var legacyAlterTable: Bool?
    /// `PRAGMA temp_store`: "DEFAULT", "FILE" or "MEMORY" (Android: temp files in memory,
    /// so big sorts cost RAM, not disk).
    public var tempStore: String?
    /// `PRAGMA journal_size_limit` in bytes (-1: no limit).
    public var journalSizeLimit: Int64?
    /// `PRAGMA wal_autocheckpoint` in pages (0: off).
    public var walAutocheckpoint: Int?
    /// `PRAGMA foreign_keys` as the platform opens the connection; the plan's own
    /// `foreign_keys` (what the app's code sets) is applied after it.
    public var foreignKeys: Bool?
    /// Android: ICU's `lower`, `upper`, `LIKE` and `REGEXP` and the framework's `LOCALIZED`,
    /// `PHONEBOOK` and `UNICODE` collations on every connection (`defineAndroidSQL`).
    public var androidFunctions: Bool?
    /// The device's locale ("en_US", "tr_TR"), which orders `LOCALIZED` and case-maps
    /// `lower` and `upper` where `androidFunctions` is on; nil for `defaultLocale`.
    public var locale: String?

    public init(
        secureDelete: Bool? = nil, journalMode: String? = nil, synchronous: String? = nil,
        legacyAlterTable: Bool? = nil, tempStore: String? = nil, journalSizeLimit: Int64? = nil,
        walAutocheckpoint: Int? = nil, foreignKeys: Bool? = nil, androidFunctions: Bool? = nil, locale: String? = nil
    ) {
        self.secureDelete = secureDelete
        self.journalMode = journalMode
        self.synchronous = synchronous
        self.legacyAlterTable = legacyAlterTable
        self.tempStore = tempStore
        self.journalSizeLimit = journalSizeLimit
        self.walAutocheckpoint = walAutocheckpoint
        self.foreignKeys = foreignKeys
        self.androidFunctions = androidFunctions
        self.locale = locale
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case secureDelete = "secure_delete", journalMode = "journal_mode", synchronous
        case legacyAlterTable = "legacy_alter_table", tempStore = "temp_store", journalSizeLimit = "journal_size_limit"
        case walAutocheckpoint = "wal_autocheckpoint", foreignKeys = "foreign_keys"
        case androidFunctions = "android_functions", locale
    }

    /// The settings' names in JSON (a device profile's `connection`).
    public static let keys: Set<String> = Set(CodingKeys.allCases.map(\.rawValue))
    public static let journalModes: Set<String> = ["DELETE", "TRUNCATE", "PERSIST", "WAL"]
    public static let synchronousModes: Set<String> = ["OFF", "NORMAL", "FULL", "EXTRA"]
    public static let tempStores: Set<String> = ["DEFAULT", "FILE", "MEMORY"]

    /// Statements that apply these settings to a connection just opened, as the platform's
    /// framework does before the app's code runs.
    func pragmas(freshFile: Bool) -> [String] {
        var result: [String] = []
        func flag(_ value: Bool) -> String { value ? "ON" : "OFF" }
        if let secureDelete { result.append("PRAGMA secure_delete = \(flag(secureDelete))") }
        if let synchronous, Self.synchronousModes.contains(synchronous.uppercased()) {
            result.append("PRAGMA synchronous = \(synchronous.uppercased())")
        }
        if freshFile, let journalMode, Self.journalModes.contains(journalMode.uppercased()) {
            result.append("PRAGMA journal_mode = \(journalMode.uppercased())")
        }
        if let legacyAlterTable { result.append("PRAGMA legacy_alter_table = \(flag(legacyAlterTable))") }
        if let tempStore, Self.tempStores.contains(tempStore.uppercased()) {
            result.append("PRAGMA temp_store = \(tempStore.uppercased())")
        }
        if let journalSizeLimit { result.append("PRAGMA journal_size_limit = \(journalSizeLimit)") }
        if let walAutocheckpoint { result.append("PRAGMA wal_autocheckpoint = \(walAutocheckpoint)") }
        if let foreignKeys { result.append("PRAGMA foreign_keys = \(flag(foreignKeys))") }
        return result
    }
}
