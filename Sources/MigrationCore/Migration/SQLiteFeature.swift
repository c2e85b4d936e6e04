/// An SQL feature that SQLite added in a given release: a statement that uses it fails on
/// an older SQLite, as it does on a phone whose system SQLite is older than the one the
/// developer tested with (https://sqlite.org/changes.html).
public struct SQLiteFeature: Sendable, Hashable {
    /// What a person calls it: "ALTER TABLE DROP COLUMN", "the function iif()".
    public let name: String
    public let introduced: SQLiteVersion
    /// How an older SQLite refuses a statement that uses it.
    public let olderSQLiteSays: String

    public static let upsert = syntax("UPSERT (ON CONFLICT ... DO)", 3, 24)
    public static let renameColumn = syntax("ALTER TABLE RENAME COLUMN", 3, 25)
    public static let windowFunctions = syntax("window functions (OVER)", 3, 25)
    public static let generatedColumns = syntax("generated columns", 3, 31)
    public static let dropColumn = syntax("ALTER TABLE DROP COLUMN", 3, 35)
    public static let returning = syntax("RETURNING", 3, 35)
    public static let strictTables = SQLiteFeature(
        name: "STRICT tables", introduced: SQLiteVersion(3, 37, 0), olderSQLiteSays: "\"unknown table option: STRICT\"")
    public static let jsonOperators = syntax("the JSON operators -> and ->>", 3, 38)

    /// The built-in functions that came after 3.22 (the oldest SQLite the shipped device
    /// profiles hold), by name as SQLite folds it.
    static let functions: [String: (version: SQLiteVersion, kind: String)] = {
        var table: [String: (SQLiteVersion, String)] = [
            "iif": (SQLiteVersion(3, 32, 0), "the function"),
            "unixepoch": (SQLiteVersion(3, 38, 0), "the function"),
        ]
        // Math functions exist from 3.35.0 only where SQLITE_ENABLE_MATH_FUNCTIONS was set.
        for name in [
            "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh", "degrees",
            "exp", "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power", "radians", "sin", "sinh", "sqrt",
            "tan", "tanh", "trunc",
        ] {
            table[name] = (SQLiteVersion(3, 35, 0), "the math function")
        }
        // Built in from 3.38.0; before it, only where the platform compiled JSON1 in.
        for name in [
            "json", "json_array", "json_array_length", "json_extract", "json_insert", "json_object", "json_patch",
            "json_remove", "json_replace", "json_set", "json_type", "json_valid", "json_quote", "json_group_array",
            "json_group_object", "json_each", "json_tree",
        ] {
            table[name] = (SQLiteVersion(3, 38, 0), "the JSON function")
        }
        return table
    }()

    /// The function `name` (any case) as a feature, if it is one of `functions`.
    static func function(_ name: String) -> SQLiteFeature? {
        let folded = name.asciiLowercased()
        guard let entry = functions[folded] else { return nil }
        var says = "\"no such function: \(folded)\""
        if entry.kind == "the JSON function" {
            says += " unless the platform compiled JSON1 in (optional before 3.38.0; if it did, use sqlite_check warn)"
        }
        return SQLiteFeature(name: "\(entry.kind) \(folded)()", introduced: entry.version, olderSQLiteSays: says)
    }

    private static func syntax(_ name: String, _ major: Int, _ minor: Int) -> SQLiteFeature {
        SQLiteFeature(name: name, introduced: SQLiteVersion(major, minor, 0), olderSQLiteSays: "a syntax error")
    }
}

/// One statement of a step that uses a feature.
public struct SQLiteFeatureUse: Sendable, Equatable {
    public var feature: SQLiteFeature
    /// The statement as the step runs it (for a rebuild or backfill: as Preflight writes it
    /// from the step's parts).
    public var statement: String

    /// What happens on `version`, the SQLite of `owner`, for a message about `step`: "step
    /// 2 ("drop body") uses ALTER TABLE DROP COLUMN, which SQLite 3.35.0 introduced; SQLite
    /// 3.28 (the device's) fails the statement with a syntax error".
    public func sentence(step: Step, on version: SQLiteVersion, of owner: String) -> String {
        "step \(step.version) (\"\(step.name)\") uses \(feature.name), which SQLite \(feature.introduced) introduced; SQLite \(version) (\(owner)) fails the statement with \(feature.olderSQLiteSays)"
    }

    /// The failure of `step` on a device whose SQLite is `version`: what the device's own
    /// SQLite would answer (SQLITE_ERROR), at the statement that uses the feature.
    func failure(step: Step, on version: SQLiteVersion) -> Failure {
        Failure(
            kind: Failure.Kind.sqliteTooOld, step: step.version,
            message: "\(sentence(step: step, on: version, of: "the device's")), so the step rolled back",
            statement: statement, sqliteCode: 1)
    }
}

extension Step {
    /// Every use of a feature newer than `version` in this step, in the order of its
    /// statements, each feature once per statement.
    public func sqliteFeatures(missingFrom version: SQLiteVersion) -> [SQLiteFeatureUse] {
        statementsAsRun.flatMap { statement in
            SQLiteFeatureScanner(statement).features()
                .filter { $0.introduced > version }
                .map { SQLiteFeatureUse(feature: $0, statement: statement) }
        }
    }

    /// The statements SQLite parses for this step. A rebuild's and a backfill's parts are
    /// fragments (a table body, an expression list); here they are whole statements again,
    /// so that each part is read in its place, as the statements Preflight runs hold it.
    var statementsAsRun: [String] {
        switch action {
        case .sql(let scripts):
            return scripts.flatMap { script in
                let tokenizer = SQLTokenizer(script)
                return tokenizer.statementRanges().map { tokenizer.text($0) }
            }
        case .rebuild(let rebuild):
            let table = SQLText.quote(rebuild.table)
            return ["CREATE TABLE \(table)(\(rebuild.columns))" + (rebuild.options.map { " " + $0 } ?? ""),
                "SELECT \(rebuild.select) FROM \(table)" + (rebuild.filter.map { " WHERE " + $0 } ?? "")]
                + (rebuild.indexes ?? []) + (rebuild.triggers ?? [])
        case .backfill(let backfill):
            return ["UPDATE \(SQLText.quote(backfill.table)) SET \(backfill.set)" + (backfill.filter.map { " WHERE " + $0 } ?? "")]
        }
    }
}

extension MigrationSettings {
    /// The first use in `step` of a feature that `sqliteVersion` lacks, as the failure the
    /// device's SQLite would give; nil when the step can run there.
    func sqliteFailure(of step: Step) -> Failure? {
        guard let sqliteVersion, let use = step.sqliteFeatures(missingFrom: sqliteVersion).first else { return nil }
        return use.failure(step: step, on: sqliteVersion)
    }
}

extension Failure.Kind {
    /// A step used an SQL feature newer than the device's SQLite (`sqlite_check: fail`).
    public static let sqliteTooOld = "sqlite_too_old"
}
