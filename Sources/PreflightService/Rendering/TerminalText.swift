/// Text bound for a terminal, made harmless: step names, plan names, SQLite's messages and
/// statements come from plans and databases that Preflight did not write, and an escape
/// sequence in one (`ESC ] 52` to set the clipboard, `ESC [ 2 J` to clear the screen, a
/// title change) would act on the terminal of whoever reads the summary or the log.
///
/// Removes every C0 control (U+0000-U+001F, ESC among them), DEL and every C1 control
/// (U+0080-U+009F, which some terminals read as escape sequences of their own). What is
/// left of a sequence (`[31m`) shows as plain text.
public enum TerminalText {
    /// `text` for a multi-line message: newlines and tabs stay, as its layout may need them.
    public static func message(_ text: String) -> String {
        filtered(text) { $0 == "\n" || $0 == "\t" ? $0 : nil }
    }

    /// `text` for one field of one line (a step name in a table): newlines and tabs become
    /// spaces, so that the field cannot break the line it sits in.
    public static func field(_ text: String) -> String {
        filtered(text) { $0 == "\n" || $0 == "\t" || $0 == "\r" ? " " : nil }
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Keeps every scalar that is not a control; a control is replaced by what `replacement`
    /// answers for it, or dropped.
    private static func filtered(_ text: String, replacement: (Unicode.Scalar) -> Unicode.Scalar?) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if !isControl(scalar) {
                result.append(scalar)
            } else if let kept = replacement(scalar) {
                result.append(kept)
            }
        }
        return String(result)
    }
}
