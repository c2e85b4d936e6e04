/// An SQL feature that SQLite added in a given release: a statement that uses it fails on
/// an older SQLite, as it does on a phone whose system SQLite is older than the one the
/// developer tested with. Each release is the one SQLite's release log names
/// (https://sqlite.org/changes.html; docs/FIDELITY.md lists them with their entries).
public struct SQLiteFeature: Sendable, Hashable {
    /// What a person calls it: "ALTER TABLE DROP COLUMN", "the function iif()".
    public let name: String
    public let introduced: SQLiteVersion
    /// How an older SQLite refuses a statement that uses it, when the statement does not
    /// say more (a syntax error names the token the older parser stops at: `near`).
    public let olderSQLiteSays: String

    // MARK: - Syntax, by release

    public static let trueFalse = SQLiteFeature(
        name: "the constants TRUE and FALSE", introduced: SQLiteVersion(3, 23, 0),
        olderSQLiteSays: "\"no such column\" (before 3.23.0 TRUE and FALSE are names)")
    public static let upsert = syntax("UPSERT (ON CONFLICT ... DO)", 3, 24)
    public static let renameColumn = syntax("ALTER TABLE RENAME COLUMN", 3, 25)
    public static let windowFunctions = syntax("window functions (OVER)", 3, 25)
    public static let aggregateFilter = syntax("FILTER on an aggregate", 3, 30)
    public static let nullsOrder = syntax("NULLS FIRST / NULLS LAST", 3, 30)
    public static let generatedColumns = syntax("generated columns", 3, 31)
    public static let updateFrom = syntax("UPDATE ... FROM", 3, 33)
    public static let schemaTableName = SQLiteFeature(
        name: "the name sqlite_schema", introduced: SQLiteVersion(3, 33, 0),
        olderSQLiteSays: "\"no such table: sqlite_schema\" (older releases know only sqlite_master)")
    public static let dropColumn = syntax("ALTER TABLE DROP COLUMN", 3, 35)
    public static let returning = syntax("RETURNING", 3, 35)
    public static let materializedHint = syntax("MATERIALIZED / NOT MATERIALIZED", 3, 35)
    public static let upsertChain = syntax("several ON CONFLICT clauses, or DO UPDATE without a conflict target", 3, 35)
    public static let strictTables = SQLiteFeature(
        name: "STRICT tables", introduced: SQLiteVersion(3, 37, 0), olderSQLiteSays: "\"unknown table option: STRICT\"")
    public static let jsonOperators = syntax("the JSON operators -> and ->>", 3, 38)
    public static let outerJoins = SQLiteFeature(
        name: "RIGHT and FULL OUTER JOIN", introduced: SQLiteVersion(3, 39, 0),
        olderSQLiteSays: "\"RIGHT and FULL OUTER JOINs are not currently supported\"")
    public static let distinctFrom = syntax("IS [NOT] DISTINCT FROM", 3, 39)
    public static let havingWithoutGroupBy = SQLiteFeature(
        name: "HAVING without GROUP BY", introduced: SQLiteVersion(3, 39, 0),
        olderSQLiteSays: "\"a GROUP BY clause is required before HAVING\"")
    public static let aggregateOrderBy = syntax("ORDER BY inside an aggregate call", 3, 44)
    /// `string_agg(...) OVER (...)`: Preflight defines `string_agg` as an aggregate only.
    public static let stringAggWindow = SQLiteFeature(
        name: "the aggregate function string_agg() as a window function", introduced: SQLiteVersion(3, 44, 0),
        olderSQLiteSays: "\"no such function: string_agg\"")

    /// From this release `ALTER TABLE ... ADD COLUMN` checks a new CHECK constraint against
    /// the rows already there (release log 3.37.0, item 2); before, it added the column.
    public static let addColumnChecksRows = SQLiteVersion(3, 37, 0)

    // MARK: - Functions

    /// The built-in functions that came after 3.22 (the oldest SQLite the shipped device
    /// profiles hold), by name as SQLite folds it.
    static let functions: [String: (version: SQLiteVersion, kind: String)] = {
        var table: [String: (SQLiteVersion, String)] = [
            "iif": (SQLiteVersion(3, 32, 0), "the function"),
            "unixepoch": (SQLiteVersion(3, 38, 0), "the function"),
            "format": (SQLiteVersion(3, 38, 0), "the function"),
            "unhex": (SQLiteVersion(3, 41, 0), "the function"),
            "json_error_position": (SQLiteVersion(3, 42, 0), "the JSON function"),
            "octet_length": (SQLiteVersion(3, 43, 0), "the function"),
            "timediff": (SQLiteVersion(3, 43, 0), "the function"),
            "concat": (SQLiteVersion(3, 44, 0), "the function"),
            "concat_ws": (SQLiteVersion(3, 44, 0), "the function"),
            "string_agg": (SQLiteVersion(3, 44, 0), "the aggregate function"),
            "json_pretty": (SQLiteVersion(3, 46, 0), "the JSON function"),
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
        // JSONB, the binary form of JSON.
        for name in [
            "jsonb", "jsonb_array", "jsonb_extract", "jsonb_insert", "jsonb_object", "jsonb_patch", "jsonb_remove",
            "jsonb_replace", "jsonb_set", "jsonb_group_array", "jsonb_group_object",
        ] {
            table[name] = (SQLiteVersion(3, 45, 0), "the JSONB function")
        }
        return table
    }()

    /// The function `name` (any case) as a feature, if it is one of `functions`.
    static func function(_ name: String) -> SQLiteFeature? {
        let folded = name.asciiLowercased()
        guard let entry = functions[folded] else { return nil }
        var says = "\"no such function: \(folded)\""
        if entry.kind == "the JSON function" && entry.version == SQLiteVersion(3, 38, 0) {
            says += " unless the platform compiled JSON1 in (optional before 3.38.0; if it did, use sqlite_check warn)"
        }
        return SQLiteFeature(name: "\(entry.kind) \(folded)()", introduced: entry.version, olderSQLiteSays: says)
    }

    /// Whether an older SQLite refuses the feature with "near ...: syntax error".
    var isSyntax: Bool { olderSQLiteSays == Self.syntaxError }

    private static let syntaxError = "a syntax error"

    private static func syntax(_ name: String, _ major: Int, _ minor: Int) -> SQLiteFeature {
        SQLiteFeature(name: name, introduced: SQLiteVersion(major, minor, 0), olderSQLiteSays: syntaxError)
    }
}

/// One statement of a step that uses a feature.
public struct SQLiteFeatureUse: Sendable, Equatable {
    public var feature: SQLiteFeature
    /// The statement as the step runs it (for a rebuild or backfill: as Preflight writes it
    /// from the step's parts).
    public var statement: String
    /// For a syntax feature, the token (as written) at which an older parser stops: its
    /// error is `near "NULLS": syntax error`. Nil where that token is not known.
    public var near: String?

    public init(feature: SQLiteFeature, statement: String, near: String? = nil) {
        self.feature = feature
        self.statement = statement
        self.near = near
    }

    /// SQLite's own message on a release older than the feature, as near as it is known.
    public var olderSQLiteSays: String {
        guard feature.isSyntax, let near else { return feature.olderSQLiteSays }
        return "the error near \"\(near)\": syntax error"
    }

    /// What happens on `version`, the SQLite of `owner`, for a message about `step`: "step
    /// 2 ("drop body") uses ALTER TABLE DROP COLUMN, which SQLite 3.35.0 introduced; SQLite
    /// 3.28 (the device's) fails the statement with the error near "DROP": syntax error".
    public func sentence(step: Step, on version: SQLiteVersion, of owner: String) -> String {
        "step \(step.version) (\"\(step.name)\") uses \(feature.name), which SQLite \(feature.introduced) introduced; SQLite \(version) (\(owner)) fails the statement with \(olderSQLiteSays)"
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
        sqliteFeatures().filter { $0.feature.introduced > version }
    }

    /// Every use of a feature added after 3.22 in this step.
    func sqliteFeatures() -> [SQLiteFeatureUse] {
        statementsAsRun.flatMap { statement in
            SQLiteFeatureScanner(statement).uses().map {
                SQLiteFeatureUse(feature: $0.feature, statement: statement, near: $0.near)
            }
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
    /// device's SQLite would give; nil when the step can run there, or when the settings
    /// only warn.
    func sqliteFailure(of step: Step) -> Failure? {
        guard refusesNewerSQL, let sqliteVersion, let use = step.sqliteFeatures(missingFrom: sqliteVersion).first else {
            return nil
        }
        return use.failure(step: step, on: sqliteVersion)
    }
}

extension Failure.Kind {
    /// A step used an SQL feature newer than the device's SQLite (`sqlite_check: fail`).
    public static let sqliteTooOld = Failure.Kind(rawValue: "sqlite_too_old")
}
