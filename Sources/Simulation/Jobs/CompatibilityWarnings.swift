import MigrationCore

/// Warnings about a plan for a device: steps that need a newer SQLite than the device
/// ships, and destructive statements in plain `sql` steps.
enum CompatibilityWarnings {
    /// SQL features and the SQLite version that introduced them (https://sqlite.org/changes.html).
    private static let features: [(pattern: [String], version: String, name: String)] = [
        (["DROP", "COLUMN"], "3.35.0", "ALTER TABLE DROP COLUMN"),
        (["RENAME", "COLUMN"], "3.25.0", "ALTER TABLE RENAME COLUMN"),
        (["RETURNING"], "3.35.0", "RETURNING"),
        (["STRICT"], "3.37.0", "STRICT tables"),
        (["GENERATED", "ALWAYS"], "3.31.0", "generated columns"),
        (["OVER"], "3.25.0", "window functions"),
        (["DO", "UPDATE"], "3.24.0", "UPSERT"),
        (["DO", "NOTHING"], "3.24.0", "UPSERT"),
        (["IIF"], "3.32.0", "iif()"),
        (["UNIXEPOCH"], "3.38.0", "unixepoch()"),
    ]

    static func check(plan: Plan, target: Int, device: DeviceProfile) -> [Warning] {
        var warnings: [Warning] = []
        for step in plan.steps where step.version <= target {
            let words = wordsOf(step)
            if let minimum = device.minSQLiteVersion {
                for feature in features where contains(words, feature.pattern) && isOlder(minimum, than: feature.version) {
                    warnings.append(Warning(
                        code: "sqlite_too_old", step: step.version,
                        message: "step \(step.version) uses \(feature.name), which needs SQLite \(feature.version); device \"\(device.name)\" may ship SQLite \(minimum)"))
                }
            }
            if case .sql = step.action, contains(words, ["DROP", "TABLE"]) {
                warnings.append(Warning(
                    code: "destructive_drop", step: step.version,
                    message: "step \(step.version) drops a table: its rows are gone for good, and with secure_delete the drop rewrites every page the table used"))
            }
        }
        return warnings
    }

    private static func wordsOf(_ step: Step) -> [String] {
        let texts: [String]
        switch step.action {
        case .sql(let statements): texts = statements
        case .rebuild(let rebuild): texts = [rebuild.columns, rebuild.select, rebuild.options ?? ""] + (rebuild.indexes ?? []) + (rebuild.triggers ?? [])
        case .backfill(let backfill): texts = [backfill.set, backfill.filter ?? ""]
        }
        // The words SQLite reads, not those inside strings, quoted names or comments.
        return texts.flatMap { text in
            let tokenizer = SQLTokenizer(text)
            return tokenizer.filter { $0.kind == .keyword || $0.kind == .identifier }.map { tokenizer.text($0).uppercased() }
        }
    }

    private static func contains(_ words: [String], _ pattern: [String]) -> Bool {
        guard words.count >= pattern.count else { return false }
        return (0...(words.count - pattern.count)).contains { Array(words[$0..<$0 + pattern.count]) == pattern }
    }

    /// Compares dotted versions numerically: "3.22.0" is older than "3.25.0".
    private static func isOlder(_ version: String, than other: String) -> Bool {
        let lhs = version.split(separator: ".").map { Int($0) ?? 0 }
        let rhs = other.split(separator: ".").map { Int($0) ?? 0 }
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0, right = index < rhs.count ? rhs[index] : 0
            if left != right { return left < right }
        }
        return false
    }
}
