import Foundation
import MigrationCore

/// The line a person reads for a migration event, or nil for events not worth a line.
///
///     step 4 title required, category required: 6,000 rows, 3 batches
func progressLine(_ event: MigrationEvent, plan: Plan) -> String? {
    let step = event.version.flatMap { plan.step(version: $0) }.map { "step \($0.version) \($0.name)" }
    switch event.event {
    case .opened:
        let version = "opened at version \(event.userVersion ?? 0)"
        guard let step else { return version }
        // A launch before this one was killed in the middle of a chunked step.
        return "\(version); resuming \(step) after \(counts(event))"
    case .batchCommitted:
        // The copy's rows, or the old table's that its purge removed after the version bump.
        return step.map { "\($0): \(event.phase.map { $0 + " " } ?? "")\(counts(event))" }
    case .stepFinished:
        return step.map { "\($0): applied" + (event.rows == nil ? "" : " (\(counts(event)))") }
    case .finished:
        return "at version \(event.userVersion ?? 0)"
    case .createStarted:
        return "creating the schema (the framework's create path)"
    case .databaseErased:
        return event.failure?.message
    case .stepStarted, .statementStarted, .phaseStarted, .versionCommitted, .stepFailed:
        // The step's batches say it runs (this gate runs per step, so each step commits its
        // version itself); a failure is the migration's ending, told once.
        return nil
    }
}

/// "6,000 rows, 3 batches": the step's totals so far, durable when the event came.
private func counts(_ event: MigrationEvent) -> String {
    let rows = (event.rows ?? 0).formatted(.number.locale(Locale(identifier: "en_US")))
    let batches = event.batches ?? 0
    return "\(rows) rows, \(batches) batch\(batches == 1 ? "" : "es")"
}
