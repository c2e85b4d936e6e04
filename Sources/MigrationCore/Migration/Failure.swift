/// Why a migration did not reach its target: what went wrong, where, and what SQLite said.
/// The report's `failure` is one of these too.
public struct Failure: Sendable, Codable, Equatable {
    /// What went wrong, e.g. `future_version`, `sql_error`, `insufficient_space`.
    public var kind: Kind
    public var step: Int?
    public var message: String
    public var statement: String?
    public var sqliteCode: Int32?
    public var neededBytes: Int64?
    public var freeBytes: Int64?
    /// What ran out of time, for kind `time_limit`: `check`, `launch`, `verify` or `replay`.
    public var phase: String?

    public init(
        kind: Kind, step: Int? = nil, message: String, statement: String? = nil, sqliteCode: Int32? = nil,
        neededBytes: Int64? = nil, freeBytes: Int64? = nil, phase: String? = nil
    ) {
        self.kind = kind
        self.step = step
        self.message = message
        self.statement = statement
        self.sqliteCode = sqliteCode
        self.neededBytes = neededBytes
        self.freeBytes = freeBytes
        self.phase = phase
    }

    enum CodingKeys: String, CodingKey {
        case kind, step, message, statement, phase
        case sqliteCode = "sqlite_code"
        case neededBytes = "needed_bytes"
        case freeBytes = "free_bytes"
    }

    /// What went wrong, as the report's `failure.kind` spells it: one constant per kind,
    /// never a bare string (as GRDB's `ResultCode`). The kinds this module produces are
    /// here: why the gate refuses a file, and how a step fails; the layers above add
    /// their own in extensions.
    public struct Kind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let futureVersion = Kind(rawValue: "future_version")
        public static let foreignApplicationID = Kind(rawValue: "foreign_application_id")
        public static let insufficientSpace = Kind(rawValue: "insufficient_space")
        public static let invalidDatabase = Kind(rawValue: "invalid_database")
        public static let sqlError = Kind(rawValue: "sql_error")
        public static let diskFull = Kind(rawValue: "disk_full")
        /// Room: the upgraded schema differs from the fresh install's.
        public static let schemaValidation = Kind(rawValue: "schema_validation")
        /// Room: no step migrates from the file's version.
        public static let missingMigration = Kind(rawValue: "missing_migration")
        /// Room: the file at the app's version holds another identity hash in
        /// `room_master_table` ("Room cannot verify the data integrity").
        public static let identityMismatch = Kind(rawValue: "identity_mismatch")
        /// Room: no step migrates from the file's version, and the app's destructive
        /// fallback erased the database instead.
        public static let dataErased = Kind(rawValue: "data_erased")
    }
}
