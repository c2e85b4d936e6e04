/// The SQL of the model's objects: CREATE statements, column definitions and the
/// expressions that constraints, indexes, triggers and views are made of.
enum SchemaRendering {
    /// The most characters a `shortText` column's CHECK allows.
    static let shortTextLimit = 24

    static let auditLogColumns = ["seq", "table name", "row key", "event"]

    // MARK: - Tables

    /// `"name" TYPE constraints...`, as CREATE TABLE and ADD COLUMN write it.
    static func columnDefinition(_ column: ColumnModel, in table: TableModel, model: SchemaModel) -> String {
        var parts = [SQLSyntax.identifier(column.name)]
        let type = table.strict && column.type == .untyped ? ColumnType.any : column.type
        if type != .untyped { parts.append(type.rawValue) }
        switch table.key {
        case .integer(let id, let autoincrement) where id == column.id:
            parts.append(autoincrement ? "PRIMARY KEY AUTOINCREMENT" : "PRIMARY KEY")
        case .text(let id) where id == column.id:
            parts.append("PRIMARY KEY")
        default:
            break
        }
        if column.notNull { parts.append("NOT NULL") }
        if let value = column.defaultValue { parts.append("DEFAULT \(value)") }
        if column.nocase { parts.append("COLLATE NOCASE") }
        if column.unique { parts.append("UNIQUE") }
        if column.check, !column.checkAtTableLevel, let check = check(column) { parts.append(check) }
        if let reference = column.reference, let parent = model.table(reference.table) {
            parts.append(
                "REFERENCES \(parent.quotedName)(\(parent.quoted(reference.column))) ON DELETE \(reference.onDelete.rawValue)")
        }
        if let generated = column.generated {
            parts.append(
                "GENERATED ALWAYS AS (\(generated.function.rawValue)(\(table.quoted(generated.source)))) \(generated.stored ? "STORED" : "VIRTUAL")")
        }
        return parts.joined(separator: " ")
    }

    /// The CHECK constraint the column's domain calls for, or nil when it has none.
    static func check(_ column: ColumnModel) -> String? {
        let name = SQLSyntax.identifier(column.name)
        switch column.domain {
        case .count: return "CHECK (\(name) >= 0)"
        case .flag: return "CHECK (\(name) IN (0, 1))"
        case .shortText: return "CHECK (length(\(name)) <= \(shortTextLimit))"
        default: return nil
        }
    }

    /// What goes between the parentheses of CREATE TABLE (a rebuild's `columns`).
    static func body(_ table: TableModel, model: SchemaModel) -> String {
        var parts = table.columns.map { columnDefinition($0, in: table, model: model) }
        if case .composite(let columns) = table.key {
            let terms = columns.map { table.quoted($0) + (table.keyNocase.contains($0) ? " COLLATE NOCASE" : "") }
            parts.append("PRIMARY KEY (\(terms.joined(separator: ", ")))")
        }
        for unique in table.uniques {
            var constraint = "UNIQUE (\(unique.columns.map(table.quoted).joined(separator: ", ")))"
            if let conflict = unique.conflict { constraint += " ON CONFLICT \(conflict.rawValue)" }
            parts.append(constraint)
        }
        for column in table.columns where column.check && column.checkAtTableLevel {
            if let check = check(column) { parts.append(check) }
        }
        return parts.joined(separator: ", ")
    }

    /// `WITHOUT ROWID`, `STRICT`, both, or nil (a rebuild's `options`).
    static func options(_ table: TableModel) -> String? {
        let words = (table.strict ? ["STRICT"] : []) + (table.withoutRowid ? ["WITHOUT ROWID"] : [])
        return words.isEmpty ? nil : words.joined(separator: ", ")
    }

    /// `CREATE TABLE "name"(body)[ options]`: spaced as a rebuild's swap leaves it.
    static func createTable(_ table: TableModel, named name: String? = nil, model: SchemaModel) -> String {
        let options = options(table).map { " " + $0 } ?? ""
        return "CREATE TABLE \(SQLSyntax.identifier(name ?? table.name))(\(body(table, model: model)))\(options)"
    }

    // MARK: - Indexes, triggers, views

    static func createIndex(_ index: IndexModel, model: SchemaModel) -> String {
        guard let table = model.table(index.table) else { return "CREATE INDEX <missing table \(index.table)>" }
        let terms = index.terms.map { term -> String in
            switch term {
            case .column(let id, let nocase, let descending):
                return table.quoted(id) + (nocase ? " COLLATE NOCASE" : "") + (descending ? " DESC" : "")
            case .lower(let id): return "lower(\(table.quoted(id)))"
            case .length(let id): return "length(\(table.quoted(id)))"
            }
        }
        var sql = "CREATE \(index.unique ? "UNIQUE " : "")INDEX \(SQLSyntax.identifier(index.name)) ON \(table.quotedName)(\(terms.joined(separator: ", ")))"
        switch index.predicate {
        case .notNull(let id)?: sql += " WHERE \(table.quoted(id)) IS NOT NULL"
        case .flagSet(let id)?: sql += " WHERE \(table.quoted(id)) = 1"
        case nil: break
        }
        return sql
    }

    static func createTrigger(_ trigger: TriggerModel, model: SchemaModel) -> String {
        guard let table = model.table(trigger.table) else { return "CREATE TRIGGER <missing table \(trigger.table)>" }
        let name = SQLSyntax.identifier(trigger.name)
        let log = model.table(role: .auditLog)?.quotedName ?? "\"audit log\""
        let logColumns = auditLogColumns.dropFirst().map(SQLSyntax.identifier).joined(separator: ", ")
        switch trigger.action {
        case .logInsert(let column):
            return "CREATE TRIGGER \(name) AFTER INSERT ON \(table.quotedName) BEGIN INSERT INTO \(log)(\(logColumns)) VALUES (\(SQLSyntax.string(trigger.label)), NEW.\(table.quoted(column)), 'insert'); END"
        case .logDelete(let column):
            return "CREATE TRIGGER \(name) AFTER DELETE ON \(table.quotedName) BEGIN INSERT INTO \(log)(\(logColumns)) VALUES (\(SQLSyntax.string(trigger.label)), OLD.\(table.quoted(column)), 'delete'); END"
        case .logInsertCount(let other):
            let counted = model.table(other)?.quotedName ?? "\"<missing table \(other)>\""
            return "CREATE TRIGGER \(name) AFTER INSERT ON \(table.quotedName) BEGIN INSERT INTO \(log)(\(logColumns)) VALUES (\(SQLSyntax.string(trigger.label)), (SELECT count(*) FROM \(counted)), 'insert'); END"
        case .countUpdates(let column):
            let counters = model.table(role: .counters)?.quotedName ?? "\"counters\""
            return "CREATE TRIGGER \(name) AFTER UPDATE OF \(table.quoted(column)) ON \(table.quotedName) BEGIN UPDATE \(counters) SET \"n\" = \"n\" + 1 WHERE \"name\" = \(SQLSyntax.string(trigger.label)); END"
        }
    }

    static func createView(_ view: ViewModel, model: SchemaModel) -> String {
        let name = SQLSyntax.identifier(view.name)
        switch view.body {
        case .projection(let id, let columns, let notNull):
            guard let table = model.table(id) else { return "CREATE VIEW <missing table \(id)>" }
            let selected = columns.isEmpty ? "*" : columns.map(table.quoted).joined(separator: ", ")
            var sql = "CREATE VIEW \(name) AS SELECT \(selected) FROM \(table.quotedName)"
            if let notNull { sql += " WHERE \(table.quoted(notNull)) IS NOT NULL" }
            return sql
        case .join(let childID, let via, let parentID, let childColumns, let parentColumns):
            guard let child = model.table(childID), let parent = model.table(parentID),
                let reference = child.column(via)?.reference
            else { return "CREATE VIEW <missing table>" }
            let selected = childColumns.map { "c." + child.quoted($0) } + parentColumns.map { "p." + parent.quoted($0) }
            return "CREATE VIEW \(name) AS SELECT \(selected.joined(separator: ", ")) FROM \(child.quotedName) AS c JOIN \(parent.quotedName) AS p ON c.\(child.quoted(via)) = p.\(parent.quoted(reference.column))"
        }
    }

    static func createFullText(_ fullText: FullTextModel) -> String {
        "CREATE VIRTUAL TABLE \(SQLSyntax.identifier(fullText.name)) USING fts5(\(fullText.columns.map(SQLSyntax.identifier).joined(separator: ", ")))"
    }
}
