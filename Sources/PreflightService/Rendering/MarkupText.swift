/// Text as it goes into HTML, SVG and XML (the pages and JUnit): everything that comes from
/// a plan, a database or a request passes through `escape` before it is written there.
enum MarkupText {
    /// Escapes text for an element or a quoted attribute of HTML or XML 1.0. A newline
    /// becomes `&#10;`, so that it survives in an attribute (XML folds a raw one into a
    /// space); control characters neither can show, and U+FFFE/U+FFFF, are dropped.
    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\n": result += "&#10;"
            case "\t": result.unicodeScalars.append(scalar)
            case let control where control.value < 0x20 || control.value == 0x7F: continue
            case "\u{FFFE}", "\u{FFFF}": continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
