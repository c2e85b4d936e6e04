import CSQLite

/// Text-level helpers for SQL written by people: splitting a script into statements and
/// quoting identifiers.
public enum SQLText {
    /// The complete statements of `sql`, trimmed, without empty ones. Uses
    /// `sqlite3_complete`, which knows about strings, comments and trigger bodies.
    public static func statements(in sql: String) -> [String] {
        var result: [String] = []
        var current = ""
        for character in sql {
            current.append(character)
            if character == ";" && sqlite3_complete(current) != 0 {
                appendIfNotBlank(current, to: &result)
                current = ""
            }
        }
        appendIfNotBlank(current, to: &result)
        return result
    }

    private static func appendIfNotBlank(_ statement: String, to result: inout [String]) {
        var trimmed = statement.trimmingWhitespace()
        while trimmed.hasSuffix(";") {
            trimmed.removeLast()
            trimmed = trimmed.trimmingWhitespace()
        }
        if !stripComments(trimmed).trimmingWhitespace().isEmpty { result.append(trimmed) }
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

    /// `sql` without `--` and `/* */` comments (strings and quoted names kept intact).
    public static func stripComments(_ sql: String) -> String {
        var result = ""
        var iterator = Array(sql)[...]
        while let character = iterator.first {
            switch character {
            case "'", "\"", "`", "[":
                let closing: Character = character == "[" ? "]" : character
                result.append(character)
                iterator = iterator.dropFirst()
                while let next = iterator.first {
                    result.append(next)
                    iterator = iterator.dropFirst()
                    if next == closing { break }
                }
            case "-" where iterator.dropFirst().first == "-":
                while let next = iterator.first, next != "\n" { iterator = iterator.dropFirst() }
            case "/" where iterator.dropFirst().first == "*":
                iterator = iterator.dropFirst(2)
                while !iterator.isEmpty && !(iterator.first == "*" && iterator.dropFirst().first == "/") {
                    iterator = iterator.dropFirst()
                }
                iterator = iterator.dropFirst(2)
                result.append(" ")
            default:
                result.append(character)
                iterator = iterator.dropFirst()
            }
        }
        return result
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
