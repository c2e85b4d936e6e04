/// The SQL Room's compiler writes for an `@AutoMigration(from = a, to = b, spec = ...)`,
/// made from the two exported schemas and the spec's annotations, as room-compiler's
/// `SchemaDiffer` finds the changes and its `AutoMigrationWriter` writes them
/// (androidx/androidx room/room-compiler/src/main/kotlin/androidx/room/util/SchemaDiffer.kt,
/// .../writer/AutoMigrationWriter.kt). Room's writer tests hold the expected outputs
/// (room-compiler/src/test/test-data/autoMigrationWriter/output) that the tests check.
///
/// The order is the writer's: drop every view of version a, the simple changes (deleted
/// tables, renamed tables, added columns, added tables with their indices), then each table
/// with complex changes (FTS tables last) as a copy into `_new_<table>`, then create every
/// view of version b. Where the compiler refuses (a column gone without `@DeleteColumn`),
/// so does this, with the compiler's reason.
struct RoomAutoMigration {
    /// An `AutoMigrationSpec`'s annotations.
    struct Spec: Equatable {
        var renamedColumns: [(table: String, from: String, to: String)] = []
        var deletedColumns: [(table: String, column: String)] = []
        var renamedTables: [(from: String, to: String)] = []
        var deletedTables: [String] = []

        static func == (left: Spec, right: Spec) -> Bool {
            left.renamedColumns.map { [$0.table, $0.from, $0.to] } == right.renamedColumns.map { [$0.table, $0.from, $0.to] }
                && left.deletedColumns.map { [$0.table, $0.column] } == right.deletedColumns.map { [$0.table, $0.column] }
                && left.renamedTables.map { [$0.from, $0.to] } == right.renamedTables.map { [$0.from, $0.to] }
                && left.deletedTables == right.deletedTables
        }
    }

    let from: RoomSchemaBundle
    let to: RoomSchemaBundle
    let spec: Spec

    /// A table rewritten through a `_new_` copy: its old and new entity and the renamed
    /// columns (new name to old).
    private struct ComplexChange {
        var old: RoomSchemaBundle.Entity
        var new: RoomSchemaBundle.Entity
        var renamedColumns: [String: String]
    }

    /// The statements in the order the generated `migrate` runs them, or the compiler's
    /// reason for refusing.
    func statements() throws(PlanImportError) -> [String] {
        var complex: [(key: String, change: ComplexChange)] = []
        var renamedTables: [(String, String)] = []
        var processedColumns: [String: [String]] = [:]

        func setComplex(_ key: String, _ change: ComplexChange) throws(PlanImportError) {
            if to.entity(change.new.newTableName) != nil {
                throw PlanImportError("the new version has a table named \(change.new.newTableName), the name Room needs for its copy of \(change.new.tableName)")
            }
            renamedTables.removeAll { $0.0 == key }
            if let existing = complex.firstIndex(where: { $0.key == key }) {
                complex[existing].change.renamedColumns.merge(change.renamedColumns) { _, new in new }
            } else {
                complex.append((key, change))
            }
        }
        func isComplex(_ key: String) -> Bool { complex.contains { $0.key == key } }

        // From the old version to the new: renamed, deleted and changed tables and columns.
        for old in from.entities {
            let renamed = spec.renamedTables.filter { $0.from == old.tableName }
            guard renamed.count <= 1 else {
                throw PlanImportError("the spec renames table \(old.tableName) more than once")
            }
            let new: RoomSchemaBundle.Entity
            if let rename = renamed.first {
                guard let target = to.entity(rename.to) else {
                    throw PlanImportError("the spec renames \(rename.from) to \(rename.to), but the new version has no table \(rename.to)")
                }
                new = target
                if tableHasComplexChanges(old, new) || old.ftsOptions != nil {
                    try setComplex(old.tableName, ComplexChange(old: old, new: new, renamedColumns: [:]))
                } else {
                    renamedTables.append((old.tableName, new.tableName))
                }
            } else if let same = to.entity(old.tableName) {
                if spec.deletedTables.contains(old.tableName) {
                    throw PlanImportError("the spec deletes table \(old.tableName), but the new version still has it")
                }
                new = same
                if tableHasComplexChanges(old, new) {
                    try setComplex(old.tableName, ComplexChange(old: old, new: new, renamedColumns: [:]))
                }
            } else {
                guard spec.deletedTables.contains(old.tableName) else {
                    throw PlanImportError(
                        "table \(old.tableName) is gone from the new version, and the spec neither deletes (@DeleteTable) nor renames (@RenameTable) it: Room's compiler refuses this AutoMigration")
                }
                continue
            }
            var processed: [String] = []
            for field in old.fields {
                let renames = spec.renamedColumns.filter { $0.table == old.tableName && $0.from == field.columnName }
                guard renames.count <= 1 else {
                    throw PlanImportError("the spec renames column \(old.tableName).\(field.columnName) more than once")
                }
                if let rename = renames.first {
                    try setComplex(old.tableName, ComplexChange(old: old, new: new, renamedColumns: [rename.to: field.columnName]))
                    processed.append(rename.to)
                } else if let match = new.field(field.columnName) {
                    if !match.isSchemaEqual(field), !isComplex(old.tableName) {
                        try setComplex(old.tableName, ComplexChange(old: old, new: new, renamedColumns: [:]))
                    }
                    processed.append(match.columnName)
                } else if !spec.deletedColumns.contains(where: { $0.table == old.tableName && $0.column == field.columnName }) {
                    throw PlanImportError(
                        "column \(old.tableName).\(field.columnName) is gone from the new version, and the spec neither deletes (@DeleteColumn) nor renames (@RenameColumn) it: Room's compiler refuses this AutoMigration")
                }
            }
            processedColumns[new.tableName] = processed
        }

        // From the new version back: added tables and columns.
        var addedTables: [RoomSchemaBundle.Entity] = []
        var addedColumns: [(table: String, field: RoomSchemaBundle.Field)] = []
        for new in to.entities {
            let rename = spec.renamedTables.first { $0.to == new.tableName }
            guard let old = from.entity(rename?.from ?? new.tableName) else {
                addedTables.append(new)
                continue
            }
            let processed = processedColumns[new.tableName] ?? []
            for field in new.fields where !processed.contains(field.columnName) && old.field(field.columnName) == nil {
                if field.notNull, field.defaultValue == nil {
                    throw PlanImportError(
                        "new column \(new.tableName).\(field.columnName) is NOT NULL without a default value: Room's compiler refuses this AutoMigration")
                }
                if !isComplex(old.tableName) { addedColumns.append((new.tableName, field)) }
            }
        }

        // Deleted columns make their table complex.
        for deleted in spec.deletedColumns where !isComplex(deleted.table) {
            guard let old = from.entity(deleted.table), let new = to.entity(deleted.table) else {
                throw PlanImportError("the spec deletes column \(deleted.table).\(deleted.column), but table \(deleted.table) is not in both versions")
            }
            try setComplex(deleted.table, ComplexChange(old: old, new: new, renamedColumns: [:]))
        }

        // An FTS table whose content table was renamed is rewritten too.
        for rename in spec.renamedTables {
            for fts in from.entities where fts.contentTable == rename.from && !isComplex(fts.tableName) && to.entity(fts.tableName) != nil {
                try setComplex(fts.tableName, ComplexChange(old: fts, new: fts, renamedColumns: [:]))
            }
        }

        var sql: [String] = from.views.map { "DROP VIEW \($0.viewName)" }
        sql += spec.deletedTables.map { "DROP TABLE `\($0)`" }
        sql += renamedTables.map { "ALTER TABLE `\($0.0)` RENAME TO `\($0.1)`" }
        sql += addedColumns.map { added in
            var statement = "ALTER TABLE `\(added.table)` ADD COLUMN `\(added.field.columnName)` \(added.field.affinity)"
            if added.field.notNull { statement += " NOT NULL" }
            if let value = added.field.defaultValue, !value.isEmpty {
                statement += " DEFAULT \(value)"
            } else {
                statement += " DEFAULT NULL"
            }
            return statement
        }
        for table in addedTables {
            sql.append(table.createTable)
            sql += table.indices.map { $0.createSQL(table: table.tableName) }
        }
        // Stable: normal tables first, FTS tables after them, each group in the order found.
        for (_, change) in complex.filter({ $0.change.new.ftsOptions == nil }) + complex.filter({ $0.change.new.ftsOptions != nil }) {
            sql += rewrite(change)
        }
        sql += to.views.map(\.createView)
        return sql
    }

    /// `SchemaDiffer.tableContainsComplexChanges`.
    private func tableHasComplexChanges(_ old: RoomSchemaBundle.Entity, _ new: RoomSchemaBundle.Entity) -> Bool {
        if (old.ftsOptions == nil) != (new.ftsOptions == nil) { return true }
        if let options = old.ftsOptions, options != new.ftsOptions { return true }
        if !foreignKeysMatch(old.foreignKeys, new.foreignKeys) { return true }
        if !indicesMatch(old.indices, new.indices) { return true }
        if old.primaryKey != new.primaryKey { return true }
        return old.foreignKeys.contains { key in spec.renamedTables.contains { $0.from == key.table } }
    }

    /// Foreign keys paired by their columns; an unpaired one or a pair that differs is a change.
    private func foreignKeysMatch(_ old: [RoomSchemaBundle.ForeignKey], _ new: [RoomSchemaBundle.ForeignKey]) -> Bool {
        let all = old + new
        for columns in Set(all.map(\.columns)) {
            let group = all.filter { $0.columns == columns }
            if group.count < 2 || group[0] != group[1] { return false }
        }
        return true
    }

    /// Indices paired by name.
    private func indicesMatch(_ old: [RoomSchemaBundle.Index], _ new: [RoomSchemaBundle.Index]) -> Bool {
        let all = old + new
        for name in Set(all.map(\.name)) {
            let group = all.filter { $0.name == name }
            if group.count < 2 || !group[0].isSchemaEqual(group[1]) { return false }
        }
        return true
    }

    /// The writer's statements for one complex change.
    private func rewrite(_ change: ComplexChange) -> [String] {
        if change.old.ftsOptions != nil, change.old.contentTable != nil {
            // An external-content FTS table is created anew and filled from its content
            // table. The column list is the old table's (as the writer makes it).
            let newColumns = change.old.fields.map(\.columnName)
            let oldColumns = newColumns.map { change.renamedColumns[$0] ?? $0 } + ["rowid"]
            let source = change.new.contentTable ?? change.old.tableName
            return [
                "DROP TABLE `\(change.old.tableName)`",
                change.new.createTable,
                "INSERT INTO `\(change.new.tableName)` (\(Self.quotedList(newColumns + ["docid"]))) SELECT \(Self.quotedList(oldColumns)) FROM `\(source)`",
            ]
        }
        let newColumns = change.new.fields.map(\.columnName).filter { change.old.field($0) != nil || change.renamedColumns[$0] != nil }
        let oldColumns = newColumns.map { change.renamedColumns[$0] ?? $0 }
        var sql = [
            change.new.createNewTable,
            "INSERT INTO `\(change.new.newTableName)` (\(Self.quotedList(newColumns))) SELECT \(Self.quotedList(oldColumns)) FROM `\(change.old.tableName)`",
            "DROP TABLE `\(change.old.tableName)`",
            "ALTER TABLE `\(change.new.newTableName)` RENAME TO `\(change.new.tableName)`",
        ]
        sql += change.new.indices.map { $0.createSQL(table: change.new.tableName) }
        if !change.new.foreignKeys.isEmpty { sql.append(Self.foreignKeyCheck(change.new.tableName)) }
        return sql
    }

    private static func quotedList(_ columns: [String]) -> String {
        columns.map { "`\($0)`" }.joined(separator: ",")
    }

    /// Room's `DBUtil.foreignKeyCheck(db, table)`: runs `PRAGMA foreign_key_check` on the
    /// table and throws when it finds a row that breaks a foreign key. One statement that
    /// fails when a row does, so that the migration fails where Room's does: `abs()` of the
    /// smallest integer is SQLite's "integer overflow" error in every release a phone runs
    /// (a function that newer releases brought, such as `json()`, would fail the step on
    /// older phones whatever the rows).
    static func foreignKeyCheck(_ table: String) -> String {
        let literal = "'" + table.replacingOccurrences(of: "'", with: "''") + "'"
        return "/* Room's DBUtil.foreignKeyCheck: an integer overflow here is a row of \(table.replacingOccurrences(of: "*/", with: "* /")) that breaks a foreign key */ "
            + "SELECT CASE WHEN EXISTS (SELECT 1 FROM pragma_foreign_key_check(\(literal))) THEN abs(-9223372036854775807 - 1) END"
    }
}
