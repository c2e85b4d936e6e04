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
            if case .sql(let statements) = step.action {
                for table in droppedTables(statements) {
                    warnings.append(Warning(
                        code: "destructive_drop", step: step.version,
                        message: "step \(step.version) drops table \(table): its rows are gone for good, and with secure_delete the drop rewrites every page the table used"))
                }
            }
        }
        return warnings
    }

    /// The tables a step's statements drop and do not put back: `DROP TABLE x` as SQLite
    /// reads it (not inside strings, quoted names or comments), unless a later statement of
    /// the step renames another table to `x`, as SQLite's twelve-step table change and Room's
    /// AutoMigrations do (create `_new_x`, copy, drop `x`, rename): those rows live on, and a
    /// row the copy lost is the row check's to find.
    private static func droppedTables(_ statements: [String]) -> [String] {
        var dropped: [String] = []
        for statement in statements {
            let tokenizer = SQLTokenizer(statement)
            let tokens = tokenizer.filter { !$0.isTrivia }
            func word(_ index: Int) -> String {
                index < tokens.count && tokens[index].kind == .keyword ? tokenizer.text(tokens[index]).uppercased() : ""
            }
            func name(_ index: Int) -> String? {
                index < tokens.count ? tokenizer.unquoted(tokens[index]).lowercased() : nil
            }
            for index in tokens.indices {
                if word(index) == "DROP", word(index + 1) == "TABLE" {
                    let at = word(index + 2) == "IF" && word(index + 3) == "EXISTS" ? index + 4 : index + 2
                    if let table = name(at) { dropped.append(table) }
                }
                if word(index) == "RENAME", word(index + 1) == "TO", let table = name(index + 2) {
                    dropped.removeAll { $0 == table }
                }
            }
        }
        return dropped
    }
}
