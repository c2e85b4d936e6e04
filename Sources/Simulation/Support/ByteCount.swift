import Foundation

/// Byte counts as people read them ("812 B", "1.5 KiB", "110.2 MiB"): the progress lines
/// of a running job and the text report say sizes the same way.
public enum ByteCount {
    public static func text(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while abs(value) >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}
