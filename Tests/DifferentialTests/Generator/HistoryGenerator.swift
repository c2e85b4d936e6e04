import Foundation
import TestSupport

/// A generated migration history: the case both runs take, and what the generator put in it.
struct GeneratedHistory: Sendable {
    var seed: UInt64
    var testCase: DifferentialCase
    /// Every kind of construct the history contains, sorted.
    var constructs: [Construct]
    var steps: [GeneratedStep]
}

/// One step of a history: what the plan says, and what the oracle runs instead.
struct GeneratedStep: Sendable {
    enum Action: Sendable {
        case sql([String])
        case rebuild(RebuildDefinition)
        case backfill(BackfillDefinition)
    }

    /// How a `sql` step's statements are written in the plan (docs/CONTRACT.md §1 allows each).
    enum Form: Sendable, Equatable {
        /// One array element per statement.
        case array
        /// One string of all the statements, each ended by `;`, after a `--` comment line when given.
        case script(comment: String?)
        /// An array of strings, some holding several statements.
        case chunks
    }

    var name: String
    var action: Action
    /// `"row_loss": "allowed"`: the step may remove rows on purpose.
    var rowLoss: Bool
    /// The plain SQL the oracle runs for the step (for `sql`, the same statements).
    var oracle: [String]
    var form = Form.array
}

/// A `rebuild` step's fields (docs/CONTRACT.md §1).
struct RebuildDefinition: Sendable {
    var table: String
    var columns: String
    var select: String
    var filter: String?
    var options: String?
    var batchRows: Int
    var indexes: [String]?
    var triggers: [String]?
}

/// A `backfill` step's fields (docs/CONTRACT.md §1).
struct BackfillDefinition: Sendable {
    var table: String
    var set: String
    var filter: String?
    var batchRows: Int
}

/// Builds a random but valid schema history from a seed: version 1 creates several
/// tables, every later step evolves them with SQL that SQLite accepts from the state the
/// model says the database is in, whether it was seeded with rows or started empty.
///
///     let history = HistoryGenerator.generate(seed: 1234)
///     let found = try Differential.discrepancies(history.testCase, from: .seeded)
///
/// Only what the model can guarantee is emitted: values come from pools that satisfy each
/// column's constraints, keys and UNIQUE values are drawn once, foreign keys name parents
/// through subqueries (NULL when there is no such row), deletes cascade by hand because
/// the oracle's connection does not enforce foreign keys (Preflight's does when the plan
/// says `"foreign_keys": "on"`), and a step that may remove rows says so. `constructs`
/// records what was emitted, for the coverage test.
final class HistoryGenerator {
    var rng: SplitMix64
    var model = SchemaModel()
    var fresh = FreshValues()
    private(set) var constructs: Set<Construct> = []
    /// True while the seed rows are written: the values used then are recorded.
    var seeding = false
    /// The plan's `foreign_keys`: whether Preflight's connection enforces them. The oracle's
    /// never does, which is the same as long as no ON DELETE action or check ever fires:
    /// deletes cascade by hand first, and nothing drops a table other tables reference.
    var foreignKeys = false
    /// The version of the step being generated.
    var version = 1

    /// The smallest and largest number of steps after version 1.
    static let laterSteps = 3...9

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    static func generate(seed: UInt64) -> GeneratedHistory {
        HistoryGenerator(seed: seed).history(seed: seed)
    }

    func note(_ construct: Construct) { constructs.insert(construct) }

    func note(_ kinds: [Construct]) { for kind in kinds { note(kind) } }

    // MARK: - The history

    private func history(seed: UInt64) -> GeneratedHistory {
        foreignKeys = rng.chance(30)
        if foreignKeys { note(.foreignKeysOn) }
        var steps = [firstStep()]
        let seedSQL = seedRows()
        for next in 2...(1 + rng.int(Self.laterSteps)) {
            version = next
            steps.append(laterStep())
        }
        for index in steps.indices { steps[index].form = form(for: steps[index]) }
        let name = "generated-\(seed)"
        let document = PlanWriter.document(name: name, foreignKeys: foreignKeys, steps: steps)
        let testCase = DifferentialCase(
            name: name, planDocument: document, oracleSteps: steps.map(\.oracle), seedSQL: seedSQL)
        return GeneratedHistory(seed: seed, testCase: testCase, constructs: constructs.sorted(), steps: steps)
    }

    /// Version 1: several tables, perhaps with indexes, a trigger, a view and an FTS5 table.
    private func firstStep() -> GeneratedStep {
        var statements: [String] = []
        for _ in 0..<rng.int(2...4) { statements += createTable().statements }
        if rng.chance(35), let created = createFullText(fill: false) { statements += created.statements }
        for _ in 0..<rng.int(0...2) {
            if let created = createIndex() { statements += created.statements }
        }
        if rng.chance(45), let created = createTrigger() { statements += created.statements }
        if rng.chance(40), let created = createView() { statements += created.statements }
        return GeneratedStep(name: "create the schema", action: .sql(statements), rowLoss: false, oracle: statements)
    }

    /// Rows for every table of version 1, or nil when the generator chose to leave it empty.
    private func seedRows() -> String? {
        seeding = true
        defer { seeding = false }
        var statements: [String] = []
        for table in model.ordinaryTables {
            statements += seedStatements(table)
        }
        if let fullText = model.fullText, rng.chance(80) {
            statements.append(fullTextInsert(fullText, rows: rng.int(1...4)))
            model.fullText?.writes += 1
        }
        return statements.isEmpty ? nil : statements.map { $0 + ";" }.joined(separator: "\n")
    }

    /// One step after version 1: a Preflight rebuild or backfill, the hand-written
    /// rebuild, or a `sql` step of one to three schema and data changes.
    private func laterStep() -> GeneratedStep {
        switch rng.weighted([18, 12, 9, 61]) {
        case 0?: if let step = preflightRebuild() { return step }
        case 1?: if let step = backfill() { return step }
        case 2?: if let step = manualRebuild() { return step }
        default: break
        }
        var statements: [String] = []
        var names: [String] = []
        var rowLoss = false
        for _ in 0..<rng.int(1...3) {
            guard let change = sqlChange() else { continue }
            statements += change.statements
            names.append(change.name)
            rowLoss = rowLoss || change.rowLoss
        }
        if statements.isEmpty {
            // Always possible: a table to hold what the step would have done.
            let change = createTable()
            statements = change.statements
            names = [change.name]
        }
        return GeneratedStep(
            name: names.joined(separator: ", "), action: .sql(statements), rowLoss: rowLoss, oracle: statements)
    }

    /// Mostly an array of statements; sometimes one script (perhaps after a comment) or
    /// chunks of several statements, which Preflight must split as SQLite would.
    private func form(for step: GeneratedStep) -> GeneratedStep.Form {
        guard case .sql(let statements) = step.action, statements.count > 1 || rng.chance(30) else { return .array }
        switch rng.weighted([60, 25, 15]) {
        case 1?:
            let comment = rng.chance(50) ? "version \(step.name)" : nil
            note(.sqlScript)
            if comment != nil { note(.sqlComment) }
            return .script(comment: comment)
        case 2? where statements.count > 1:
            note(.sqlChunks)
            return .chunks
        default:
            return .array
        }
    }

    /// What one part of a `sql` step does.
    struct Change {
        var name: String
        var statements: [String]
        var rowLoss = false
    }

    /// One random change that applies to the current schema, or nil after a few tries.
    private func sqlChange() -> Change? {
        let makers: [(weight: Int, make: () -> Change?)] = [
            (10, addColumn), (6, renameColumn), (4, renameTable), (6, dropColumn),
            (7, createIndex), (2, dropIndex), (5, createTrigger), (2, dropTrigger),
            (4, createView), (1, dropView), (4, { self.createTable() }), (3, createTableFilled),
            (2, dropTable), (10, insertRows), (6, updateRows), (5, deleteRows),
            (2, { self.createFullText(fill: true) }), (3, insertFullText), (1, deleteFullText),
        ]
        for _ in 0..<6 {
            guard let choice = rng.weighted(makers.map(\.weight)) else { return nil }
            if let change = makers[choice].make() { return change }
        }
        return nil
    }

    // MARK: - Names

    static let tableNames = [
        "notes", "users", "order items", "café", "group", "tags", "attachments", "séances", "folders",
        "messages", "select", "accounts", "book marks", "ユーザー", "values", "drafts", "l'été", "say \"hi\"",
        "100%_done", "CAFÉ", "Séances",
    ]
    static let columnNames = [
        "title", "body", "order", "group", "café", "first name", "value", "status", "naïve", "amount",
        "label", "size", "from", "data", "score", "kind", "note", "ville", "last seen", "index", "prix €",
        "it's", "wei\"rd", "50%_off", "CAFÉ", "NAÏVE",
    ]
    static let keywords: Set<String> = ["order", "group", "select", "from", "values", "index", "key", "table"]

    /// Records what kind of identifier `name` is.
    func noteIdentifier(_ name: String) {
        if name.contains(" ") { note(.identifierWithSpace) }
        if Self.keywords.contains(SQLSyntax.fold(name)) { note(.keywordIdentifier) }
        if name.unicodeScalars.contains(where: { !$0.isASCII }) { note(.nonASCIIIdentifier) }
        if name.contains("\"") || name.contains("'") { note(.identifierWithQuote) }
        if name.contains("%") { note(.identifierWithLikeWildcard) }
    }

    /// A table, index, trigger or view name never used before in this history.
    func newObjectName(from pool: [String]) -> String {
        var base = rng.pick(pool, or: "object")
        if model.isTaken(base) { base += " \(rng.int(2...9))" }
        var name = base
        var suffix = 2
        while model.isTaken(name) || name.hasPrefix("sqlite_") || name.hasPrefix("_preflight_") {
            name = "\(base)_\(suffix)"
            suffix += 1
        }
        model.take(name)
        noteIdentifier(name)
        return name
    }

    /// A column name free in `table`.
    func newColumnName(in table: TableModel, from pool: [String] = HistoryGenerator.columnNames) -> String {
        let taken = Set(table.columns.map { SQLSyntax.fold($0.name) })
        var name = rng.pick(pool, or: "column")
        var suffix = 2
        let base = name
        while taken.contains(SQLSyntax.fold(name)) || ["rowid", "oid", "_rowid_"].contains(SQLSyntax.fold(name)) {
            name = "\(base) \(suffix)"
            suffix += 1
        }
        noteIdentifier(name)
        return name
    }
}
