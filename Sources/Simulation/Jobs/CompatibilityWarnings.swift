import MigrationCore

/// Warnings about a plan for a device: with `sqlite_check: warn`, steps that use an SQL
/// feature newer than the device's SQLite (the same finding that fails the step with
/// `sqlite_check: fail`, `SQLiteFeature`); and destructive statements in plain `sql` steps.
enum CompatibilityWarnings {
    static func check(plan: Plan, target: Int, device: DeviceProfile, sqliteCheck: RunOptions.SQLiteCheck) -> [Warning] {
        var warnings: [Warning] = []
        for step in plan.steps where step.version <= target {
            if sqliteCheck == .warn, let version = device.sqliteVersion {
                for use in step.sqliteFeatures(missingFrom: version) {
                    warnings.append(Warning(
                        code: Failure.Kind.sqliteTooOld.rawValue, step: step.version,
                        message: "\(use.sentence(step: step, on: version, of: "device \"\(device.name)\"")); it ran here only because sqlite_check is warn"))
                }
            }
            if case .sql(let statements) = step.action, statements.contains(where: dropsTable) {
                warnings.append(Warning(
                    code: "destructive_drop", step: step.version,
                    message: "step \(step.version) drops a table: its rows are gone for good, and with secure_delete the drop rewrites every page the table used"))
            }
        }
        return warnings
    }

    /// Whether the text holds `DROP TABLE` as SQLite reads it: not inside strings, quoted
    /// names or comments.
    private static func dropsTable(_ text: String) -> Bool {
        let tokenizer = SQLTokenizer(text)
        let words = tokenizer.filter { !$0.isTrivia }.map { token in
            token.kind == .keyword ? tokenizer.text(token).uppercased() : ""
        }
        return zip(words, words.dropFirst()).contains { $0 == "DROP" && $1 == "TABLE" }
    }
}
