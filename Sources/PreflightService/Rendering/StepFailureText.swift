import MigrationCore
import Simulation

/// What happened to a step that did not apply, in one sentence for a CI system's list of
/// failures: "killed by the watchdog at 5,000 ms, 62% through the copy (620,000/1,000,000
/// rows)", "NOT NULL constraint failed: notes.title" (SQLite's message), "not run: step 4
/// stopped the run".
enum StepFailureText {
    static func message(for step: StepReport, in report: Report, plan: Plan?) -> String {
        let failure = report.failure.flatMap { $0.step == step.version ? $0 : nil }
        switch step.status {
        case .applied:
            return "applied"
        case .skipped:
            let stopper = report.failure?.step.map { "step \($0) stopped the run" } ?? "the run stopped before it"
            return "not run: \(stopper)"
        case .failed, .refused:
            return failure?.message ?? report.outcome.meaning
        case .interrupted:
            let launch = report.launches.first { $0.launch == step.launch }
            guard launch?.ended == .killed else {
                // Not a kill: the process died another way (the report's failure says how).
                return "interrupted: \(failure?.message ?? "the migrating process ended during this step")"
            }
            return killed(launch, watchdogMs: report.options.watchdogMs) + ", " + progress(of: step, in: report, plan: plan)
        }
    }

    /// "killed by the watchdog at 5,000 ms" when the launch lasted its whole budget.
    private static func killed(_ launch: LaunchReport?, watchdogMs: Int?) -> String {
        let elapsed = launch?.elapsedMs ?? 0
        if let watchdogMs, elapsed >= watchdogMs {
            return "killed by the watchdog at \(CountText.grouped(watchdogMs)) ms"
        }
        return "killed (SIGKILL) after \(CountText.grouped(elapsed)) ms"
    }

    /// How far the step had come when it was cut: for a chunked step the share of its rows
    /// that its committed batches hold; the total is the rows the step did in the launch
    /// that finished it, else its table's rows in the input.
    private static func progress(of step: StepReport, in report: Report, plan: Plan?) -> String {
        guard let definition = plan?.step(version: step.version),
            var work = ChunkedWork(definition, inputTables: report.input.tables)
        else {
            return step.kind == .sql
                ? "during its transaction, which rolled back"
                : "\(CountText.grouped(step.rows ?? 0)) rows done in committed batches"
        }
        if let finished = report.steps.first(where: { $0.version == step.version && $0.status == .applied })?.rows {
            work.totalRows = finished
        }
        let rows = step.rows ?? 0
        guard rows > 0 else { return "before the first batch of the \(work.activity) committed" }
        guard let percent = work.percent(rows) else { return "\(work.rows(rows)) through the \(work.activity)" }
        return "\(percent)% through the \(work.activity) (\(work.rows(rows)))"
    }
}
