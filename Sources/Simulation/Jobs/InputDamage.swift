import CSQLite
import MigrationCore

/// Damage in the upload, looked for only once a run met some.
///
/// The inspection before the launches reads the schema and the counts, which finds what
/// is no database at all; a quick_check of every page would cost a healthy upload as long
/// as many a migration takes. A damaged page shows itself anyway: the step that reads it
/// fails with SQLITE_CORRUPT, a worker dies on it, or the verification's integrity check
/// finds it in the file left behind. Then a copy of the upload is checked, so that damage
/// the device's file already had ends `invalid_database`, and is not blamed on the plan.
extension JobRun {
    /// `outcome`, or `invalid_database` when the run met damage that the upload already had.
    mutating func blamingDamagedInput(_ outcome: Outcome) -> Outcome {
        guard outcome != .invalidDatabase, metDamage else { return outcome }
        let copy = job.directory.inputCheck
        defer { copy.remove() }
        let checked: WorkerReport?
        do {
            try job.input.copy(to: copy)
            checked = try runReportingWorker(.check)
        } catch let timeLimit as OutOfJobTime {
            failure = timeLimitFailure(timeLimit.phase)
            return .failed
        } catch {
            // The run's own outcome stands: what it met is reported as it was.
            warnings.append(Warning(
                code: "input_not_checked", step: nil,
                message: "the run met damage, but the upload could not be checked for it: \(error)"))
            return outcome
        }
        let readable = checked?.readable ?? "SQLite crashed while reading the file"
        guard readable != "ok" else { return outcome }
        let met = failure.map { "; the run met it: \($0.message)" } ?? ""
        failure = Failure(kind: Failure.Kind.invalidDatabase, message: "\(readable) (the upload itself, before any step ran)\(met)")
        final = nil
        return .invalidDatabase
    }

    /// SQLite said a file is damaged, a worker died on it, or the file left fails its
    /// integrity check.
    private var metDamage: Bool {
        if let code = failure?.sqliteCode, [SQLITE_CORRUPT, SQLITE_NOTADB].contains(code & 0xff) { return true }
        if failure?.kind == Failure.Kind.workerCrashed { return true }
        if let integrity = final?.integrity, integrity != "ok", integrity != Verifier.notChecked { return true }
        return false
    }
}
