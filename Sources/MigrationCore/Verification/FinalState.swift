/// The migrated database after the run, as verification found it.
public struct FinalState: Sendable, Codable, Equatable {
    @Nullable public var userVersion: Int?
    /// "ok", the first problems `integrity_check` / `quick_check` listed, or "not checked".
    @Nullable public var integrity: String?
    @Nullable public var foreignKeyViolations: Int?
    @Nullable public var tables: [String: Int64]?
    /// Tables with fewer rows than before the run, and how many fewer.
    @Nullable public var rowsLost: [String: Int64]?
    @Nullable public var schemaMatchesFreshInstall: Bool?
    /// One readable line per structural difference from a fresh install.
    @Nullable public var schemaDiff: [String]?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case userVersion = "user_version", integrity, foreignKeyViolations = "foreign_key_violations", tables
        case rowsLost = "rows_lost", schemaMatchesFreshInstall = "schema_matches_fresh_install"
        case schemaDiff = "schema_diff"
    }
}
