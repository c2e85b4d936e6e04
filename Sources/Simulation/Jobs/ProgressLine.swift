import Foundation
import MigrationCore

/// The progress a person sees on stderr while a job runs: a line when a step settles, and
/// during a long chunked step a line about once a second (by the worker's own clock, the
/// events' `at_ms`) that names the part of the step, such as
///
///     launch 1: step 4 rebuild notes copy 412,000/1,000,000 rows (41%), 1.8 s here
///     launch 9: step 4 rebuild notes purge of the old table 200,000/1,000,000 rows (20%), 0.9 s here
///
/// (the purge's rows are those deleted from the old table, so that the time it takes shows
/// apart from the copy's). Its times are this machine's, and say so ("here"): the device
/// clock's come with the report.
///
/// One value per launch: it remembers when the running step started and when it last
/// said something.
struct ProgressLine {
    /// The least time between two lines about one step's batches.
    static let batchIntervalMs = 1000

    let launch: Int
    let plan: Plan
    /// The input's row counts: the totals of the chunked steps.
    let inputTables: [String: Int64]?
    private var stepStartedAtMs: Int?
    private var lastLineAtMs: Int?
    /// The running step's name: only its `step_started` event carries it.
    private var stepName: String?

    init(launch: Int, plan: Plan, inputTables: [String: Int64]?) {
        self.launch = launch
        self.plan = plan
        self.inputTables = inputTables
    }

    mutating func describe(_ event: MigrationEvent) -> String? {
        if event.event == .stepStarted { stepName = event.name }
        let step = "step \(event.version ?? 0)\((event.name ?? stepName).map { " \"\($0)\"" } ?? "")"
        switch event.event {
        case .stepStarted:
            stepStartedAtMs = event.atMs
            lastLineAtMs = event.atMs
            return nil
        case .phaseStarted:
            // The purge an earlier launch left runs before any step: its time is its own.
            if stepStartedAtMs == nil { stepStartedAtMs = event.atMs }
            return nil
        case .batchCommitted:
            guard let at = event.atMs, let rows = event.rows, let version = event.version,
                let definition = plan.step(version: version), let work = ChunkedWork(definition, inputTables: inputTables)
            else { return nil }
            guard let last = lastLineAtMs else {
                lastLineAtMs = at
                return nil
            }
            guard at - last >= Self.batchIntervalMs else { return nil }
            lastLineAtMs = at
            let elapsed = String(format: "%.1f s here", Double(at - (stepStartedAtMs ?? at)) / 1000)
            // A backfill is one part: its kind names it already.
            let kind = definition.action.kind.rawValue
            let phase = event.phase.flatMap { $0 == kind ? nil : (ChunkPhase(rawValue: $0)?.label ?? $0) + " " } ?? ""
            return "launch \(launch): step \(version) \(kind) \(work.table) \(phase)\(work.progress(rows: rows)), \(elapsed)"
        case .stepFinished:
            // Under a runner that records the version after the path, nothing is durable yet.
            let done = plan.runner.commitsEachStep ? "applied" : "done (not committed yet)"
            var text = "launch \(launch): \(step) \(done) in \(event.elapsedMs ?? 0) ms here"
            if let cost = event.costClass { text += " (\(cost.rawValue))" }
            if let rows = event.rows { text += ", \(rows) rows" }
            if let peak = event.space?.peakBytes { text += ", peak \(ByteCount.text(peak))" }
            return text
        case .versionCommitted:
            return "launch \(launch): version \(event.userVersion ?? 0) committed (runner \(plan.runner.rawValue))"
        case .stepFailed:
            return "launch \(launch): \(event.version == nil ? "stopped" : step): \(event.stop?.rawValue ?? "failed"): \(event.failure?.message ?? "")"
        case .createStarted:
            return "launch \(launch): version \(event.userVersion ?? 0): the framework creates the schema of version \(plan.newestVersion) (its create path, no migration)"
        case .databaseErased:
            return "launch \(launch): \(event.failure?.message ?? "the database was erased")"
        case .opened, .statementStarted, .finished:
            return nil
        }
    }

    static func killed(_ record: LaunchRecord, watchdogMs: Int?) -> String {
        var during = record.cutStepVersion.map { " during step \($0)" } ?? ""
        if let phase = record.cutPhase { during += ", in \(phase)" }
        let killer = record.killedByWatchdog ? "by the \(watchdogMs ?? 0) ms watchdog" : "(SIGKILL)"
        let undone = record.cutUncommittedWork ? "; its uncommitted work rolls back" : ""
        let time = record.deadline.map { "\(Int($0.device.totalMs)) ms of device time (\(record.run.elapsedMs) ms here)" }
            ?? "\(record.run.elapsedMs) ms here"
        return "launch \(record.number): killed \(killer)\(during) after \(time)\(undone)"
    }
}
