/// Spelling names and values in the SQL the generator writes.
enum SQLSyntax {
    /// `name` as a double-quoted identifier, so that spaces, keywords ("order") and
    /// non-ASCII letters ("café") all work.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as a single-quoted string literal.
    static func string(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// `name` folded as SQLite compares identifiers: ASCII letters only, so "café" and
    /// "CAFÉ" are two names (and the generator may use both).
    static func fold(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32) ?? scalar : scalar
        }))
    }

    /// `name` with its ASCII letters upper-cased: the same table to SQLite, spelled another way.
    static func asciiUppercased(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            ("a"..."z").contains(scalar) ? Unicode.Scalar(scalar.value - 32) ?? scalar : scalar
        }))
    }
}
