/// SQLite's column affinity of a declared type
/// (https://sqlite.org/datatype3.html#determination_of_column_affinity): the first of these
/// rules that matches, in this order.
public enum ColumnAffinity: String, Sendable, Equatable {
    case integer = "INTEGER", text = "TEXT", blob = "BLOB", real = "REAL", numeric = "NUMERIC"

    public init(declaredType: String) {
        let type = declaredType.uppercased()
        if type.contains("INT") {
            self = .integer
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            self = .text
        } else if type.contains("BLOB") || type.isEmpty {
            self = .blob
        } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }
}
