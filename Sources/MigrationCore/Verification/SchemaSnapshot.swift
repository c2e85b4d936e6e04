/// The structure of a database's schema, read from SQLite itself, with every name folded
/// to lower case and every piece of SQL in `SQLNormalizer`'s canonical spelling: two
/// schemas that SQLite reads the same way give equal snapshots however they were typed.
///
/// What it holds, and where each part comes from:
/// - tables: columns from `PRAGMA table_xinfo` (declared type in upper case, NOT NULL,
///   default, position in the primary key, hidden/generated), UNIQUE constraints from the
///   `sqlite_autoindex_*` indexes of `PRAGMA index_list`, foreign keys from
///   `PRAGMA foreign_key_list`; and from the CREATE TABLE text (`CreateTableStatement`),
///   which no pragma reports: WITHOUT ROWID, STRICT, AUTOINCREMENT, CHECK constraints,
///   column collations and generated-column expressions;
/// - indexes made by CREATE INDEX: key columns (`PRAGMA index_xinfo`) or expressions (the
///   CREATE INDEX text), uniqueness, the partial-index WHERE;
/// - triggers and views: their canonical SQL.
///
/// Left out: SQLite's own `sqlite_*` tables and Preflight's `_preflight_*` ones (and their
/// indexes and triggers); column order (an upgrade can only append columns, and SQLite
/// resolves columns by name, as Room's schema check does); constraint names; DEFERRABLE.
///
/// Related SQLite documentation: https://sqlite.org/pragma.html#pragma_table_xinfo
public struct SchemaSnapshot: Sendable, Equatable {
    public var tables: [String: Table]
    public var indexes: [String: Index]
    public var triggers: [String: Trigger]
    public var views: [String: View]

    public init(
        tables: [String: Table] = [:], indexes: [String: Index] = [:], triggers: [String: Trigger] = [:],
        views: [String: View] = [:]
    ) {
        self.tables = tables
        self.indexes = indexes
        self.triggers = triggers
        self.views = views
    }

    // MARK: - Parts

    public struct Table: Sendable, Equatable {
        public var name: String
        /// The canonical CREATE VIRTUAL TABLE statement of a virtual table (nil for an
        /// ordinary table); a virtual table's structure is its module's business.
        public var virtualDefinition: String?
        /// Keyed by column name.
        public var columns: [String: Column]
        public var withoutRowID: Bool
        public var strict: Bool
        public var autoincrement: Bool
        /// The column lists of UNIQUE constraints (not of CREATE UNIQUE INDEX).
        public var uniqueConstraints: Set<[String]>
        /// CHECK expressions, of the table or of its columns.
        public var checks: Set<String>
        /// Keyed by `ForeignKey.description`.
        public var foreignKeys: [String: ForeignKey]
    }

    public struct Column: Sendable, Equatable {
        public var name: String
        /// The declared type in upper case; "" when the column has none.
        public var type: String
        public var notNull: Bool
        /// The default value's canonical expression; nil without a DEFAULT.
        public var defaultValue: String?
        /// The column's position in the primary key, from 1; 0 when not part of it.
        public var primaryKeyPosition: Int
        public var kind: Kind
        /// The collating sequence in upper case ("BINARY" when the column names none).
        public var collation: String
        /// The expression of a generated column.
        public var generatedAs: String?

        /// `PRAGMA table_xinfo`'s `hidden` column.
        public enum Kind: Int, Sendable {
            case ordinary = 0, hidden = 1, generatedVirtual = 2, generatedStored = 3
        }
    }

    public struct Index: Sendable, Equatable {
        public var name: String
        public var table: String
        /// Key columns or canonical expressions, with ` DESC` / ` COLLATE X` where not the default.
        public var keys: [String]
        public var unique: Bool
        /// The canonical WHERE expression of a partial index.
        public var partial: String?
    }

    public struct ForeignKey: Sendable, Equatable, CustomStringConvertible {
        public var table: String
        public var columns: [String]
        public var parent: String
        /// The parent's columns; a clause that names none refers to the parent's primary
        /// key, so its columns are filled in from there.
        public var parentColumns: [String]
        public var onUpdate: String
        public var onDelete: String

        /// `notes(folder_id) -> folders(id)`; just `folders` for a parent without a
        /// declared primary key (the clause then refers to its rowid, or to nothing).
        public var description: String {
            let target = parentColumns.isEmpty ? parent : "\(parent)(\(parentColumns.joined(separator: ", ")))"
            return "\(table)(\(columns.joined(separator: ", "))) -> \(target)"
        }
    }

    public struct Trigger: Sendable, Equatable {
        public var name: String
        public var table: String
        public var sql: String
    }

    public struct View: Sendable, Equatable {
        public var name: String
        public var sql: String
    }
}

// MARK: - Reading

extension SchemaSnapshot {
    /// Reads the main schema of `connection`.
    public static func read(_ connection: Connection) throws(SQLiteError) -> SchemaSnapshot {
        var snapshot = SchemaSnapshot()
        let objects = try connection.rows("SELECT type, name, tbl_name, sql FROM main.sqlite_schema ORDER BY rowid")
        var indexSQL: [String: String] = [:]
        for row in objects {
            guard let type = row[0].textValue, let rawName = row[1].textValue else { continue }
            let name = SQLNormalizer.fold(rawName)
            let table = SQLNormalizer.fold(row[2].textValue ?? "")
            let sql = row[3].textValue
            if TableCounts.isInternal(name) || TableCounts.isInternal(table) { continue }
            switch type {
            case "table":
                snapshot.tables[name] = try readTable(connection, name: rawName, sql: sql ?? "")
            case "index":
                if let sql { indexSQL[name] = sql }
            case "trigger":
                snapshot.triggers[name] = Trigger(name: name, table: table, sql: SQLNormalizer.statement(sql ?? ""))
            case "view":
                snapshot.views[name] = View(name: name, sql: SQLNormalizer.statement(sql ?? ""))
            default:
                continue
            }
        }
        // Indexes and foreign keys need every table's columns first.
        for (name, table) in snapshot.tables where table.virtualDefinition == nil {
            let (indexes, unique) = try readIndexes(connection, table: name, sql: indexSQL)
            snapshot.tables[name]?.uniqueConstraints = unique
            for index in indexes { snapshot.indexes[index.name] = index }
            let foreignKeys = try readForeignKeys(connection, table: name, tables: snapshot.tables)
            snapshot.tables[name]?.foreignKeys = foreignKeys
        }
        return snapshot
    }

    private static func readTable(_ connection: Connection, name: String, sql: String) throws(SQLiteError) -> Table {
        let folded = SQLNormalizer.fold(name)
        let tokens = SQLNormalizer.statementTokens(sql)
        var table = Table(
            name: folded, virtualDefinition: nil, columns: [:], withoutRowID: false, strict: false,
            autoincrement: false, uniqueConstraints: [], checks: [], foreignKeys: [:])
        if tokens.count > 1 && tokens[1].isKeyword("VIRTUAL") {
            table.virtualDefinition = SQLNormalizer.render(tokens)
            return table
        }
        let statement = CreateTableStatement(sql)
        table.withoutRowID = statement.withoutRowID
        table.strict = statement.strict
        table.autoincrement = statement.autoincrement
        table.checks = Set(statement.checks.map(\.canonical))
        let rows = try connection.rows(
            "SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?, 'main') ORDER BY cid",
            [.text(name)])
        for row in rows {
            let columnName = SQLNormalizer.fold(row[0].textValue ?? "")
            let declared = statement.column(named: columnName)
            table.columns[columnName] = Column(
                name: columnName,
                type: SQLNormalizer.render(SQLNormalizer.tokens(row[1].textValue ?? "")).uppercased(),
                notNull: (row[2].integerValue ?? 0) != 0,
                defaultValue: row[3] == .null ? nil : SQLNormalizer.expression(text(row[3])),
                primaryKeyPosition: Int(row[4].integerValue ?? 0),
                kind: Column.Kind(rawValue: Int(row[5].integerValue ?? 0)) ?? .ordinary,
                collation: declared?.collation ?? "BINARY",
                generatedAs: declared?.generatedAs)
        }
        return table
    }

    /// The table's CREATE INDEX indexes, and the column lists of its UNIQUE constraints.
    private static func readIndexes(
        _ connection: Connection, table: String, sql: [String: String]
    ) throws(SQLiteError) -> ([Index], Set<[String]>) {
        var indexes: [Index] = []
        var unique: Set<[String]> = []
        let list = try connection.rows(
            "SELECT name, \"unique\", origin FROM pragma_index_list(?, 'main')", [.text(table)])
        for row in list {
            guard let rawName = row[0].textValue else { continue }
            let origin = row[2].textValue ?? "c"
            let keys = try connection.rows(
                "SELECT cid, name, \"desc\", coll FROM pragma_index_xinfo(?, 'main') WHERE key = 1 ORDER BY seqno",
                [.text(rawName)])
            switch origin {
            case "u":
                unique.insert(keys.map { SQLNormalizer.fold($0[1].textValue ?? "") })
            case "c":
                let name = SQLNormalizer.fold(rawName)
                let definition = IndexDefinition(SQLNormalizer.statementTokens(sql[name] ?? ""))
                let keyTexts = keys.enumerated().map { position, key in
                    var text = key[0].integerValue == -2
                        ? (position < definition.keys.count ? definition.keys[position] : "<expression>")
                        : SQLNormalizer.fold(key[1].textValue ?? "")
                    if (key[2].integerValue ?? 0) != 0 { text += " DESC" }
                    let collation = (key[3].textValue ?? "BINARY").uppercased()
                    if collation != "BINARY" { text += " COLLATE \(collation)" }
                    return text
                }
                indexes.append(Index(
                    name: name, table: table, keys: keyTexts, unique: (row[1].integerValue ?? 0) != 0,
                    partial: definition.partial))
            default:
                // "pk": the primary key's own index, already described by the columns.
                continue
            }
        }
        return (indexes, unique)
    }

    private static func readForeignKeys(
        _ connection: Connection, table: String, tables: [String: Table]
    ) throws(SQLiteError) -> [String: ForeignKey] {
        let rows = try connection.rows(
            """
            SELECT id, "table", "from", "to", on_update, on_delete FROM pragma_foreign_key_list(?, 'main')
            ORDER BY id, seq
            """, [.text(table)])
        var byID: [Int64: ForeignKey] = [:]
        var order: [Int64] = []
        for row in rows {
            let id = row[0].integerValue ?? 0
            if byID[id] == nil {
                order.append(id)
                byID[id] = ForeignKey(
                    table: table, columns: [], parent: SQLNormalizer.fold(row[1].textValue ?? ""), parentColumns: [],
                    onUpdate: (row[4].textValue ?? "NO ACTION").uppercased(),
                    onDelete: (row[5].textValue ?? "NO ACTION").uppercased())
            }
            byID[id]?.columns.append(SQLNormalizer.fold(row[2].textValue ?? ""))
            if let to = row[3].textValue { byID[id]?.parentColumns.append(SQLNormalizer.fold(to)) }
        }
        var result: [String: ForeignKey] = [:]
        for id in order {
            guard var key = byID[id] else { continue }
            if key.parentColumns.isEmpty, let parent = tables[key.parent] {
                key.parentColumns = parent.columns.values.filter { $0.primaryKeyPosition > 0 }
                    .sorted { $0.primaryKeyPosition < $1.primaryKeyPosition }.map(\.name)
            }
            result[key.description] = key
        }
        return result
    }

    private static func text(_ value: SQLiteValue) -> String {
        switch value {
        case .text(let text): return text
        default: return value.description
        }
    }
}

// MARK: - What only the CREATE INDEX text says

/// The parts of a CREATE INDEX statement that no pragma reports: the text of expression
/// keys and the WHERE of a partial index.
private struct IndexDefinition {
    /// Each key's canonical text without its ASC/DESC and COLLATE (the pragma has those).
    var keys: [String] = []
    var partial: String?

    init(_ tokens: [SQLNormalizer.Token]) {
        // CREATE [UNIQUE] INDEX name ON table ( keys ) [WHERE expression]
        guard let on = tokens.firstIndex(where: { $0.isKeyword("ON") }),
            let open = tokens[on...].firstIndex(where: { $0.isPunctuation("(") }),
            let close = SQLNormalizer.closingIndex(in: tokens[...], from: open)
        else { return }
        for item in SQLNormalizer.splitAtTopLevelCommas(tokens[(open + 1)..<close]) {
            var key = Array(item)
            while let last = key.last {
                if last.isKeyword("ASC") || last.isKeyword("DESC") {
                    key.removeLast()
                } else if key.count >= 2 && key[key.count - 2].isKeyword("COLLATE") {
                    key.removeLast(2)
                } else {
                    break
                }
            }
            keys.append(SQLNormalizer.render(SQLNormalizer.strippingOuterParentheses(key)))
        }
        if close + 1 < tokens.count && tokens[close + 1].isKeyword("WHERE") {
            partial = SQLNormalizer.render(SQLNormalizer.strippingOuterParentheses(Array(tokens[(close + 2)...])))
        }
    }
}
