import Foundation

/// What two database files must share to count as the same end state of a migration:
/// version, schema, and every stored row, read with the plain C API (`PlainSQLite`).
///
/// Left out on purpose: page layout, free pages, journal mode and other header bytes, and
/// the implicit rowid of tables that have no INTEGER PRIMARY KEY (SQLite itself does not keep
/// those stable: VACUUM renumbers them, so an app cannot rely on them). A rowid that is an
/// INTEGER PRIMARY KEY is a declared column and is compared.
struct DatabaseFingerprint: Sendable {
    /// One row of `sqlite_schema`, without `rootpage` (where a b-tree sits is layout).
    struct SchemaEntry: Sendable, Hashable, Comparable {
        var type: String
        var name: String
        var tableName: String
        /// The `CREATE` text as `normalise` leaves it; nil for automatic indexes.
        var sql: String?

        static func < (a: SchemaEntry, b: SchemaEntry) -> Bool {
            (a.type, a.name, a.tableName, a.sql ?? "") < (b.type, b.name, b.tableName, b.sql ?? "")
        }

        /// `type name`, as a person names the entry.
        var label: String { "\(type) \(name)" }
    }

    var userVersion: Int64
    /// Every `sqlite_schema` row, sorted.
    var schema: [SchemaEntry]
    /// Row count of every table: those that store rows (ordinary tables, `sqlite_sequence`,
    /// `sqlite_stat*` if present, and FTS and R*Tree shadow tables) and virtual tables, as
    /// `SELECT count(*)` counts them. Views are not tables.
    var rowCounts: [String: Int64]
    /// The tables a user created and counts, with their counts: what the report's
    /// `input.tables`, `final.tables` and `rows_lost` speak of (docs/CONTRACT.md §3, "Tables").
    var userTables: [String: Int64]
    /// For each table that stores rows, a hash of its rows that does not depend on the rows'
    /// order. A virtual table's rows are its shadow tables' and are hashed there.
    var contentHashes: [String: String]
    /// Rows that `PRAGMA foreign_key_check` reports: a migration may leave some, and
    /// Preflight's verification must then say so (docs/CONTRACT.md §3, `verification_failed`).
    var foreignKeyViolations: Int

    /// Entries whose name marks them as Preflight's own bookkeeping, which must not survive
    /// into a migrated file.
    var preflightLeftovers: [SchemaEntry] {
        schema.filter { $0.name.lowercased().hasPrefix("_preflight_") }
    }

    /// The tables a user counts, as a user counts them: `SELECT count(*) FROM "name"` on
    /// every table in `sqlite_schema` that is not a shadow table, virtual tables included,
    /// without SQLite's own `sqlite_*` and Preflight's `_preflight_*`. Which tables are
    /// shadow tables SQLite says (`PRAGMA table_list` types them `shadow`); nothing of
    /// Preflight's decides it (Preflight's own list: Sources/MigrationCore/Verification/UserTable.swift).
    static func userTableCounts(_ db: PlainSQLite) throws -> [String: Int64] {
        let names = try db.textRows(
            """
            SELECT name FROM main.sqlite_schema AS s WHERE type = 'table' AND NOT EXISTS (
              SELECT 1 FROM pragma_table_list AS l WHERE l.schema = 'main' AND l.name = s.name AND l.type = 'shadow')
            """
        ).compactMap { $0.first ?? nil }.filter { name in
            let folded = name.lowercased()
            return !folded.hasPrefix("sqlite_") && !folded.hasPrefix("_preflight_")
        }
        return try count(names, in: db)
    }

    /// The row count of every table (see `rowCounts`).
    static func rowCounts(_ db: PlainSQLite) throws -> [String: Int64] {
        let virtual = try db.textRows("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'virtual'")
            .compactMap { $0.first ?? nil }
        return try count(try storedTables(db) + virtual, in: db)
    }

    private static func count(_ tables: [String], in db: PlainSQLite) throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for table in tables {
            counts[table] = try db.integer("SELECT count(*) FROM main.\(PlainSQLite.quote(table))")
        }
        return counts
    }

    /// Reads the fingerprint of the file at `path`.
    static func read(_ path: String) throws -> DatabaseFingerprint {
        try read(PlainSQLite(path: path))
    }

    static func read(_ db: PlainSQLite) throws -> DatabaseFingerprint {
        let schema = try db.textRows("SELECT type, name, tbl_name, sql FROM main.sqlite_schema").map { row in
            SchemaEntry(
                type: row[0] ?? "", name: row[1] ?? "", tableName: row[2] ?? "", sql: row[3].map(normalise))
        }.sorted()
        var hashes: [String: String] = [:]
        for table in try storedTables(db) { hashes[table] = hash(try rows(of: table, in: db)) }
        return DatabaseFingerprint(
            userVersion: try db.integer("PRAGMA main.user_version"), schema: schema, rowCounts: try rowCounts(db),
            userTables: try userTableCounts(db), contentHashes: hashes, foreignKeyViolations: try db.rows("PRAGMA main.foreign_key_check").count)
    }

    /// The tables that hold rows in this file: `type = 'table'` with a b-tree of their own
    /// (virtual tables have rootpage 0; `sqlite_schema` itself is not listed in itself).
    static func storedTables(_ db: PlainSQLite) throws -> [String] {
        try db.textRows("SELECT name FROM main.sqlite_schema WHERE type = 'table' AND rootpage <> 0 ORDER BY name")
            .compactMap { $0.first ?? nil }
    }

    /// Every row of `table`, each as its columns' `quote()` literals joined by commas,
    /// sorted bytewise. `quote()` writes each value as an SQL literal (strings with their
    /// quotes doubled, blobs as X'..', reals with enough digits to round-trip), so the
    /// serialisation is unambiguous and keeps types apart (1, 1.0, '1' and X'31' differ).
    /// Sorting makes it independent of the order a scan returns rows in; duplicate rows are
    /// kept, so a table of two equal rows is not a table of one.
    static func rows(of table: String, in db: PlainSQLite) throws -> [[UInt8]] {
        // table_xinfo, not table_info: generated columns are part of what a row holds.
        let columns = try db.textRows("SELECT name FROM pragma_table_xinfo(\(literal(table)), 'main') ORDER BY cid")
            .compactMap { $0.first ?? nil }
        guard !columns.isEmpty else { return [] }
        let expression = columns.map { "quote(\(PlainSQLite.quote($0)))" }.joined(separator: " || ',' || ")
        return try db.rows("SELECT \(expression) FROM main.\(PlainSQLite.quote(table))")
            .map { $0.first.flatMap { $0 } ?? [] }
            .sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The normalisation applied to `sqlite_schema.sql` before comparing: every run of
    /// whitespace (space, tab, newline, carriage return, form feed, vertical tab) becomes one
    /// space, and leading and trailing whitespace goes. Nothing else changes: not case, not
    /// quoting, not comments. Runs inside string literals collapse too, which can hide only
    /// a difference in whitespace. Why at all: a tool that splits a step's SQL may trim or
    /// re-join statements, which changes only the spacing SQLite stores, not the schema.
    static func normalise(_ sql: String) -> String {
        let whitespace: Set<Character> = [" ", "\t", "\n", "\r", "\r\n", "\u{0C}", "\u{0B}"]
        var result = ""
        var pendingSpace = false
        for character in sql {
            if whitespace.contains(character) {
                pendingSpace = true
                continue
            }
            if pendingSpace && !result.isEmpty { result.append(" ") }
            pendingSpace = false
            result.append(character)
        }
        return result
    }

    /// FNV-1a (64 bit) over the sorted rows, each preceded by its length so that row
    /// boundaries are part of what is hashed. Not cryptographic; it only needs to tell
    /// apart tables that differ by accident, and to be the same on every machine.
    static func hash(_ rows: [[UInt8]]) -> String {
        var state: UInt64 = 0xcbf2_9ce4_8422_2325
        func feed(_ byte: UInt8) {
            state ^= UInt64(byte)
            state = state &* 0x0000_0100_0000_01b3
        }
        for row in rows {
            var length = UInt64(row.count)
            for _ in 0..<8 {
                feed(UInt8(truncatingIfNeeded: length))
                length >>= 8
            }
            row.forEach(feed)
        }
        return String(state, radix: 16)
    }

    /// `text` as an SQL string literal.
    private static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
