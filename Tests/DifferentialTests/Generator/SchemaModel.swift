/// The generator's own picture of the schema a history has built so far: every table,
/// index, trigger and view, with the facts that decide which later steps are valid.
///
/// Objects refer to tables and columns by stable ids, never by name, so that a rename
/// changes one field and everything that mentions the object follows. The SQL of each
/// object is rendered from this model (`SchemaRendering`); `textKnown` says whether the
/// text SQLite keeps for an index or trigger is still exactly that rendering (an
/// `ALTER TABLE ... RENAME` rewrites it in ways the model does not predict).

/// What values a column holds; it decides the declared type, the CHECK constraint if any,
/// and the literals inserted into it.
enum Domain: Equatable, Sendable {
    /// Any 64-bit integer, the extremes included.
    case integer
    /// A non-negative integer, with `CHECK (c >= 0)`.
    case count
    /// 0 or 1, with `CHECK (c IN (0, 1))`.
    case flag
    /// Any text: empty, unicode, quotes, line breaks.
    case text
    /// Text of at most `SchemaRendering.shortTextLimit` characters, with a CHECK on its length.
    case shortText
    /// A few distinct texts, so that rows share values (what an ON CONFLICT collapses).
    case group
    case real
    case blob
    /// Values of every storage class.
    case mixed
    /// Text never inserted twice (a text key, a UNIQUE column).
    case uniqueText
    /// An integer never inserted twice (an integer key, a UNIQUE column).
    case uniqueInteger
    /// Keys of other storage classes, never inserted twice: blobs, reals, and a mix of
    /// integers, reals, texts and blobs (which a key's order sorts by class first).
    case uniqueBlob, uniqueReal, uniqueMixed
    /// A key of the parent the column's `reference` names, or NULL.
    case reference

    /// Whether every value is distinct, so that a UNIQUE constraint or index holds.
    var isUnique: Bool { [.uniqueText, .uniqueInteger, .uniqueBlob, .uniqueReal, .uniqueMixed].contains(self) }

    var isText: Bool { [.text, .shortText, .group, .uniqueText].contains(self) }

    var isInteger: Bool { [.integer, .count, .flag, .uniqueInteger].contains(self) }
}

/// A declared column type; the names are the ones a STRICT table accepts.
enum ColumnType: String, Sendable {
    case integer = "INTEGER", text = "TEXT", real = "REAL", blob = "BLOB", any = "ANY"
    /// No declared type (BLOB affinity); not allowed in a STRICT table, where `any` stands in.
    case untyped = ""

    static func natural(for domain: Domain) -> ColumnType {
        switch domain {
        case .integer, .count, .flag, .uniqueInteger, .reference: return .integer
        case .text, .shortText, .group, .uniqueText: return .text
        case .real, .uniqueReal: return .real
        case .blob, .uniqueBlob: return .blob
        case .mixed, .uniqueMixed: return .untyped
        }
    }
}

enum OnDelete: String, Sendable {
    case cascade = "CASCADE", setNull = "SET NULL"
}

/// A column's `REFERENCES parent(key)`.
struct Reference: Sendable, Equatable {
    var table: Int
    var column: Int
    var onDelete: OnDelete
}

/// `GENERATED ALWAYS AS (function(source))`.
struct Generated: Sendable, Equatable {
    enum Function: String, Sendable {
        case lower, length
    }

    var function: Function
    var source: Int
    var stored: Bool
}

struct ColumnModel: Sendable {
    let id: Int
    var name: String
    var domain: Domain
    var type: ColumnType
    var notNull = false
    /// A literal (the only defaults ADD COLUMN accepts besides NULL).
    var defaultValue: String?
    var nocase = false
    /// Column-level `UNIQUE` (no conflict clause).
    var unique = false
    /// Renders the domain's CHECK, at column level or (when `checkAtTableLevel`) as a table constraint.
    var check = false
    var checkAtTableLevel = false
    var reference: Reference?
    var generated: Generated?

    /// Whether INSERT can name the column.
    var insertable: Bool { generated == nil }
}

enum TableKey: Sendable, Equatable {
    /// No declared primary key: the rowid alone.
    case rowid
    /// `INTEGER PRIMARY KEY [AUTOINCREMENT]`.
    case integer(column: Int, autoincrement: Bool)
    /// `TEXT PRIMARY KEY`.
    case text(column: Int)
    /// `PRIMARY KEY (a, b)` as a table constraint.
    case composite([Int])

    var columns: [Int] {
        switch self {
        case .rowid: return []
        case .integer(let column, _), .text(let column): return [column]
        case .composite(let columns): return columns
        }
    }

    var isAutoincrement: Bool {
        if case .integer(_, true) = self { return true }
        return false
    }
}

/// `UNIQUE (columns) [ON CONFLICT ...]` as a table constraint.
struct UniqueConstraint: Sendable, Equatable {
    enum Conflict: String, Sendable {
        case replace = "REPLACE", ignore = "IGNORE"
    }

    var columns: [Int]
    var conflict: Conflict?
}

struct TableModel: Sendable {
    enum Role: Sendable {
        case ordinary
        /// `"audit log"`, which triggers write to; never altered.
        case auditLog
        /// `"counters"`, which update triggers count in; never altered.
        case counters
    }

    let id: Int
    var name: String
    var columns: [ColumnModel]
    var key: TableKey
    var withoutRowid = false
    var strict = false
    var uniques: [UniqueConstraint] = []
    var role = Role.ordinary
    /// For an integer key SQLite could assign: whether inserts give it instead. A table
    /// keeps one way for good (after keys were given, SQLite's next one, the greatest plus
    /// one, could be a key given later), except that WITHOUT ROWID makes keys given.
    var explicitKeys = false

    func column(_ id: Int) -> ColumnModel? { columns.first { $0.id == id } }

    /// The column's name quoted, or a placeholder that no SQL accepts (a model bug then
    /// shows as an invalid history, never as a silently different one).
    func quoted(_ columnID: Int) -> String {
        column(columnID).map { SQLSyntax.identifier($0.name) } ?? "\"<missing column \(columnID)>\""
    }

    var quotedName: String { SQLSyntax.identifier(name) }

    func isKeyColumn(_ id: Int) -> Bool { key.columns.contains(id) }

    /// True when inserts leave the key out and SQLite assigns it (always for the bare rowid).
    var keyIsAssigned: Bool {
        if case .integer = key { return !withoutRowid && !explicitKeys }
        return key == .rowid
    }

    /// The constraint whose ON CONFLICT clause removes or skips rows, if any.
    var collapsing: UniqueConstraint? { uniques.first { $0.conflict != nil } }

    /// Key columns of a composite key whose PRIMARY KEY term says COLLATE NOCASE.
    var keyNocase: [Int] = []

    /// A name of the rowid no column takes (a column may be called "rowid"), as
    /// `TableSchema.rowidAlias` picks it; nil for WITHOUT ROWID.
    var rowidName: String? {
        guard !withoutRowid else { return nil }
        let taken = Set(columns.map { SQLSyntax.fold($0.name) })
        return ["rowid", "_rowid_", "oid"].first { !taken.contains($0) }
    }

    /// The key as `ORDER BY` terms: the order a chunked step walks the table in (the
    /// primary key's own collation, as `RebuildKey` orders by it).
    var keyOrder: String {
        guard let rowid = rowidName else {
            return key.columns.map { id in
                "\(quotedName).\(quoted(id))" + (keyNocase.contains(id) && column(id)?.nocase != true ? " COLLATE NOCASE" : "")
            }.joined(separator: ", ")
        }
        return "\(quotedName).\(rowid)"
    }
}

struct IndexModel: Sendable {
    enum Term: Sendable, Equatable {
        case column(Int, nocase: Bool, descending: Bool)
        case lower(Int)
        case length(Int)

        var column: Int {
            switch self {
            case .column(let id, _, _), .lower(let id), .length(let id): return id
            }
        }
    }

    enum Predicate: Sendable, Equatable {
        case notNull(Int)
        case flagSet(Int)

        var column: Int {
            switch self {
            case .notNull(let id), .flagSet(let id): return id
            }
        }
    }

    var name: String
    var table: Int
    var unique: Bool
    var terms: [Term]
    var predicate: Predicate?
    var textKnown = true

    var columns: [Int] { terms.map(\.column) + (predicate.map { [$0.column] } ?? []) }
}

struct TriggerModel: Sendable {
    enum Action: Sendable, Equatable {
        /// AFTER INSERT: a row in "audit log" with NEW.column.
        case logInsert(column: Int)
        /// AFTER DELETE: a row in "audit log" with OLD.column.
        case logDelete(column: Int)
        /// AFTER UPDATE OF column: one more in "counters" (the same whatever order rows change in).
        case countUpdates(column: Int)
        /// AFTER INSERT: a row in "audit log" with how many rows another table (or this one)
        /// has, so that the trigger names a table it is not on.
        case logInsertCount(of: Int)

        /// The column of its own table the trigger names, if any.
        var column: Int? {
            switch self {
            case .logInsert(let id), .logDelete(let id), .countUpdates(let id): return id
            case .logInsertCount: return nil
            }
        }

        /// The table the trigger's body reads, if it reads one.
        var reads: Int? {
            if case .logInsertCount(let table) = self { return table }
            return nil
        }
    }

    var name: String
    var table: Int
    var action: Action
    /// The table's name when the trigger was created, written into the log as text.
    var label: String
    var textKnown = true
}

struct ViewModel: Sendable {
    enum Body: Sendable {
        /// `SELECT columns FROM table [WHERE filter IS NOT NULL]`; no columns is `SELECT *`.
        case projection(table: Int, columns: [Int], notNull: Int?)
        /// A child joined to its parent through a foreign key column.
        case join(child: Int, via: Int, parent: Int, childColumns: [Int], parentColumns: [Int])
    }

    var name: String
    var body: Body

    var tables: [Int] {
        switch body {
        case .projection(let table, _, _): return [table]
        case .join(let child, _, let parent, _, _): return [child, parent]
        }
    }

    func uses(table: Int, column: Int) -> Bool {
        switch body {
        case .projection(let id, let columns, let notNull):
            return id == table && (columns.contains(column) || notNull == column)
        case .join(let child, let via, let parent, let childColumns, let parentColumns):
            if child == table, via == column || childColumns.contains(column) { return true }
            return parent == table && parentColumns.contains(column)
        }
    }
}

/// The FTS5 table, written to a limited number of times so that its segments never
/// automerge (which the default `automerge=4` would start at the fourth write).
struct FullTextModel: Sendable {
    var name: String
    var columns: [String]
    var writes = 0

    static let maximumWrites = 3

    /// The shadow tables FTS5 creates; their names are taken too.
    var shadowNames: [String] { ["data", "idx", "content", "docsize", "config"].map { name + "_" + $0 } }
}

struct SchemaModel: Sendable {
    var tables: [TableModel] = []
    var indexes: [IndexModel] = []
    var triggers: [TriggerModel] = []
    var views: [ViewModel] = []
    var fullText: FullTextModel?
    /// Folded names of every table, index, trigger and view ever created (never reused,
    /// so that a row count under one name always means the same table).
    private(set) var takenNames: Set<String> = []
    private var nextID = 1

    mutating func newID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    func isTaken(_ name: String) -> Bool { takenNames.contains(SQLSyntax.fold(name)) }

    mutating func take(_ name: String) { takenNames.insert(SQLSyntax.fold(name)) }

    func table(_ id: Int) -> TableModel? { tables.first { $0.id == id } }

    mutating func replace(_ table: TableModel) {
        if let index = tables.firstIndex(where: { $0.id == table.id }) { tables[index] = table }
    }

    var ordinaryTables: [TableModel] { tables.filter { $0.role == .ordinary } }

    func table(role: TableModel.Role) -> TableModel? { tables.first { $0.role == role } }

    func indexes(on table: Int) -> [IndexModel] { indexes.filter { $0.table == table } }

    func triggers(on table: Int) -> [TriggerModel] { triggers.filter { $0.table == table } }

    func views(reading table: Int) -> [ViewModel] { views.filter { $0.tables.contains(table) } }

    /// Triggers whose body reads `table` (on whichever table they are), and triggers on
    /// `table` that read some table: both are dropped and created again around a change to
    /// `table`, so that their text stays the model's.
    func triggers(around table: Int) -> [TriggerModel] {
        triggers.filter { $0.action.reads == table || ($0.table == table && $0.action.reads != nil) }
    }

    /// Columns of other tables whose REFERENCES name `table`.
    func children(of table: Int) -> [(table: TableModel, column: ColumnModel)] {
        tables.flatMap { child in
            child.columns.compactMap { column in
                column.reference?.table == table ? (child, column) : nil
            }
        }
    }

    /// Whether a column is named anywhere outside its table's own definition (an index,
    /// a trigger, a view, another table's foreign key) or feeds a generated column.
    func isUsedElsewhere(table: Int, column: Int) -> Bool {
        if indexes(on: table).contains(where: { $0.columns.contains(column) }) { return true }
        if triggers(on: table).contains(where: { $0.action.column == column }) { return true }
        if views.contains(where: { $0.uses(table: table, column: column) }) { return true }
        if children(of: table).contains(where: { $0.column.reference?.column == column }) { return true }
        return self.table(table)?.columns.contains { $0.generated?.source == column } ?? false
    }

    /// Marks the indexes and triggers of `table` as rewritten by SQLite (not those that
    /// read a table, which a change drops and creates again).
    mutating func forgetTexts(of table: Int) {
        for index in indexes.indices where indexes[index].table == table { indexes[index].textKnown = false }
        for index in triggers.indices where triggers[index].table == table && triggers[index].action.reads == nil {
            triggers[index].textKnown = false
        }
    }
}
