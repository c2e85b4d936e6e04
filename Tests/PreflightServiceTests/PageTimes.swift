import Foundation

/// The times a page shows a person, read from the DOM a browser built: its text and its
/// tooltips (`<title>` elements and `title` attributes), each time with the word after it,
/// which must name its clock (`device` or `here`, docs/report.md).
struct PageTimes {
    /// Every time shown: "1.1 s device", "77 ms here", "20 s watchdog".
    let shown: [String]

    init(dom: String) {
        var text = dom.replacingOccurrences(of: "<style>[\\s\\S]*?</style>", with: " ", options: .regularExpression)
        // A frame's own page (a matrix cell's report) is a page of its own, read on its own.
        text = text.replacingOccurrences(of: "srcdoc=\"[^\"]*\"", with: "", options: .regularExpression)
        // A tooltip in an attribute is text a person reads too.
        text = text.replacingOccurrences(of: "title=\"([^\"]*)\"", with: ">$1<", options: .regularExpression)
        text = text.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
        for (entity, character) in [("&quot;", "\""), ("&#39;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        shown = text.matches(of: #/\b\d[\d,]*(\.\d+)? (ms|s)\b( \(?[a-z]+)?/#).map { String($0.output.0) }
    }

    /// The times whose next word is no clock.
    var unlabelled: [String] { shown.filter { !$0.hasSuffix(" device") && !$0.hasSuffix(" here") } }

    func count(on clock: String) -> Int { shown.filter { $0.hasSuffix(" " + clock) }.count }
}
