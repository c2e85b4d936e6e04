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
            if let peak = event.space?.peakBytes { text += ", peak \(ByteCount.text(peak))" }
            return text
        case .stepFailed:
            return "launch \(launch): \(event.version == nil ? "stopped" : step): \(event.stop?.rawValue ?? "failed"): \(event.failure?.message ?? "")"
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
