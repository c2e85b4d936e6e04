/// Table rebuilds ("Making Other Kinds Of Table Schema Changes",
/// https://www.sqlite.org/lang_altertable.html#otheralter): a new definition of a table,
/// written either as the app's hand-written 12 steps in a `sql` step or as Preflight's
/// `rebuild` step, whose oracle is the same procedure in plain SQL arranged to leave what
/// `TableRebuild` leaves.
extension HistoryGenerator {
    /// A table's new definition and how each new row is computed from an old one.
    struct RebuildChange {
        var old: TableModel
        var new: TableModel
        /// For each insertable column of `new`, by id: the expression over the old row.
        var select: [Int: String] = [:]
        /// Keeps only the old rows that match.
        var filter: String?
        var rowLoss = false
        /// The table's indexes and triggers afterwards.
        var indexes: [IndexModel] = []
        var triggers: [TriggerModel] = []
        /// Whether they must be written out (a Preflight rebuild otherwise recreates the old ones).
        var explicitIndexes = false
        var explicitTriggers = false

        /// The new table's insertable columns, as the copy names them, and their expressions.
        var insertColumns: String {
            new.columns.filter(\.insertable).map { SQLSyntax.identifier($0.name) }.joined(separator: ", ")
        }

        var selectList: String {
            new.columns.filter(\.insertable).map { select[$0.id] ?? "NULL" }.joined(separator: ", ")
        }
    }

    // MARK: - The new definition

    /// One to three changes to an ordinary table's definition, or nil when none applies.
    ///
    /// `parents`: whether a table other tables reference may be chosen. The hand-written
    /// rebuild's DROP TABLE deletes every row first where foreign keys are enforced, which
    /// would fire the children's ON DELETE; Preflight's rebuild turns them off for its swap.
    func planRebuild(parents: Bool = true) -> RebuildChange? {
        let tables = model.ordinaryTables.filter { parents || model.children(of: $0.id).isEmpty }
        // Often a table something else depends on (a view, a trigger reading it, children):
        // what the swap has to leave working.
        let depended = tables.filter { table in
            !model.views(reading: table.id).isEmpty || !model.children(of: table.id).isEmpty
                || model.triggers.contains { $0.action.reads == table.id }
        }
        guard let old = rng.pick(!depended.isEmpty && rng.chance(40) ? depended : tables) else { return nil }
        var change = RebuildChange(old: old, new: old)
        for column in old.columns where column.insertable { change.select[column.id] = old.quoted(column.id) }
        change.indexes = model.indexes(on: old.id)
        change.triggers = model.triggers(on: old.id)
        // The changes that reach the most of TableRebuild (rows left out or collapsed, the key
        // order, the table's options) are listed twice, so they come first more often.
        let transforms: [(inout RebuildChange) -> Bool] = [
            rebuildDropColumn, rebuildAddColumn, rebuildNotNull, rebuildClamp, rebuildNocase, rebuildCollapse,
            rebuildFilter, rebuildReorder, rebuildStrict, rebuildRowid, rebuildRenameColumn, rebuildGenerated,
            rebuildDefault, rebuildCollapse, rebuildFilter, rebuildRowid, rebuildAddColumn, rebuildRenameColumn,
        ]
        let wanted = rng.int(1...3)
        var applied = 0
        for transform in rng.shuffled(Array(transforms.indices)) where applied < wanted {
            if transforms[transform](&change) { applied += 1 }
        }
        guard applied > 0 else { return nil }
        // With an ON CONFLICT REPLACE or IGNORE in the new table, any change of the copied
        // values (a NOT NULL's coalesce, a NOCASE) can make rows collide and collapse.
        if change.new.collapsing != nil { change.rowLoss = true }
        // Indexes and triggers whose text SQLite rewrote cannot be recreated "as they were"
        // by an oracle that does not know that text: such a step names them.
        if change.indexes.contains(where: { !$0.textKnown }) || rng.chance(35) { change.explicitIndexes = true }
        if change.triggers.contains(where: { !$0.textKnown }) || rng.chance(30) { change.explicitTriggers = true }
        return change
    }

    /// The columns and constraints that other objects rely on by name or by value.
    private func isPinned(_ column: ColumnModel, _ change: RebuildChange) -> Bool {
        change.old.isKeyColumn(column.id) || model.isUsedElsewhere(table: change.old.id, column: column.id)
            || change.new.columns.contains { $0.generated?.source == column.id }
    }

    private func rebuildDropColumn(_ change: inout RebuildChange) -> Bool {
        let candidates = change.new.columns.filter { !isPinned($0, change) }
        guard change.new.columns.count > 2, let column = rng.pick(candidates) else { return false }
        let remaining = change.new.columns.filter { $0.id != column.id }
        guard remaining.contains(where: { $0.insertable && !change.new.isKeyColumn($0.id) }) else { return false }
        change.new.columns = remaining
        change.new.uniques.removeAll { $0.columns.contains(column.id) }
        change.select[column.id] = nil
        note(.rebuildDropColumn)
        return true
    }

    private func rebuildAddColumn(_ change: inout RebuildChange) -> Bool {
        let old = change.old
        let texts = old.columns.filter { $0.domain.isText && $0.insertable }
        var column: ColumnModel
        let expression: String
        let hasChildren = !model.children(of: old.id).isEmpty
        switch hasChildren && rng.chance(40) ? 5 : rng.int(0...5) {
        case 4:
            // A count of another table's rows (or its own): the same in every batch.
            guard let other = rng.pick(model.ordinaryTables) else { return false }
            column = ColumnModel(id: model.newID(), name: newColumnName(in: change.new), domain: .count, type: .integer)
            column.notNull = true
            column.defaultValue = "0"
            expression = "(SELECT count(*) FROM \(other.quotedName))"
        case 5:
            // How many children each row has: a subquery correlated with the old row.
            guard let (child, via) = rng.pick(model.children(of: old.id)), let reference = via.reference else { return false }
            column = ColumnModel(id: model.newID(), name: newColumnName(in: change.new), domain: .count, type: .integer)
            expression = "(SELECT count(*) FROM \(child.quotedName) AS c WHERE c.\(child.quoted(via.id)) = \(old.quotedName).\(old.quoted(reference.column)))"
            note(.rebuildCorrelatedSelect)
        case 0:
            guard let source = rng.pick(texts) else { return false }
            column = ColumnModel(id: model.newID(), name: newColumnName(in: change.new), domain: .text, type: .text)
            column.notNull = true
            column.defaultValue = "''"
            expression = "coalesce(lower(\(old.quoted(source.id))), '')"
        case 1:
            guard let source = rng.pick(old.columns.filter(\.insertable)) else { return false }
            column = ColumnModel(id: model.newID(), name: newColumnName(in: change.new), domain: .integer, type: .integer)
            expression = "length(\(old.quoted(source.id)))"
        case 2:
            guard let source = rng.pick(old.columns.filter(\.insertable)) else { return false }
            column = ColumnModel(id: model.newID(), name: newColumnName(in: change.new), domain: .flag, type: .integer)
            column.check = true
            column.notNull = true
            column.defaultValue = "0"
            expression = "\(old.quoted(source.id)) IS NOT NULL"
        default:
            let domain = rng.pick([Domain.text, .integer, .real, .group], or: .text)
            column = ColumnModel(id: model.newID(), name: newColumnName(in: change.new), domain: domain, type: ColumnType.natural(for: domain))
            let literal = rng.pick(ValuePools.defaults(for: domain), or: "NULL")
            column.notNull = true
            column.defaultValue = literal
            expression = literal
        }
        change.new.columns.insert(column, at: rng.int(0...change.new.columns.count))
        change.select[column.id] = expression
        note(.rebuildAddColumn)
        noteColumn(column)
        return true
    }

    private func rebuildNotNull(_ change: inout RebuildChange) -> Bool {
        let candidates = change.new.columns.indices.filter { index in
            let column = change.new.columns[index]
            return !column.notNull && column.insertable && !change.new.isKeyColumn(column.id)
                && !ValuePools.defaults(for: column.domain).isEmpty
        }
        guard let index = rng.pick(candidates) else { return false }
        let column = change.new.columns[index]
        let literal = rng.pick(ValuePools.defaults(for: column.domain), or: "0")
        change.new.columns[index].notNull = true
        change.new.columns[index].defaultValue = literal
        change.select[column.id] = "coalesce(\(change.select[column.id] ?? "NULL"), \(literal))"
        note(.rebuildNotNull)
        note(.notNullDefault)
        return true
    }

    /// A CHECK (c >= 0) on a plain integer column, negative values clamped to 0 on the way.
    private func rebuildClamp(_ change: inout RebuildChange) -> Bool {
        let candidates = change.new.columns.indices.filter { index in
            let column = change.new.columns[index]
            return column.domain == .integer && column.insertable && !change.new.isKeyColumn(column.id)
        }
        guard let index = rng.pick(candidates) else { return false }
        let column = change.new.columns[index]
        let value = change.select[column.id] ?? "NULL"
        change.new.columns[index].domain = .count
        change.new.columns[index].check = true
        change.new.columns[index].checkAtTableLevel = rng.chance(30)
        if let literal = column.defaultValue, literal.hasPrefix("-") { change.new.columns[index].defaultValue = "0" }
        change.select[column.id] = "CASE WHEN \(value) < 0 THEN 0 ELSE \(value) END"
        noteColumn(change.new.columns[index])
        return true
    }

    /// COLLATE NOCASE on a text column no UNIQUE constraint or index relies on.
    private func rebuildNocase(_ change: inout RebuildChange) -> Bool {
        let uniqueIndexed = Set(change.indexes.filter(\.unique).flatMap(\.columns))
        let candidates = change.new.columns.indices.filter { index in
            let column = change.new.columns[index]
            return column.domain.isText && !column.nocase && column.insertable && !column.unique
                && !change.new.isKeyColumn(column.id) && !uniqueIndexed.contains(column.id)
                && !change.new.uniques.contains { $0.columns.contains(column.id) }
        }
        guard let index = rng.pick(candidates) else { return false }
        change.new.columns[index].nocase = true
        note(.collateNocase)
        return true
    }

    /// UNIQUE (group) ON CONFLICT REPLACE or IGNORE on a column with shared values: the
    /// copy collapses them. Not for a parent table, whose children would be orphaned.
    private func rebuildCollapse(_ change: inout RebuildChange) -> Bool {
        guard change.new.collapsing == nil, model.children(of: change.old.id).isEmpty else { return false }
        let groups = change.new.columns.filter { $0.domain == .group && $0.insertable && !change.new.isKeyColumn($0.id) }
        guard let group = rng.pick(groups) else { return false }
        let conflict: UniqueConstraint.Conflict = rng.chance(50) ? .replace : .ignore
        change.new.uniques.append(UniqueConstraint(columns: [group.id], conflict: conflict))
        change.rowLoss = true
        note(.rebuildCollapse)
        note(conflict == .replace ? .uniqueOnConflictReplace : .uniqueOnConflictIgnore)
        return true
    }

    /// `where`: only some old rows are kept. Not for a parent table.
    private func rebuildFilter(_ change: inout RebuildChange) -> Bool {
        guard change.filter == nil, model.children(of: change.old.id).isEmpty,
            let condition = condition(change.old)
        else { return false }
        change.filter = condition
        change.rowLoss = true
        note(.rebuildFilter)
        return true
    }

    private func rebuildReorder(_ change: inout RebuildChange) -> Bool {
        guard change.new.columns.count > 1 else { return false }
        change.new.columns = rng.shuffled(change.new.columns)
        note(.rebuildReorder)
        return true
    }

    /// STRICT on or off. Every value already has its column's type (the domains are typed),
    /// and an untyped column becomes ANY.
    private func rebuildStrict(_ change: inout RebuildChange) -> Bool {
        change.new.strict.toggle()
        note(change.new.strict ? .rebuildToStrict : .rebuildFromStrict)
        if change.new.strict { note(.strict) }
        return true
    }

    /// WITHOUT ROWID on or off, for a table with a declared primary key and no AUTOINCREMENT.
    private func rebuildRowid(_ change: inout RebuildChange) -> Bool {
        switch change.new.key {
        case .rowid, .integer(_, true): return false
        default: break
        }
        change.new.withoutRowid.toggle()
        note(change.new.withoutRowid ? .rebuildToWithoutRowid : .rebuildFromWithoutRowid)
        if change.new.withoutRowid {
            note(.withoutRowid)
            change.new.explicitKeys = true
        }
        return true
    }

    /// A column renamed by the rebuild. Views and other tables' foreign keys would break, so
    /// not a column they name; indexes and triggers naming it are written out new.
    private func rebuildRenameColumn(_ change: inout RebuildChange) -> Bool {
        let candidates = change.new.columns.indices.filter { index in
            let column = change.new.columns[index]
            return !model.views.contains { $0.uses(table: change.old.id, column: column.id) }
                && !model.children(of: change.old.id).contains { $0.column.reference?.column == column.id }
        }
        guard let index = rng.pick(candidates) else { return false }
        let id = change.new.columns[index].id
        change.new.columns[index].name = newColumnName(in: change.new)
        if change.indexes.contains(where: { $0.columns.contains(id) }) { change.explicitIndexes = true }
        if change.triggers.contains(where: { $0.action.column == id }) { change.explicitTriggers = true }
        note(.rebuildRenameColumn)
        return true
    }

    private func rebuildGenerated(_ change: inout RebuildChange) -> Bool {
        guard let column = generatedColumn(in: change.new, stored: rng.chance(50)) else { return false }
        change.new.columns.append(column)
        noteColumn(column)
        return true
    }

    private func rebuildDefault(_ change: inout RebuildChange) -> Bool {
        let candidates = change.new.columns.indices.filter { index in
            let column = change.new.columns[index]
            return column.insertable && !change.new.isKeyColumn(column.id) && !ValuePools.defaults(for: column.domain).isEmpty
        }
        guard let index = rng.pick(candidates) else { return false }
        let column = change.new.columns[index]
        change.new.columns[index].defaultValue = rng.pick(ValuePools.defaults(for: column.domain))
        return true
    }

    // MARK: - After the copy

    /// Puts the new definition into the model, and the indexes and triggers the step
    /// leaves: when written out, perhaps one fewer and one more than before.
    private func commit(_ change: inout RebuildChange) {
        model.replace(change.new)
        if change.explicitIndexes {
            if !change.indexes.isEmpty, rng.chance(30) { change.indexes.remove(at: rng.int(0...(change.indexes.count - 1))) }
            if rng.chance(35), let index = designIndex(on: change.new) {
                change.indexes.append(index)
                noteIndex(index)
            }
        }
        if change.explicitTriggers, !change.triggers.isEmpty, rng.chance(30) {
            change.triggers.remove(at: rng.int(0...(change.triggers.count - 1)))
        }
        for index in change.indexes.indices { change.indexes[index].textKnown = true }
        for index in change.triggers.indices { change.triggers[index].textKnown = true }
        model.indexes.removeAll { $0.table == change.old.id }
        model.indexes += change.indexes
        model.triggers.removeAll { $0.table == change.old.id }
        model.triggers += change.triggers
    }

    // MARK: - The two ways to write it

    /// The hand-written 12-step rebuild in one `sql` step: views reading the table dropped,
    /// CREATE the new table, INSERT ... SELECT, DROP the old one, RENAME the new one into
    /// place, then its indexes, triggers and the views again.
    func manualRebuild() -> GeneratedStep? {
        guard var change = planRebuild(parents: !foreignKeys) else { return nil }
        let old = change.old
        let temporary = newObjectName(from: ["\(old.name)_new"])
        // Either the views and the triggers reading the table go and come back, or (as
        // Preflight's own swap does) legacy_alter_table keeps the RENAME from checking them.
        let legacy = rng.chance(30)
        let views = legacy ? [] : model.views(reading: old.id)
        let readers = legacy ? [] : model.triggers.filter { $0.action.reads == old.id && $0.table != old.id }
        var statements = legacy ? ["PRAGMA legacy_alter_table = ON"] : []
        statements += views.map { "DROP VIEW \(SQLSyntax.identifier($0.name))" }
        statements += readers.map { "DROP TRIGGER \(SQLSyntax.identifier($0.name))" }
        statements.append(SchemaRendering.createTable(change.new, named: temporary, model: model))
        var copy = "INSERT INTO \(SQLSyntax.identifier(temporary))(\(change.insertColumns)) SELECT \(change.selectList) FROM \(old.quotedName)"
        if let filter = change.filter { copy += " WHERE \(filter)" }
        statements.append(copy)
        statements.append("DROP TABLE \(old.quotedName)")
        statements.append("ALTER TABLE \(SQLSyntax.identifier(temporary)) RENAME TO \(old.quotedName)")
        change.explicitIndexes = true
        change.explicitTriggers = true
        commit(&change)
        statements += change.indexes.map { SchemaRendering.createIndex($0, model: model) }
        statements += change.triggers.map { SchemaRendering.createTrigger($0, model: model) }
        statements += readers.map { SchemaRendering.createTrigger($0, model: model) }
        statements += views.map { SchemaRendering.createView($0, model: model) }
        if legacy {
            statements.append("PRAGMA legacy_alter_table = OFF")
            note(.legacyAlterTable)
        }
        note(.manualRebuild)
        if !views.isEmpty { note(.viewRecreatedAroundChange) }
        return GeneratedStep(
            name: "rebuild \(old.name) by hand", action: .sql(statements), rowLoss: change.rowLoss, oracle: statements)
    }

    /// Preflight's `rebuild` step, and as its oracle the same rebuild in plain SQL,
    /// arranged to leave exactly what `TableRebuild` leaves:
    /// - the new table is created as `CREATE TABLE "<temporary>"(columns) options` and
    ///   renamed, so that its text reads as the swap's RENAME leaves it;
    /// - rows are copied in key order (rowid, or the WITHOUT ROWID key), as the batches are,
    ///   so that an ON CONFLICT keeps the same rows and rowids are given out alike;
    /// - the AUTOINCREMENT counter is carried: the largest of the old counter, the old
    ///   table's greatest rowid and the new table's own;
    /// - indexes and triggers are the step's, or the old ones as they were;
    /// - views reading the table (kept by Preflight, which renames with
    ///   `legacy_alter_table`) are dropped first and created again after, since a modern
    ///   RENAME refuses to run while a view names a table that does not exist.
    func preflightRebuild() -> GeneratedStep? {
        guard var change = planRebuild() else { return nil }
        let old = change.old
        let temporary = "_oracle_new_\(old.id)"
        let views = model.views(reading: old.id)
        let readers = model.triggers.filter { $0.action.reads == old.id && $0.table != old.id }
        var oracle = views.map { "DROP VIEW \(SQLSyntax.identifier($0.name))" }
        oracle += readers.map { "DROP TRIGGER \(SQLSyntax.identifier($0.name))" }
        oracle.append(SchemaRendering.createTable(change.new, named: temporary, model: model))
        oracle.append(
            "INSERT INTO \(SQLSyntax.identifier(temporary))(\(change.insertColumns)) SELECT \(change.selectList) FROM \(old.quotedName)"
                + (change.filter.map { " WHERE (\($0))" } ?? "") + " ORDER BY \(old.keyOrder)")
        if change.new.key.isAutoincrement, !change.new.withoutRowid {
            oracle += carryAutoincrement(from: old, to: temporary)
            note(.rebuildAutoincrement)
        }
        oracle.append("DROP TABLE \(old.quotedName)")
        oracle.append("ALTER TABLE \(SQLSyntax.identifier(temporary)) RENAME TO \(old.quotedName)")
        let columns = SchemaRendering.body(change.new, model: model)
        let options = SchemaRendering.options(change.new)
        let select = change.selectList
        let filter = change.filter
        commit(&change)
        oracle += change.indexes.map { SchemaRendering.createIndex($0, model: model) }
        oracle += change.triggers.map { SchemaRendering.createTrigger($0, model: model) }
        oracle += readers.map { SchemaRendering.createTrigger($0, model: model) }
        oracle += views.map { SchemaRendering.createView($0, model: model) }
        let definition = RebuildDefinition(
            table: spelling(of: old), columns: columns, select: select, filter: filter, options: options,
            batchRows: rng.int(1...6),
            indexes: change.explicitIndexes ? change.indexes.map { SchemaRendering.createIndex($0, model: model) } : nil,
            triggers: change.explicitTriggers ? change.triggers.map { SchemaRendering.createTrigger($0, model: model) } : nil)
        note(.rebuild)
        if !model.indexes(on: old.id).isEmpty { note(change.explicitIndexes ? .rebuildExplicitIndexes : .rebuildKeptIndexes) }
        if !model.triggers(on: old.id).isEmpty { note(change.explicitTriggers ? .rebuildExplicitTriggers : .rebuildKeptTriggers) }
        if !views.isEmpty { note(.rebuildWithView) }
        if !readers.isEmpty { note(.rebuildReadByTrigger) }
        return GeneratedStep(
            name: "rebuild \(old.name)", action: .rebuild(definition), rowLoss: change.rowLoss, oracle: oracle)
    }

    /// `TableRebuild.carryAutoincrementCounter` in SQL, run after the copy and before the
    /// old table is dropped (which deletes its counter).
    ///
    /// A plain INSERT ... SELECT into an AUTOINCREMENT table writes its counter row even
    /// when it copies nothing (seq 0). Preflight runs no copy for an empty table and carries
    /// only a counter above 0, so it leaves no row then; the same counter (the next id is 1
    /// either way), and the oracle leaves none too. Keys here are positive, so a copied row
    /// always makes the counter at least 1.
    private func carryAutoincrement(from old: TableModel, to temporary: String) -> [String] {
        let new = SQLSyntax.string(temporary)
        let oldSequence = "coalesce((SELECT seq FROM sqlite_sequence WHERE name = \(SQLSyntax.string(old.name))), 0)"
        let oldRowid = old.rowidName.map { "coalesce((SELECT max(\($0)) FROM \(old.quotedName)), 0)" } ?? "0"
        return [
            "INSERT INTO sqlite_sequence(name, seq) SELECT \(new), max(\(oldSequence), \(oldRowid)) WHERE max(\(oldSequence), \(oldRowid)) > 0 AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = \(new))",
            "UPDATE sqlite_sequence SET seq = max(seq, \(oldSequence), \(oldRowid)) WHERE name = \(new)",
            "DELETE FROM sqlite_sequence WHERE name = \(new) AND seq = 0",
        ]
    }
}
