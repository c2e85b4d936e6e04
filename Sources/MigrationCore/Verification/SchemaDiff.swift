/// The structural differences between an upgraded database's schema and a fresh
/// install's, one readable line each, sorted:
///
///     table outbox: after upgrade only
///     column notes.category: type TEXT after upgrade, INTEGER in fresh install
///     index idx_notes_updated on notes(updated_at): in fresh install, missing after upgrade
///     foreign key notes(folder_id) -> folders(id): in fresh install, missing after upgrade
///
/// Each line names the object, then either where it exists alone or how it differs, the
/// upgraded side first. A table present on one side only is one line (its columns and
/// constraints are not listed again); its indexes and triggers, objects of their own, are.
public struct SchemaDiff: Sendable, Equatable {
    public var lines: [String]

    public var isEmpty: Bool { lines.isEmpty }

    public init(upgraded: SchemaSnapshot, freshInstall: SchemaSnapshot) {
        var lines: [String] = []
        lines += Self.compare(upgraded.tables, freshInstall.tables, describe: { "table \($0.name)" }, detail: Self.tableDetails)
        lines += Self.compare(upgraded.indexes, freshInstall.indexes, describe: Self.describe, detail: Self.indexDetails)
        lines += Self.compare(
            upgraded.triggers, freshInstall.triggers, describe: { "trigger \($0.name) on \($0.table)" },
            detail: { upgraded, fresh in
                upgraded.sql == fresh.sql ? [] : ["trigger \(upgraded.name) on \(upgraded.table): " + Self.definitions(upgraded.sql, fresh.sql)]
            })
        lines += Self.compare(
            upgraded.views, freshInstall.views, describe: { "view \($0.name)" },
            detail: { upgraded, fresh in
                upgraded.sql == fresh.sql ? [] : ["view \(upgraded.name): " + Self.definitions(upgraded.sql, fresh.sql)]
            })
        self.lines = lines.sorted()
    }

    // MARK: - Wording

    private static let upgradedOnly = "after upgrade only"
    private static let freshOnly = "in fresh install, missing after upgrade"

    /// "`a` after upgrade, `b` in fresh install"
    private static func differs(_ upgraded: String, _ fresh: String) -> String {
        "\(upgraded) after upgrade, \(fresh) in fresh install"
    }

    private static func definitions(_ upgraded: String, _ fresh: String) -> String {
        "definition differs; after upgrade: \(upgraded); in fresh install: \(fresh)"
    }

    /// Lines for the objects of one kind: present on one side only, or different.
    private static func compare<Object>(
        _ upgraded: [String: Object], _ fresh: [String: Object], describe: (Object) -> String,
        detail: (Object, Object) -> [String]
    ) -> [String] {
        var lines: [String] = []
        for name in Set(upgraded.keys).union(fresh.keys) {
            switch (upgraded[name], fresh[name]) {
            case (let upgraded?, let fresh?): lines += detail(upgraded, fresh)
            case (let upgraded?, nil): lines.append("\(describe(upgraded)): \(upgradedOnly)")
            case (nil, let fresh?): lines.append("\(describe(fresh)): \(freshOnly)")
            case (nil, nil): break
            }
        }
        return lines
    }

    /// Lines for the members of one set (UNIQUE constraints, CHECKs) present on one side only.
    private static func compare<Member: Hashable>(
        _ upgraded: Set<Member>, _ fresh: Set<Member>, describe: (Member) -> String
    ) -> [String] {
        upgraded.subtracting(fresh).map { "\(describe($0)): \(upgradedOnly)" }
            + fresh.subtracting(upgraded).map { "\(describe($0)): \(freshOnly)" }
    }

    // MARK: - Tables

    private static func tableDetails(_ upgraded: SchemaSnapshot.Table, _ fresh: SchemaSnapshot.Table) -> [String] {
        let name = upgraded.name
        switch (upgraded.virtualDefinition, fresh.virtualDefinition) {
        case (let upgradedSQL?, let freshSQL?):
            return upgradedSQL == freshSQL ? [] : ["table \(name): " + definitions(upgradedSQL, freshSQL)]
        case (nil, nil):
            break
        default:
            let kind = { (table: SchemaSnapshot.Table) in table.virtualDefinition == nil ? "ordinary table" : "virtual table" }
            return ["table \(name): " + differs(kind(upgraded), kind(fresh))]
        }
        var lines: [String] = []
        func flag(_ keyPath: KeyPath<SchemaSnapshot.Table, Bool>, _ yes: String, _ no: String) {
            if upgraded[keyPath: keyPath] != fresh[keyPath: keyPath] {
                lines.append("table \(name): " + differs(upgraded[keyPath: keyPath] ? yes : no, fresh[keyPath: keyPath] ? yes : no))
            }
        }
        flag(\.withoutRowID, "WITHOUT ROWID", "rowid table")
        flag(\.strict, "STRICT", "not STRICT")
        flag(\.autoincrement, "AUTOINCREMENT", "no AUTOINCREMENT")
        lines += compare(upgraded.columns, fresh.columns, describe: { "column \(name).\($0.name)" }) {
            columnDetails(table: name, $0, $1)
        }
        lines += compare(upgraded.uniqueConstraints, fresh.uniqueConstraints) {
            "unique constraint \(name)(\($0.joined(separator: ", ")))"
        }
        lines += compare(upgraded.checks, fresh.checks) { "check constraint on \(name) (\($0))" }
        lines += compare(upgraded.foreignKeys, fresh.foreignKeys, describe: { "foreign key \($0)" }) { upgraded, fresh in
            var lines: [String] = []
            if upgraded.onUpdate != fresh.onUpdate {
                lines.append("foreign key \(upgraded): " + differs("ON UPDATE \(upgraded.onUpdate)", "ON UPDATE \(fresh.onUpdate)"))
            }
            if upgraded.onDelete != fresh.onDelete {
                lines.append("foreign key \(upgraded): " + differs("ON DELETE \(upgraded.onDelete)", "ON DELETE \(fresh.onDelete)"))
            }
            return lines
        }
        return lines
    }

    private static func columnDetails(
        table: String, _ upgraded: SchemaSnapshot.Column, _ fresh: SchemaSnapshot.Column
    ) -> [String] {
        let prefix = "column \(table).\(upgraded.name): "
        var lines: [String] = []
        func check<Value: Equatable>(_ keyPath: KeyPath<SchemaSnapshot.Column, Value>, _ text: (Value) -> String) {
            if upgraded[keyPath: keyPath] != fresh[keyPath: keyPath] {
                lines.append(prefix + differs(text(upgraded[keyPath: keyPath]), text(fresh[keyPath: keyPath])))
            }
        }
        if upgraded.type != fresh.type {
            lines.append(prefix + "type " + differs(orNone(upgraded.type), orNone(fresh.type)))
        }
        check(\.notNull) { $0 ? "NOT NULL" : "nullable" }
        if upgraded.defaultValue != fresh.defaultValue {
            lines.append(prefix + "default " + differs(orNone(upgraded.defaultValue), orNone(fresh.defaultValue)))
        }
        check(\.primaryKeyPosition) { $0 == 0 ? "not in the primary key" : "primary key column \($0)" }
        check(\.kind) { kind in
            switch kind {
            case .ordinary: return "ordinary column"
            case .hidden: return "hidden column"
            case .generatedVirtual: return "generated VIRTUAL column"
            case .generatedStored: return "generated STORED column"
            }
        }
        if upgraded.generatedAs != fresh.generatedAs {
            let text = { (expression: String?) in expression.map { "(\($0))" } ?? "(none)" }
            lines.append(prefix + "generated as " + differs(text(upgraded.generatedAs), text(fresh.generatedAs)))
        }
        if upgraded.collation != fresh.collation {
            lines.append(prefix + "collation " + differs(upgraded.collation, fresh.collation))
        }
        return lines
    }

    private static func orNone(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "(none)" }
        return text
    }

    // MARK: - Indexes

    /// `index idx_notes_updated on notes(updated_at)`
    private static func describe(_ index: SchemaSnapshot.Index) -> String {
        "index \(index.name) on \(keys(index))"
    }

    private static func keys(_ index: SchemaSnapshot.Index) -> String {
        "\(index.table)(\(index.keys.joined(separator: ", ")))"
    }

    private static func indexDetails(_ upgraded: SchemaSnapshot.Index, _ fresh: SchemaSnapshot.Index) -> [String] {
        var lines: [String] = []
        if upgraded.table != fresh.table || upgraded.keys != fresh.keys {
            lines.append("index \(upgraded.name): " + differs("on \(keys(upgraded))", "on \(keys(fresh))"))
        }
        if upgraded.unique != fresh.unique {
            lines.append("\(describe(upgraded)): " + differs(upgraded.unique ? "UNIQUE" : "not unique", fresh.unique ? "UNIQUE" : "not unique"))
        }
        if upgraded.partial != fresh.partial {
            let text = { (partial: String?) in partial.map { "WHERE \($0)" } ?? "no WHERE" }
            lines.append("\(describe(upgraded)): " + differs(text(upgraded.partial), text(fresh.partial)))
        }
        return lines
    }
}
