/// Text-level helpers for SQL written by people: splitting a script into statements and
/// quoting identifiers.
public enum SQLText {
    /// The statements of `sql`, split where SQLite splits them (`SQLTokenizer.statementRanges`:
    /// strings, quoted names, comments and trigger bodies are read as SQLite reads them),
    /// each without its `;` and the whitespace around it; blank ones left out.
    public static func statements(in sql: String) -> [String] {
        let tokenizer = SQLTokenizer(sql)
        return tokenizer.statementRanges().map(tokenizer.text)
    }

    /// `name` as a quoted SQL identifier.
    public static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A LIKE pattern, for use with `ESCAPE '\'`, that matches the names starting with
    /// `prefix` (whose `_` and `%` are taken as they are).
    static func likePattern(startingWith prefix: String) -> String {
        prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "_", with: "\\_")
            .replacingOccurrences(of: "%", with: "\\%") + "%"
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }
}
