import Foundation
import MigrationCore

/// The one-line-per-step progress a person sees on stderr while a job runs.
enum ProgressLine {
    static func describe(_ event: MigrationEvent, launch: Int) -> String? {
        let step = "step \(event.version ?? 0)\(event.name.map { " \"\($0)\"" } ?? "")"
        switch event.event {
        case .stepFinished:
            var text = "launch \(launch): \(step) applied in \(event.elapsedMs ?? 0) ms"
            if let cost = event.costClass { text += " (\(cost.rawValue))" }
            if let rows = event.rows { text += ", \(rows) rows" }
            if let peak = event.space?.peakBytes { text += ", peak \(ByteText.describe(peak))" }
            return text
        case .stepFailed:
            return "launch \(launch): \(event.version == nil ? "stopped" : step): \(event.outcome?.rawValue ?? "failed"): \(event.failure?.message ?? "")"
        default:
            return nil
        }
    }

    static func killed(_ record: LaunchRecord, watchdogMs: Int?) -> String {
        let during = record.cutStep.map { " during step \($0.version ?? 0)" } ?? ""
        let killer = record.run.killedByWatchdog ? "by the \(watchdogMs ?? 0) ms watchdog" : "(SIGKILL)"
        return "launch \(record.number): killed \(killer)\(during) after \(record.run.elapsedMs) ms"
    }
}

/// Byte counts as people read them: "812 KB", "1.3 GB" (powers of 1000).
enum ByteText {
    static func describe(_ bytes: Int64) -> String {
        let units = ["bytes", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) bytes" : String(format: value < 10 ? "%.1f %@" : "%.0f %@", value, units[unit])
    }
}
