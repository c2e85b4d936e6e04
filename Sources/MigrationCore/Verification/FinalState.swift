/// The migrated database after the run, as verification found it.
public struct FinalState: Sendable, Codable, Equatable {
    public var userVersion: Int?
    /// "ok", the first problems `integrity_check` / `quick_check` listed, or "not checked".
    public var integrity: String?
    public var foreignKeyViolations: Int?
    public var tables: [String: Int64]?
    /// Tables with fewer rows than before the run, and how many fewer.
    public var rowsLost: [String: Int64]?
    public var schemaMatchesFreshInstall: Bool?
    /// One readable line per structural difference from a fresh install.
    public var schemaDiff: [String]?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case userVersion = "user_version", integrity, foreignKeyViolations = "foreign_key_violations", tables
        case rowsLost = "rows_lost", schemaMatchesFreshInstall = "schema_matches_fresh_install"
        case schemaDiff = "schema_diff"
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userVersion, forKey: .userVersion)
        try container.encode(integrity, forKey: .integrity)
        try container.encode(foreignKeyViolations, forKey: .foreignKeyViolations)
        try container.encode(tables, forKey: .tables)
        try container.encode(rowsLost, forKey: .rowsLost)
        try container.encode(schemaMatchesFreshInstall, forKey: .schemaMatchesFreshInstall)
        try container.encode(schemaDiff, forKey: .schemaDiff)
    }
}
