import CSQLite
import Foundation

/// The migration loops of the frameworks Preflight's runners rehearse, written again here
/// from the frameworks' own sources (docs/FIDELITY.md) with nothing but the SQLite C API, so that
/// a runner is judged against the framework and not against itself.
enum FrameworkOracle {
    /// Android's `SQLiteOpenHelper.getDatabaseLocked`: `beginTransaction()` (BEGIN
    /// EXCLUSIVE), `onUpgrade` for every version from the file's to the new one,
    /// `setVersion(new)`, `setTransactionSuccessful()`, `endTransaction()`. An exception in
    /// `onUpgrade` ends the transaction unsuccessful: everything rolls back. With
    /// `roomIdentityHash`, Room's `updateIdentity` inside the same transaction.
    static func openHelper(_ path: String, steps: [[String]], roomIdentityHash: String? = nil) throws {
        let db = try RawDatabase(path)
        let version = Int(try db.integer("PRAGMA user_version"))
        guard version < steps.count else { return }
        try db.run("BEGIN EXCLUSIVE")
        do {
            for statements in steps[version...] {
                for statement in statements { try db.run(statement) }
            }
            if let roomIdentityHash {
                try db.run("CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT)")
                try db.run("INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, '\(roomIdentityHash)')")
            }
            try db.run("PRAGMA user_version = \(steps.count)")
            try db.run("COMMIT")
        } catch {
            try? db.run("ROLLBACK")
            throw error
        }
    }

    /// The create path of a file at version 0 (`user_version` 0, empty): Android's
    /// `SQLiteOpenHelper.getDatabaseLocked` calls `onCreate` (the app's create script; for
    /// SQLDelight `Schema.create`) inside the same one transaction, then `setVersion`; Room's
    /// `onCreate` is `createAllTables` then `updateIdentity` (with `roomIdentityHash`); Drift's
    /// default `onCreate` is `createAll`, each statement committing on its own
    /// (`inTransaction: false`), then `user_version`.
    static func create(_ path: String, script: [String], version: Int, inTransaction: Bool = true, roomIdentityHash: String? = nil) throws {
        let db = try RawDatabase(path)
        guard try db.integer("PRAGMA user_version") == 0 else { return }
        if inTransaction { try db.run("BEGIN EXCLUSIVE") }
        do {
            for statement in script { try db.run(statement) }
            if let roomIdentityHash {
                try db.run("CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT)")
                try db.run("INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, '\(roomIdentityHash)')")
            }
            try db.run("PRAGMA user_version = \(version)")
            if inTransaction { try db.run("COMMIT") }
        } catch {
            if inTransaction { try? db.run("ROLLBACK") }
            throw error
        }
    }

    /// Drift's `_runMigrations` with the default `onUpgrade`: every statement of every step
    /// from the file's version on, each committing on its own, then `PRAGMA user_version`.
    /// `stoppingAfter` ends the loop after that step, as a kill there would (the version is
    /// not written); the file then holds what the statements committed.
    static func drift(_ path: String, steps: [[String]], stoppingAfter: Int? = nil) throws {
        let db = try RawDatabase(path)
        let version = Int(try db.integer("PRAGMA user_version"))
        guard version < steps.count else { return }
        for (index, statements) in steps.enumerated() where index >= version {
            for statement in statements { try db.run(statement) }
            if index + 1 == stoppingAfter { return }
        }
        try db.run("PRAGMA user_version = \(steps.count)")
    }

    /// GRDB's `DatabaseMigrator.runMigrations` and `Migration.run` on a connection with
    /// foreign keys on (GRDB's default): the migrations whose identifiers are not in
    /// `grdb_migrations`, in order, each as `PRAGMA foreign_keys = OFF`, `BEGIN IMMEDIATE`,
    /// its statements, its row, `PRAGMA foreign_key_check` (a violation throws and rolls
    /// back), `COMMIT`, `PRAGMA foreign_keys = ON`.
    static func grdb(_ path: String, migrations: [(id: String, statements: [String])]) throws {
        let db = try RawDatabase(path)
        try db.run("PRAGMA foreign_keys = ON")
        let exists = try db.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'grdb_migrations'") > 0
        // Values come as SQL writes them: quoted.
        let applied = Set(exists ? try db.rows("SELECT identifier FROM grdb_migrations").map { $0[0] } : [])
        let pending = migrations.filter { !applied.contains("'\($0.id)'") }
        guard !pending.isEmpty else { return }
        try db.run("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        for migration in pending {
            try db.run("PRAGMA foreign_keys = OFF")
            try db.run("BEGIN IMMEDIATE")
            do {
                for statement in migration.statements { try db.run(statement) }
                try db.run("INSERT INTO grdb_migrations (identifier) VALUES ('\(migration.id)')")
                if try !db.rows("PRAGMA foreign_key_check").isEmpty {
                    throw OracleFailure(statement: "PRAGMA foreign_key_check", message: "FOREIGN KEY constraint failed")
                }
                try db.run("COMMIT")
            } catch {
                try? db.run("ROLLBACK")
                try db.run("PRAGMA foreign_keys = ON")
                throw error
            }
            try db.run("PRAGMA foreign_keys = ON")
        }
    }

    /// Everything a migration can change in a file, as lines to compare: its version and
    /// application id, its schema, and every row of every table in rowid order.
    static func contents(of path: String) throws -> [String] {
        let db = try RawDatabase(path)
        var lines = [
            "user_version \(try db.integer("PRAGMA user_version"))",
            "application_id \(try db.integer("PRAGMA application_id"))",
        ]
        lines += try db.rows("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name").map {
            $0.joined(separator: " | ")
        }
        for table in try db.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") {
            let name = table[0].dropFirst().dropLast()
            lines += try db.rows("SELECT * FROM \"\(name)\" ORDER BY rowid").map { "\(name): " + $0.joined(separator: ", ") }
        }
        return lines
    }
}

/// What an oracle's SQLite said: the statement and its message.
struct OracleFailure: Error, Equatable {
    var statement: String
    var message: String
}

/// One connection through the SQLite C API alone, closed (rolling back whatever it has open)
/// when the value goes away.
final class RawDatabase {
    private let handle: OpaquePointer

    init(_ path: String) throws {
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard code == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            throw OracleFailure(statement: "open \(path)", message: String(cString: sqlite3_errstr(code)))
        }
        handle = db
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one statement to its end.
    func run(_ sql: String) throws { _ = try rows(sql) }

    /// The rows of one statement, each value as SQL would write it (`quote()`): `NULL`,
    /// `12`, `'text'`.
    func rows(_ sql: String) throws -> [[String]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw OracleFailure(statement: sql, message: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
        var rows: [[String]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else {
                throw OracleFailure(statement: sql, message: String(cString: sqlite3_errmsg(handle)))
            }
            rows.append((0..<sqlite3_column_count(statement)).map { column in
                switch sqlite3_column_type(statement, column) {
                case SQLITE_NULL: return "NULL"
                case SQLITE_INTEGER: return String(sqlite3_column_int64(statement, column))
                case SQLITE_FLOAT: return String(sqlite3_column_double(statement, column))
                default:
                    let text = sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
                    return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
                }
            })
        }
    }

    func integer(_ sql: String) throws -> Int64 {
        guard let value = try rows(sql).first?.first, let number = Int64(value) else {
            throw OracleFailure(statement: sql, message: "no integer answer")
        }
        return number
    }
}
