import MigrationCore

/// How one column's values look: measured in a sample (`SampleShape`) or, without one,
/// the generator's defaults for the column's affinity. Only aggregates: no row of the
/// sample is ever held here, except the most common values of a column that has few
/// distinct ones (a status, a flag), which are its shape rather than anyone's data.
public struct ColumnShape: Sendable, Equatable {
    /// The storage class most non-NULL values have.
    public enum Kind: String, Sendable {
        case integer, real, text, blob
    }

    public var kind: Kind
    /// The share of rows whose value is NULL, 0...1.
    public var nullFraction: Double
    /// Text and blob lengths (characters, bytes): smallest, mean, largest.
    public var minLength: Int
    public var meanLength: Double
    public var maxLength: Int
    /// Numbers: smallest and largest.
    public var minValue: Double
    public var maxValue: Double
    /// Distinct non-NULL values per non-NULL value, 0...1.
    public var distinctShare: Double
    /// For a column with few distinct values: each (as an SQL literal) with its count.
    public var commonValues: [CommonValue]

    public struct CommonValue: Sendable, Equatable {
        public var literal: String
        public var count: Int
    }

    /// A column with no sample: values of its affinity over a modest range, a tenth NULL
    /// where NULL is allowed.
    static func defaults(for column: SchemaShape.Column) -> ColumnShape {
        let kind: Kind
        switch column.affinity {
        case .text: kind = .text
        case .real: kind = .real
        case .blob where !column.declaredType.isEmpty: kind = .blob
        default: kind = .integer
        }
        let flag = column.declaredType.uppercased().contains("BOOL")
        return ColumnShape(
            kind: kind, nullFraction: column.notNull ? 0 : 0.1, minLength: kind == .blob ? 8 : 4,
            meanLength: kind == .blob ? 36 : 18, maxLength: kind == .blob ? 64 : 32, minValue: 0,
            maxValue: flag ? 1 : (kind == .real ? 1000 : 1_000_000), distinctShare: 1, commonValues: [])
    }
}
