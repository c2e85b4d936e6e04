import MigrationCore

/// The measured shape of a sample database (a fixture, or a file from a device): rows per
/// table and each column's `ColumnShape`, from SQL aggregates on a read-only connection.
/// The sample's rows are never copied out.
public struct SampleShape: Sendable {
    public var userVersion: Int
    /// Rows per table, by the sample's spelling of the table's name.
    public var tableRows: [String: Int]
    /// Per table, per column (both lowercased), the column's shape.
    public var columns: [String: [String: ColumnShape]]
    /// Whether the sample is in WAL mode, so a file made like it is too.
    public var isWAL: Bool

    /// At most this many distinct values make a column "few-valued": its values are kept
    /// with their counts (a status column's 'synced', 'pending').
    static let fewValues = 16

    public static func measure(path: String) throws(SynthesisError) -> SampleShape {
        guard case .database(let header) = DatabaseHeader.read(path: path) else {
            throw SynthesisError(code: "invalid_sample", message: "the sample \(path) is not an SQLite database that can be read")
        }
        do {
            let connection = try Connection(path: path, readOnly: true)
            let schema = try SchemaShape.read(connection)
            var tableRows: [String: Int] = [:]
            var columns: [String: [String: ColumnShape]] = [:]
            for table in schema.tables {
                let quoted = SQLText.quote(table.name)
                let rows = Int(try connection.integer("SELECT count(*) FROM \(quoted)"))
                tableRows[table.name] = rows
                var shapes: [String: ColumnShape] = [:]
                for column in table.columns where rows > 0 {
                    shapes[column.name.lowercased()] = try measure(column, of: quoted, rows: rows, connection)
                }
                columns[table.name.lowercased()] = shapes
            }
            return SampleShape(userVersion: Int(header.userVersion), tableRows: tableRows, columns: columns, isWAL: header.isWAL)
        } catch {
            throw SynthesisError(code: "invalid_sample", message: "cannot measure the sample \(path): \(error.message)")
        }
    }

    private static func measure(
        _ column: SchemaShape.Column, of table: String, rows: Int, _ connection: Connection
    ) throws(SQLiteError) -> ColumnShape {
        let c = SQLText.quote(column.name)
        let sized = "typeof(\(c)) IN ('text', 'blob')"
        let numeric = "typeof(\(c)) IN ('integer', 'real')"
        let row = try connection.rows(
            """
            SELECT count(\(c)), count(DISTINCT \(c)),
                   min(length(\(c))) FILTER (WHERE \(sized)), avg(length(\(c))) FILTER (WHERE \(sized)),
                   max(length(\(c))) FILTER (WHERE \(sized)),
                   min(\(c)) FILTER (WHERE \(numeric)), max(\(c)) FILTER (WHERE \(numeric)),
                   sum(typeof(\(c)) = 'integer'), sum(typeof(\(c)) = 'real'), sum(typeof(\(c)) = 'text'),
                   sum(typeof(\(c)) = 'blob')
            FROM \(table)
            """)[0]
        var shape = ColumnShape.defaults(for: column)
        let present = Int(row[0].integerValue ?? 0)
        shape.nullFraction = Double(rows - present) / Double(rows)
        guard present > 0 else { return shape }
        let counts: [(ColumnShape.Kind, Int64)] = [
            (.integer, row[7].integerValue ?? 0), (.real, row[8].integerValue ?? 0), (.text, row[9].integerValue ?? 0),
            (.blob, row[10].integerValue ?? 0),
        ]
        shape.kind = counts.max { $0.1 < $1.1 }?.0 ?? shape.kind
        let distinct = Int(row[1].integerValue ?? 0)
        shape.distinctShare = Double(distinct) / Double(present)
        if let low = row[2].integerValue, let high = row[4].integerValue, let mean = number(row[3]) {
            (shape.minLength, shape.meanLength, shape.maxLength) = (Int(low), mean, Int(high))
        }
        if let low = number(row[5]), let high = number(row[6]) { (shape.minValue, shape.maxValue) = (low, high) }
        // Few distinct values in a column of many rows: a category, whose values are its shape.
        if distinct <= fewValues, present >= 2 * distinct {
            shape.commonValues = try connection.rows(
                "SELECT \(c), count(*) FROM \(table) WHERE \(c) IS NOT NULL GROUP BY \(c) ORDER BY count(*) DESC, \(c) LIMIT \(fewValues)"
            ).compactMap { value in
                if case .real(let real) = value[0], !real.isFinite { return nil }
                return ColumnShape.CommonValue(literal: value[0].description, count: Int(value[1].integerValue ?? 0))
            }
        }
        return shape
    }

    private static func number(_ value: SQLiteValue) -> Double? {
        switch value {
        case .integer(let number): return Double(number)
        case .real(let number): return number
        default: return nil
        }
    }

    /// The shape of `column` of `table`, when the sample has that table and column.
    func shape(table: String, column: String) -> ColumnShape? {
        columns[table.lowercased()]?[column.lowercased()]
    }
}
