/// New tables: random designs for version 1 and for CREATE TABLE in later steps, and a
/// table created and filled from another one in the same step.
extension HistoryGenerator {
    /// `CREATE TABLE` of a random design, perhaps a child of an existing table.
    func createTable() -> Change {
        let table = designTable()
        model.tables.append(table)
        noteDesign(table)
        if version > 1 { note(.createTableLater) }
        return Change(name: "create \(table.name)", statements: [SchemaRendering.createTable(table, model: model)])
    }

    private func designTable() -> TableModel {
        let id = model.newID()
        let name = newObjectName(from: Self.tableNames)
        var table = TableModel(id: id, name: name, columns: [], key: .rowid)
        switch rng.weighted([2, 3, 2, 2, 2]) {
        case 1?:
            let column = ColumnModel(id: model.newID(), name: "id", domain: .uniqueInteger, type: .integer)
            table.columns.append(column)
            table.key = .integer(column: column.id, autoincrement: false)
        case 2?:
            let column = ColumnModel(id: model.newID(), name: "id", domain: .uniqueInteger, type: .integer)
            table.columns.append(column)
            table.key = .integer(column: column.id, autoincrement: true)
        case 3?:
            let domain = [Domain.uniqueText, .uniqueBlob, .uniqueReal, .uniqueMixed][rng.weighted([60, 15, 10, 15]) ?? 0]
            var column = ColumnModel(
                id: model.newID(), name: newColumnName(in: table, from: ["code", "clé", "slug", "key"]),
                domain: domain, type: ColumnType.natural(for: domain))
            column.notNull = rng.chance(60)
            column.nocase = domain == .uniqueText && rng.chance(30)
            if domain != .uniqueText { note(.nonTextKey) }
            table.columns.append(column)
            table.key = .text(column: column.id)
        case 4?:
            var part = ColumnModel(
                id: model.newID(), name: newColumnName(in: table, from: ["part", "bucket", "group"]),
                domain: rng.chance(50) ? .group : .integer, type: .integer)
            part.type = ColumnType.natural(for: part.domain)
            part.notNull = true
            table.columns.append(part)
            var item = ColumnModel(
                id: model.newID(), name: newColumnName(in: table, from: ["item", "serial", "position"]),
                domain: rng.chance(50) ? .uniqueText : .uniqueInteger, type: .text)
            item.type = ColumnType.natural(for: item.domain)
            item.notNull = true
            table.columns.append(item)
            table.key = .composite([part.id, item.id])
            if part.domain.isText, rng.chance(40) { table.keyNocase = [part.id] }
        default:
            break
        }
        switch table.key {
        case .text, .composite, .integer(_, false): table.withoutRowid = rng.chance(40)
        default: break
        }
        table.strict = rng.chance(25)
        table.explicitKeys = table.withoutRowid || rng.chance(50)
        for _ in 0..<rng.int(2...4) { table.columns.append(designColumn(in: table)) }
        if !table.withoutRowid, rng.chance(8) {
            // A column that takes the name "rowid": the real one is then _rowid_ or oid.
            var shadow = designColumn(in: table)
            shadow.name = rng.pick(["rowid", "ROWID", "oid"], or: "rowid")
            if !table.columns.contains(where: { SQLSyntax.fold($0.name) == SQLSyntax.fold(shadow.name) }) {
                table.columns.append(shadow)
                note(.columnNamedRowid)
            }
        }
        if rng.chance(40), let reference = referenceColumn(in: table) { table.columns.append(reference) }
        let groups = table.columns.filter { $0.domain == .group && !table.isKeyColumn($0.id) }
        if rng.chance(35), let group = rng.pick(groups) {
            var columns = [group.id]
            if rng.chance(25), let flag = table.columns.first(where: { $0.domain == .flag }) { columns.append(flag.id) }
            table.uniques.append(UniqueConstraint(columns: columns, conflict: rng.chance(50) ? .replace : .ignore))
        }
        if rng.chance(30), let generated = generatedColumn(in: table, stored: rng.chance(40)) {
            table.columns.append(generated)
        }
        return table
    }

    /// A column that is not part of the key: a random domain, perhaps NOT NULL with a
    /// default, NOCASE, UNIQUE, with the domain's CHECK.
    func designColumn(in table: TableModel) -> ColumnModel {
        let domains: [Domain] = [
            .integer, .count, .flag, .text, .shortText, .group, .real, .blob, .mixed, .uniqueText, .uniqueInteger,
        ]
        let domain = domains[rng.weighted([3, 2, 2, 4, 2, 3, 2, 2, 2, 2, 1]) ?? 0]
        var column = ColumnModel(
            id: model.newID(), name: newColumnName(in: table), domain: domain, type: ColumnType.natural(for: domain))
        let defaults = ValuePools.defaults(for: domain)
        if !defaults.isEmpty, rng.chance(35) {
            column.notNull = rng.chance(70)
            column.defaultValue = rng.pick(defaults)
        }
        if domain.isText, rng.chance(25) { column.nocase = true }
        if domain.isUnique, rng.chance(60) { column.unique = true }
        if [.count, .flag, .shortText].contains(domain) {
            column.check = true
            column.checkAtTableLevel = rng.chance(30)
        }
        return column
    }

    /// A nullable column referencing the single-column key of an existing table that no
    /// ON CONFLICT REPLACE can remove rows from (that would orphan children unseen).
    func referenceColumn(in table: TableModel) -> ColumnModel? {
        let parents = model.ordinaryTables.filter { parent in
            guard parent.id != table.id, parent.collapsing?.conflict != .replace else { return false }
            switch parent.key {
            case .integer, .text: return true
            default: return false
            }
        }
        guard let parent = rng.pick(parents), let key = parent.key.columns.first, let keyColumn = parent.column(key)
        else { return nil }
        var column = ColumnModel(
            id: model.newID(), name: newColumnName(in: table, from: ["\(parent.name) id", "parent", "owner", "ref"]),
            domain: .reference, type: keyColumn.type)
        column.reference = Reference(table: parent.id, column: key, onDelete: rng.chance(50) ? .cascade : .setNull)
        return column
    }

    /// `GENERATED ALWAYS AS (lower(c))` or `length(c)` of a text column of `table`.
    func generatedColumn(in table: TableModel, stored: Bool) -> ColumnModel? {
        let sources = table.columns.filter { $0.domain.isText && $0.insertable }
        guard let source = rng.pick(sources) else { return nil }
        let lower = rng.chance(50)
        var column = ColumnModel(
            id: model.newID(), name: newColumnName(in: table, from: ["search key", "length", "folded", "clé calculée"]),
            domain: lower ? .text : .integer, type: lower ? .text : .integer)
        column.generated = Generated(function: lower ? .lower : .length, source: source.id, stored: stored)
        return column
    }

    /// Records the constructs a table definition uses.
    func noteDesign(_ table: TableModel) {
        switch table.key {
        case .rowid: break
        case .integer(_, let autoincrement):
            note(.integerPrimaryKey)
            if autoincrement { note(.autoincrement) }
        case .text: note(.textPrimaryKey)
        case .composite: note(.compositePrimaryKey)
        }
        if !table.keyNocase.isEmpty { note(.primaryKeyCollation) }
        if table.withoutRowid { note(.withoutRowid) }
        if table.strict { note(.strict) }
        for unique in table.uniques {
            switch unique.conflict {
            case .replace?: note(.uniqueOnConflictReplace)
            case .ignore?: note(.uniqueOnConflictIgnore)
            case nil: note(.uniqueColumn)
            }
        }
        for column in table.columns { noteColumn(column) }
    }

    func noteColumn(_ column: ColumnModel) {
        if column.unique { note(.uniqueColumn) }
        if column.notNull, column.defaultValue != nil { note(.notNullDefault) }
        if column.check { note(column.checkAtTableLevel ? .tableCheck : .check) }
        if column.nocase { note(.collateNocase) }
        switch column.reference?.onDelete {
        case .cascade?: note(.referencesCascade)
        case .setNull?: note(.referencesSetNull)
        case nil: break
        }
        if let generated = column.generated { note(generated.stored ? .generatedStored : .generatedVirtual) }
    }

    /// A new table filled in the same step: a copy of some columns of another table, or a
    /// per-group count of one.
    func createTableFilled() -> Change? {
        guard let source = rng.pick(model.ordinaryTables) else { return nil }
        let copied = source.columns.filter(\.insertable)
        guard !copied.isEmpty else { return nil }
        let id = model.newID()
        let name = newObjectName(from: ["archive", "snapshot", "résumé", "copy of \(source.name)"])
        let key = ColumnModel(id: model.newID(), name: "id", domain: .uniqueInteger, type: .integer)
        var table = TableModel(id: id, name: name, columns: [key], key: .integer(column: key.id, autoincrement: false))
        let group = copied.first { $0.domain == .group }
        if let group, rng.chance(40) {
            // A per-group count: the group's text and how many rows have it.
            var label = ColumnModel(id: model.newID(), name: group.name, domain: .group, type: .text)
            label.nocase = group.nocase
            if SQLSyntax.fold(label.name) == "id" { label.name = newColumnName(in: table) }
            table.columns.append(label)
            var count = ColumnModel(id: model.newID(), name: newColumnName(in: table, from: ["count", "rows"]), domain: .count, type: .integer)
            count.notNull = true
            count.check = true
            table.columns.append(count)
            model.tables.append(table)
            note(.createAndFill)
            return Change(name: "count \(source.name) by \(group.name)", statements: [
                SchemaRendering.createTable(table, model: model),
                "INSERT INTO \(table.quotedName)(\(table.quoted(label.id)), \(table.quoted(count.id))) SELECT \(source.quoted(group.id)), count(*) FROM \(source.quotedName) GROUP BY 1 ORDER BY 1",
            ])
        }
        var sourceColumns: [ColumnModel] = []
        for column in rng.subset(copied, count: rng.int(1...3)) {
            // The same values, without the promise of uniqueness or of a parent.
            var copy = ColumnModel(id: model.newID(), name: column.name, domain: column.domain, type: column.type)
            switch column.domain {
            case .uniqueText: copy.domain = .text
            case .uniqueInteger: copy.domain = .integer
            case .uniqueBlob: copy.domain = .blob
            case .uniqueReal: copy.domain = .real
            case .uniqueMixed: copy.domain = .mixed
            case .reference:
                switch column.type {
                case .text: copy.domain = .text
                case .integer: copy.domain = .integer
                case .real: copy.domain = .real
                case .blob: copy.domain = .blob
                case .any, .untyped: copy.domain = .mixed
                }
            default: break
            }
            copy.notNull = column.notNull
            copy.defaultValue = column.defaultValue
            copy.nocase = column.nocase
            copy.check = column.check
            if table.columns.contains(where: { SQLSyntax.fold($0.name) == SQLSyntax.fold(copy.name) }) {
                copy.name = newColumnName(in: table)
            }
            table.columns.append(copy)
            sourceColumns.append(column)
        }
        model.tables.append(table)
        noteDesign(table)
        note(.createAndFill)
        let targets = table.columns.dropFirst().map { SQLSyntax.identifier($0.name) }.joined(separator: ", ")
        let values = sourceColumns.map { source.quoted($0.id) }.joined(separator: ", ")
        return Change(name: "copy \(source.name) into \(table.name)", statements: [
            SchemaRendering.createTable(table, model: model),
            "INSERT INTO \(table.quotedName)(\(targets)) SELECT \(values) FROM \(source.quotedName) ORDER BY \(source.keyOrder)",
        ])
    }
}
