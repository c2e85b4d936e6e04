/// Counts as people read them in progress lines and failure messages: `412,000`, and a
/// share of a whole as a percentage that says 100% only when the whole is done.
public enum CountText {
    /// Digits in groups of three: `1,000,000`.
    public static func grouped(_ value: Int64) -> String {
        let digits = String(value.magnitude)
        var groups: [Substring] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(digits[start..<end], at: 0)
            end = start
        }
        return (value < 0 ? "-" : "") + groups.joined(separator: ",")
    }

    public static func grouped(_ value: Int) -> String { grouped(Int64(value)) }

    /// `part` of `whole` in whole percent, rounded down and at most 100: 999 of 1,000 rows
    /// is 99%, not a finished 100%.
    public static func percent(_ part: Int64, of whole: Int64) -> Int {
        guard whole > 0 else { return 0 }
        return Int(min(100, max(0, part) * 100 / whole))
    }
}
