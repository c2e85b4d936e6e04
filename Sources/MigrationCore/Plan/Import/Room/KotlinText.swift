/// Kotlin's `String.trimIndent()` and `String.trimMargin()`, as kotlin-stdlib's Indent.kt
/// defines them, for the raw strings an app hands to `execSQL`.
enum KotlinText {
    /// `trimIndent()`: the first and last lines go when blank, and the indentation every
    /// other non-blank line shares is removed from each.
    static func trimIndent(_ text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        dropBlankEnds(&lines)
        return removingCommonIndent(lines, isTextBlock: false)
    }

    /// `trimMargin(prefix)`: the first and last lines go when blank; a line whose first
    /// non-blank characters are the prefix loses everything up to and including it.
    static func trimMargin(_ text: String, prefix: String = "|") -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        dropBlankEnds(&lines)
        return lines.map { line in
            guard let start = line.firstIndex(where: { !$0.isWhitespace }), line[start...].hasPrefix(prefix) else {
                return line
            }
            return String(line[line.index(start, offsetBy: prefix.count)...])
        }.joined(separator: "\n")
    }

    /// The lines without the indentation their non-blank lines share. A Java text block
    /// (`isTextBlock`) counts its closing line's indentation too and loses each line's
    /// trailing blanks.
    static func removingCommonIndent(_ lines: [String], isTextBlock: Bool) -> String {
        let counted = lines.enumerated().filter { offset, line in
            !line.allSatisfy(\.isWhitespace) || (isTextBlock && offset == lines.count - 1)
        }
        let indent = counted.map { $0.element.prefix(while: \.isWhitespace).count }.min() ?? 0
        return lines.map { line in
            let cut = String(line.dropFirst(indent))
            guard isTextBlock, let end = cut.lastIndex(where: { !$0.isWhitespace }) else { return isTextBlock ? "" : cut }
            return String(cut[...end])
        }.joined(separator: "\n")
    }

    private static func dropBlankEnds(_ lines: inout [String]) {
        if let first = lines.first, first.allSatisfy(\.isWhitespace) { lines.removeFirst() }
        if let last = lines.last, last.allSatisfy(\.isWhitespace) { lines.removeLast() }
    }
}
