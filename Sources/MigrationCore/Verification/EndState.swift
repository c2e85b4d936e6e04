/// What two runs of one plan on one file must share at their end to count as the same
/// result: where the file stands, its schema, every table's rows and `sqlite_sequence`.
/// A kill sweep compares each interrupted run with the uninterrupted one by this.
///
///     let state = try EndState.read(connection, plan: plan)
///     let differences = state.differences(from: uninterrupted)   // [] when the same
///
/// Rows are hashed in rowid order (primary-key order for WITHOUT ROWID tables), as
/// `quote()` literals, so that a value's type is part of it (1, 1.0, '1' and X'31'
/// differ). The implicit rowid itself is not hashed: a rebuild renumbers it without
/// changing what the app stores; a rowid that is an INTEGER PRIMARY KEY is a declared
/// column and is.
public struct EndState: Sendable, Codable, Equatable {
    /// Where the file stands, as the plan's runner reads it (GRDB: its position in the plan).
    public var version: Int
    public var userVersion: Int
    /// Every `sqlite_schema` entry as `type name: SQL` in `SQLNormalizer`'s canonical
    /// spelling (automatic indexes without SQL), sorted.
    public var schema: [String]
    /// Every table that stores rows (`sqlite_sequence` aside), by name.
    public var tables: [String: TableContent]
    /// `sqlite_sequence`: the AUTOINCREMENT counters, by table.
    public var sequence: [String: Int64]
    /// "ok", or the first lines of `PRAGMA integrity_check`.
    public var integrity: String

    /// The rows of one table: how many, and a SHA-256 of them in order.
    public struct TableContent: Sendable, Codable, Equatable {
        public var rows: Int64
        public var sha256: String
    }

    enum CodingKeys: String, CodingKey {
        case version, userVersion = "user_version", schema, tables, sequence, integrity
    }

    /// Reads the state of the database open on `connection` (only reads).
    public static func read(_ connection: Connection, plan: Plan) throws(SQLiteError) -> EndState {
        let integrity = try connection.rows("PRAGMA main.integrity_check(10)").compactMap { $0.first?.textValue }
        let entries = try connection.rows("SELECT type, name, sql, rootpage FROM main.sqlite_schema")
        var schema: [String] = []
        var tables: [String: TableContent] = [:]
        for entry in entries {
            let (type, name) = (entry[0].textValue ?? "", entry[1].textValue ?? "")
            schema.append("\(type) \(name)" + (entry[2].textValue.map { ": " + SQLNormalizer.statement($0) } ?? ""))
            if type == "table", (entry[3].integerValue ?? 0) != 0, name != "sqlite_sequence" {
                tables[name] = try content(of: name, connection)
            }
        }
        var sequence: [String: Int64] = [:]
        if entries.contains(where: { $0[1].textValue == "sqlite_sequence" }) {
            for row in try connection.rows("SELECT name, seq FROM main.sqlite_sequence") {
                if let name = row[0].textValue { sequence[name] = row[1].integerValue ?? 0 }
            }
        }
        return EndState(
            version: try Standing.read(connection, plan: plan).version, userVersion: try connection.userVersion,
            schema: schema.sorted(), tables: tables, sequence: sequence,
            integrity: integrity == ["ok"] || integrity.isEmpty ? "ok" : integrity.joined(separator: "; "))
    }

    /// The rows of `table`, hashed in rowid or primary-key order.
    private static func content(of table: String, _ connection: Connection) throws(SQLiteError) -> TableContent {
        let quoted = SQLText.quote(table)
        let columns = try connection.rows(
            "SELECT name, pk FROM pragma_table_xinfo(?, 'main') ORDER BY cid", [.text(table)])
        guard !columns.isEmpty else { return TableContent(rows: 0, sha256: SHA256.hex([])) }
        let withoutRowID =
            try connection.integer(
                "SELECT wr FROM \(TableList.main) WHERE name = ?", [.text(table)]) != 0
        let order: String
        if withoutRowID {
            order = columns.filter { ($0[1].integerValue ?? 0) > 0 }
                .sorted { ($0[1].integerValue ?? 0) < ($1[1].integerValue ?? 0) }
                .map { SQLText.quote($0[0].textValue ?? "") }.joined(separator: ", ")
        } else {
            order = "rowid"
        }
        let row = columns.map { "quote(\(SQLText.quote($0[0].textValue ?? "")))" }.joined(separator: " || ',' || ")
        let statement = try connection.prepare("SELECT \(row) FROM main.\(quoted) ORDER BY \(order)")
        try statement.bind([])
        var hasher = SHA256()
        var count: Int64 = 0
        while try statement.step() {
            // Each row preceded by its length, so that row boundaries are part of the hash.
            let bytes = Array((statement.column(0).textValue ?? "").utf8)
            withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { hasher.update(buffer: $0) }
            hasher.update(bytes)
            count += 1
        }
        return TableContent(rows: count, sha256: hasher.finalizeHex())
    }

    /// What differs from `expected`, one phrase each for a person ("table log: 6 rows,
    /// the uninterrupted run has 3"); empty when the two are the same.
    public func differences(from expected: EndState, expectedName: String = "the uninterrupted run") -> [String] {
        var lines: [String] = []
        if integrity != "ok" { lines.append("integrity_check reports \(integrity)") }
        if version != expected.version {
            lines.append("it stands at version \(version), \(expectedName) at \(expected.version)")
        } else if userVersion != expected.userVersion {
            lines.append("user_version \(userVersion), \(expectedName) has \(expected.userVersion)")
        }
        let (have, want) = (Set(schema), Set(expected.schema))
        for entry in want.subtracting(have).sorted() { lines.append("schema lacks \(entry)") }
        for entry in have.subtracting(want).sorted() { lines.append("schema has an extra \(entry)") }
        for name in Set(tables.keys).union(expected.tables.keys).sorted() {
            guard let mine = tables[name], let theirs = expected.tables[name] else { continue }  // the schema said it
            if mine.rows != theirs.rows {
                lines.append("table \(name) has \(mine.rows) rows, \(expectedName) \(theirs.rows)")
            } else if mine.sha256 != theirs.sha256 {
                lines.append("table \(name) has as many rows (\(mine.rows)) but different contents")
            }
        }
        for name in Set(sequence.keys).union(expected.sequence.keys).sorted() where sequence[name] != expected.sequence[name] {
            lines.append(
                "sqlite_sequence of \(name) is \(sequence[name].map(String.init) ?? "absent"), \(expectedName) \(expected.sequence[name].map(String.init) ?? "absent")")
        }
        return lines
    }
}
