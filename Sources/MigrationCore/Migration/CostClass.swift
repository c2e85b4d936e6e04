/// What a step cost in terms of rows touched.
public enum CostClass: String, Sendable, Codable, Comparable {
    /// O(1) in rows: schema changes SQLite makes without touching rows.
    case metadata
    /// An index built over existing rows.
    case index
    /// Rows updated, inserted or deleted in place.
    case data
    /// A table's rows copied into a new table.
    case rewrite

    private var weight: Int {
        switch self {
        case .metadata: return 0
        case .data: return 1
        case .index: return 2
        case .rewrite: return 3
        }
    }

    public static func < (lhs: CostClass, rhs: CostClass) -> Bool { lhs.weight < rhs.weight }
}
