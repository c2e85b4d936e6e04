/// Schema changes a `sql` step makes: ALTER TABLE in the forms SQLite accepts, indexes,
/// triggers, views, DROP TABLE and the FTS5 table. Each returns nil, leaving the model as
/// it was, when the current schema offers nothing it can validly change.
extension HistoryGenerator {
    // MARK: - ALTER TABLE

    /// `ADD COLUMN` in a form SQLite accepts: no PRIMARY KEY or UNIQUE, NOT NULL only with
    /// a default, a CHECK its default passes, REFERENCES with a NULL default, generated
    /// columns only VIRTUAL.
    func addColumn() -> Change? {
        guard var table = rng.pick(model.ordinaryTables) else { return nil }
        var column: ColumnModel
        switch rng.int(0...6) {
        case 0:
            let domain = rng.pick([Domain.integer, .text, .real, .blob, .mixed, .group], or: .text)
            column = ColumnModel(
                id: model.newID(), name: newColumnName(in: table), domain: domain, type: ColumnType.natural(for: domain))
        case 1:
            let domain = rng.pick([Domain.integer, .text, .real, .blob, .group], or: .text)
            column = ColumnModel(
                id: model.newID(), name: newColumnName(in: table), domain: domain, type: ColumnType.natural(for: domain))
            column.notNull = true
            column.defaultValue = rng.pick(ValuePools.defaults(for: domain))
        case 2:
            let domain = rng.pick([Domain.count, .flag, .shortText], or: .count)
            column = ColumnModel(
                id: model.newID(), name: newColumnName(in: table), domain: domain, type: ColumnType.natural(for: domain))
            column.check = true
            if rng.chance(70) {
                column.notNull = true
                column.defaultValue = rng.pick(ValuePools.defaults(for: domain))
            }
        case 3:
            column = ColumnModel(id: model.newID(), name: newColumnName(in: table), domain: .text, type: .text)
            column.defaultValue = "'café'"
            column.nocase = true
        case 4:
            guard let reference = referenceColumn(in: table) else { return nil }
            column = reference
        case 5:
            guard let generated = generatedColumn(in: table, stored: false) else { return nil }
            column = generated
        default:
            let domain = rng.chance(50) ? Domain.uniqueText : .uniqueInteger
            column = ColumnModel(
                id: model.newID(), name: newColumnName(in: table), domain: domain, type: ColumnType.natural(for: domain))
        }
        table.columns.append(column)
        model.replace(table)
        note(.addColumn)
        noteColumn(column)
        return Change(
            name: "add \(column.name) to \(table.name)",
            statements: ["ALTER TABLE \(table.quotedName) ADD COLUMN \(SchemaRendering.columnDefinition(column, in: table, model: model))"])
    }

    /// `RENAME COLUMN`; the views reading the table are dropped first and created again
    /// after, and the table's indexes and triggers are left to SQLite to rewrite.
    func renameColumn() -> Change? {
        guard var table = rng.pick(model.ordinaryTables), let position = rng.pick(Array(table.columns.indices))
        else { return nil }
        let old = table.columns[position].name
        table.columns[position].name = newColumnName(in: table)
        let (drops, creates) = aroundDependents(of: table.id)
        let statement = "ALTER TABLE \(table.quotedName) RENAME COLUMN \(SQLSyntax.identifier(old)) TO \(SQLSyntax.identifier(table.columns[position].name))"
        model.replace(table)
        model.forgetTexts(of: table.id)
        note(.renameColumn)
        return Change(name: "rename \(table.name).\(old)", statements: drops + [statement] + creates(model))
    }

    /// `RENAME TO` a name never used before; SQLite rewrites indexes, triggers and the
    /// other tables' REFERENCES to follow.
    func renameTable() -> Change? {
        guard var table = rng.pick(model.ordinaryTables) else { return nil }
        let old = table.quotedName
        table.name = newObjectName(from: Self.tableNames)
        let (drops, creates) = aroundDependents(of: table.id)
        model.replace(table)
        model.forgetTexts(of: table.id)
        note(.renameTable)
        return Change(
            name: "rename \(old) to \(table.name)",
            statements: drops + ["ALTER TABLE \(old) RENAME TO \(table.quotedName)"] + creates(model))
    }

    /// `DROP COLUMN` of a column SQLite lets go: not in the key, not UNIQUE, without a CHECK
    /// or REFERENCES, not generated, and named by no index, trigger, view, foreign key or
    /// generated column.
    func dropColumn() -> Change? {
        let candidates = model.ordinaryTables.flatMap { table in
            table.columns.filter { column in
                table.columns.count > 2 && !table.isKeyColumn(column.id) && !column.unique && !column.check
                    && column.reference == nil && column.generated == nil
                    && !table.uniques.contains { $0.columns.contains(column.id) }
                    && !model.isUsedElsewhere(table: table.id, column: column.id)
                    && table.columns.contains { $0.id != column.id && $0.insertable && !table.isKeyColumn($0.id) }
            }.map { (table, $0) }
        }
        guard let (table, column) = rng.pick(candidates) else { return nil }
        var changed = table
        changed.columns.removeAll { $0.id == column.id }
        model.replace(changed)
        note(.dropColumn)
        return Change(
            name: "drop \(table.name).\(column.name)",
            statements: ["ALTER TABLE \(table.quotedName) DROP COLUMN \(SQLSyntax.identifier(column.name))"])
    }

    /// The views reading `table` and the triggers `SchemaModel.triggers(around:)` names:
    /// DROP statements now, and CREATE statements rendered from the model as it will be
    /// after the change (a modern ALTER TABLE refuses to leave a view or trigger naming a
    /// table that is gone, and rewrites the text of those it keeps).
    func aroundDependents(of table: Int) -> (drops: [String], creates: (SchemaModel) -> [String]) {
        let views = model.views(reading: table)
        let triggers = model.triggers(around: table)
        if !views.isEmpty { note(.viewRecreatedAroundChange) }
        let viewNames = views.map(\.name)
        let triggerNames = triggers.map(\.name)
        return (
            views.map { "DROP VIEW \(SQLSyntax.identifier($0.name))" }
                + triggers.map { "DROP TRIGGER \(SQLSyntax.identifier($0.name))" },
            { model in
                model.views.filter { viewNames.contains($0.name) }.map { SchemaRendering.createView($0, model: model) }
                    + model.triggers.filter { triggerNames.contains($0.name) }
                    .map { SchemaRendering.createTrigger($0, model: model) }
            }
        )
    }

    // MARK: - Indexes

    /// A plain, UNIQUE, partial or expression index on a table's columns.
    func createIndex() -> Change? {
        guard let table = rng.pick(model.ordinaryTables) else { return nil }
        guard let index = designIndex(on: table) else { return nil }
        model.indexes.append(index)
        noteIndex(index)
        return Change(name: "index \(table.name)", statements: [SchemaRendering.createIndex(index, model: model)])
    }

    /// An index for `table` (which may be the new definition of a rebuild); its name is taken.
    func designIndex(on table: TableModel) -> IndexModel? {
        let columns = table.columns.filter(\.insertable)
        let generated = table.columns.filter { $0.generated != nil }
        guard let first = rng.pick(columns) else { return nil }
        var unique = false
        var terms: [IndexModel.Term] = []
        var predicate: IndexModel.Predicate?
        switch rng.int(0...3) {
        case 1:
            // UNIQUE only where every value is distinct (NULLs are distinct too).
            guard let column = rng.pick(columns.filter { $0.domain.isUnique }) else { return nil }
            unique = true
            terms = [.column(column.id, nocase: column.domain == .uniqueText && rng.chance(30), descending: rng.chance(30))]
        case 2:
            terms = [.column(first.id, nocase: false, descending: false)]
            if let nullable = rng.pick(columns.filter { !$0.notNull && !table.isKeyColumn($0.id) }), rng.chance(60) {
                predicate = .notNull(nullable.id)
            } else if let flag = rng.pick(columns.filter { $0.domain == .flag }) {
                predicate = .flagSet(flag.id)
            } else {
                return nil
            }
        case 3:
            let texts = columns.filter { $0.domain.isText }
            if let text = rng.pick(texts), rng.chance(70) {
                unique = text.domain == .uniqueText && rng.chance(50)
                terms = [.lower(text.id)]
            } else {
                terms = [.length(first.id)]
            }
        default:
            if let column = rng.pick(generated), rng.chance(50) {
                terms.append(.column(column.id, nocase: false, descending: false))
                note(.indexOnGeneratedColumn)
            }
            for column in rng.subset(columns, count: rng.int(1...2)) {
                terms.append(.column(column.id, nocase: column.domain.isText && rng.chance(30), descending: rng.chance(25)))
            }
        }
        let named = table.column(terms.first?.column ?? first.id)?.name ?? first.name
        let name = newObjectName(from: ["\(table.name) by \(named)", "idx_\(table.name)_\(named)", "índice \(named)"])
        return IndexModel(name: name, table: table.id, unique: unique, terms: terms, predicate: predicate)
    }

    func noteIndex(_ index: IndexModel) {
        if index.unique { note(.uniqueIndex) }
        if index.predicate != nil { note(.partialIndex) }
        if index.terms.contains(where: { if case .column = $0 { return false } else { return true } }) {
            note(.expressionIndex)
        }
        if !index.unique, index.predicate == nil, index.terms.allSatisfy({ if case .column = $0 { return true } else { return false } }) {
            note(.plainIndex)
        }
    }

    func dropIndex() -> Change? {
        guard let index = rng.pick(model.indexes) else { return nil }
        model.indexes.removeAll { $0.name == index.name }
        note(.dropIndex)
        return Change(name: "drop index \(index.name)", statements: ["DROP INDEX \(SQLSyntax.identifier(index.name))"])
    }

    // MARK: - Triggers

    /// A trigger that logs inserts or deletes to "audit log" or counts updates in
    /// "counters", creating that table in the same step when it does not exist yet.
    func createTrigger() -> Change? {
        guard let table = rng.pick(model.ordinaryTables) else { return nil }
        let columns = table.columns.filter(\.insertable)
        guard let column = rng.pick(columns) else { return nil }
        var statements: [String] = []
        let action: TriggerModel.Action
        switch rng.int(0...4) {
        case 0: action = .logInsert(column: column.id)
        case 1: action = .logDelete(column: column.id)
        case 2, 3:
            guard let other = rng.pick(model.ordinaryTables) else { return nil }
            action = .logInsertCount(of: other.id)
            note(.triggerReadingTable)
        default:
            guard let updated = rng.pick(columns.filter { !table.isKeyColumn($0.id) }) else { return nil }
            action = .countUpdates(column: updated.id)
        }
        if case .countUpdates = action {
            statements += auxiliaryTable(.counters)
            let counters = model.table(role: .counters)?.quotedName ?? "\"counters\""
            statements.append("INSERT OR IGNORE INTO \(counters)(\"name\", \"n\") VALUES (\(SQLSyntax.string(table.name)), 0)")
        } else {
            statements += auxiliaryTable(.auditLog)
        }
        let name = newObjectName(from: ["\(table.name) changed", "trg_\(table.name)", "déclencheur"])
        let trigger = TriggerModel(name: name, table: table.id, action: action, label: table.name)
        model.triggers.append(trigger)
        statements.append(SchemaRendering.createTrigger(trigger, model: model))
        note(.trigger)
        return Change(name: "trigger on \(table.name)", statements: statements)
    }

    /// CREATE TABLE for "audit log" or "counters" unless it exists.
    private func auxiliaryTable(_ role: TableModel.Role) -> [String] {
        guard model.table(role: role) == nil else { return [] }
        var table: TableModel
        if role == .auditLog {
            let columns = SchemaRendering.auditLogColumns.map { name in
                ColumnModel(id: model.newID(), name: name, domain: .mixed, type: .untyped)
            }
            table = TableModel(id: model.newID(), name: "audit log", columns: columns, key: .integer(column: columns[0].id, autoincrement: true))
            table.columns[0].type = .integer
            table.columns[1].type = .text
            table.columns[1].notNull = true
            table.columns[3].type = .text
            table.columns[3].notNull = true
        } else {
            var name = ColumnModel(id: model.newID(), name: "name", domain: .uniqueText, type: .text)
            name.notNull = true
            var count = ColumnModel(id: model.newID(), name: "n", domain: .count, type: .integer)
            count.notNull = true
            count.defaultValue = "0"
            table = TableModel(id: model.newID(), name: "counters", columns: [name, count], key: .text(column: name.id))
        }
        table.role = role
        model.take(table.name)
        model.tables.append(table)
        noteIdentifier(table.name)
        noteDesign(table)
        return [SchemaRendering.createTable(table, model: model)]
    }

    func dropTrigger() -> Change? {
        guard let trigger = rng.pick(model.triggers) else { return nil }
        model.triggers.removeAll { $0.name == trigger.name }
        note(.dropTrigger)
        return Change(name: "drop trigger \(trigger.name)", statements: ["DROP TRIGGER \(SQLSyntax.identifier(trigger.name))"])
    }

    // MARK: - Views

    /// A view of some columns of one table, or of a child joined to its parent.
    func createView() -> Change? {
        let children = model.ordinaryTables.flatMap { child in
            child.columns.compactMap { column -> (TableModel, ColumnModel, TableModel)? in
                guard let reference = column.reference, let parent = model.table(reference.table) else { return nil }
                return (child, column, parent)
            }
        }
        let body: ViewModel.Body
        if rng.chance(40), let (child, column, parent) = rng.pick(children) {
            body = .join(
                child: child.id, via: column.id, parent: parent.id,
                childColumns: rng.subset(child.columns.map(\.id), count: rng.int(1...2)),
                parentColumns: rng.subset(parent.columns.map(\.id), count: rng.int(1...2)))
            note(.joinView)
        } else {
            guard let table = rng.pick(model.ordinaryTables) else { return nil }
            let nullable = table.columns.filter { !$0.notNull && !table.isKeyColumn($0.id) }
            body = .projection(
                table: table.id, columns: rng.chance(20) ? [] : rng.subset(table.columns.map(\.id), count: rng.int(1...3)),
                notNull: rng.chance(50) ? rng.pick(nullable)?.id : nil)
        }
        let about = model.table(ViewModel(name: "", body: body).tables.first ?? 0)?.name ?? "view"
        let view = ViewModel(name: newObjectName(from: ["view of \(about)", "v_\(about)", "aperçu"]), body: body)
        model.views.append(view)
        note(.view)
        return Change(name: "view \(view.name)", statements: [SchemaRendering.createView(view, model: model)])
    }

    func dropView() -> Change? {
        guard let view = rng.pick(model.views) else { return nil }
        model.views.removeAll { $0.name == view.name }
        note(.dropView)
        return Change(name: "drop view \(view.name)", statements: ["DROP VIEW \(SQLSyntax.identifier(view.name))"])
    }

    // MARK: - Tables

    /// DROP TABLE of a table no other table references (its views go first).
    func dropTable() -> Change? {
        let tables = model.ordinaryTables
        guard tables.count > 2 else { return nil }
        guard let table = rng.pick(tables.filter { model.children(of: $0.id).isEmpty }) else { return nil }
        let views = model.views(reading: table.id)
        let readers = model.triggers.filter { $0.action.reads == table.id && $0.table != table.id }
        model.views.removeAll { $0.tables.contains(table.id) }
        model.indexes.removeAll { $0.table == table.id }
        model.triggers.removeAll { $0.table == table.id || $0.action.reads == table.id }
        model.tables.removeAll { $0.id == table.id }
        note(.dropTable)
        return Change(
            name: "drop \(table.name)",
            statements: views.map { "DROP VIEW \(SQLSyntax.identifier($0.name))" }
                + readers.map { "DROP TRIGGER \(SQLSyntax.identifier($0.name))" } + ["DROP TABLE \(table.quotedName)"])
    }

    // MARK: - FTS5

    /// An FTS5 table, filled in the same step from a table's text columns when `fill`.
    func createFullText(fill: Bool) -> Change? {
        guard model.fullText == nil else { return nil }
        let name = rng.pick(["search", "recherche", "full text"], or: "search")
        var fullText = FullTextModel(name: name, columns: rng.chance(50) ? ["title", "body"] : ["sujet", "contenu"])
        guard !model.isTaken(name), !fullText.shadowNames.contains(where: model.isTaken) else { return nil }
        model.take(name)
        for shadow in fullText.shadowNames { model.take(shadow) }
        noteIdentifier(name)
        note(.fts5)
        var statements = [SchemaRendering.createFullText(fullText)]
        if fill, let source = rng.pick(model.ordinaryTables.filter { $0.columns.contains { $0.domain.isText } }) {
            let texts = source.columns.filter { $0.domain.isText }.map { source.quoted($0.id) }
            let values = [texts.first ?? "NULL", texts.dropFirst().first ?? "''"]
            let columns = fullText.columns.map(SQLSyntax.identifier).joined(separator: ", ")
            statements.append(
                "INSERT INTO \(SQLSyntax.identifier(name))(\(columns)) SELECT \(values.joined(separator: ", ")) FROM \(source.quotedName) ORDER BY \(source.keyOrder)")
            fullText.writes += 1
            note(.createAndFill)
        }
        model.fullText = fullText
        return Change(name: "full-text index \(name)", statements: statements)
    }
}
