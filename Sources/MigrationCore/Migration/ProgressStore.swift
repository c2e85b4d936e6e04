import CSQLite
import Foundation

/// The durable cursor of a chunked step, kept in the migrated database itself so that
/// it commits in the same transaction as the batch it describes.
///
/// One row per step with work in progress. A database at version N-1 with a row for
/// step N is a valid intermediate state: the next run continues from `cursor`.
/// Tables named `_preflight_*` are Preflight's own and are left out of row counts and
/// schema comparisons.
///
/// A store saves batch after batch of one loop: its statement is prepared once, and the
/// table made once, so that a batch's own bookkeeping is one row written.
public final class ProgressStore {
    public static let table = "_preflight_progress"
    /// Prefix of every table Preflight creates for its own bookkeeping.
    public static let internalPrefix = "_preflight_"

    /// Where one chunked step stands.
    public struct Progress: Sendable, Equatable {
        public var step: Int
        /// The step's `definitionHash` when the work began.
        public var definition: String
        /// Which part of the step the cursor belongs to, e.g. "copy" or "purge".
        public var phase: String
        public var rows: Int64
        public var batches: Int
        /// Key of the last row done; nil before the first batch.
        public var cursor: [SQLiteValue]?
        /// Key of the last row that existed when the phase began.
        public var highWater: [SQLiteValue]?

        public init(
            step: Int, definition: String, phase: String, rows: Int64 = 0, batches: Int = 0,
            cursor: [SQLiteValue]? = nil, highWater: [SQLiteValue]? = nil
        ) {
            self.step = step
            self.definition = definition
            self.phase = phase
            self.rows = rows
            self.batches = batches
            self.cursor = cursor
            self.highWater = highWater
        }
    }

    let connection: Connection
    /// The prepared `INSERT OR REPLACE`, once the table is known to exist; nil again after
    /// an error or a `clear`, which may have left the table gone.
    private var insert: Statement?

    public init(connection: Connection) { self.connection = connection }

    private var exists: Bool {
        get throws(SQLiteError) {
            try connection.integer(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(ProgressStore.table)]) > 0
        }
    }

    /// The work in progress, if any (there is at most one: steps run in order).
    public func pending() throws(SQLiteError) -> Progress? {
        guard try exists else { return nil }
        let rows = try connection.rows(
            "SELECT step, definition, phase, rows, batches, cursor, high_water FROM \(ProgressStore.table) ORDER BY step LIMIT 1")
        guard let row = rows.first else { return nil }
        return Progress(
            step: Int(row[0].integerValue ?? 0), definition: row[1].textValue ?? "", phase: row[2].textValue ?? "",
            rows: row[3].integerValue ?? 0, batches: Int(row[4].integerValue ?? 0),
            cursor: try ProgressStore.decodeKey(row[5]), highWater: try ProgressStore.decodeKey(row[6]))
    }

    /// Writes `progress`; call inside the transaction whose work it records.
    public func save(_ progress: Progress) throws(SQLiteError) {
        let values: [SQLiteValue] = [
            .integer(Int64(progress.step)), .text(progress.definition), .text(progress.phase),
            .integer(progress.rows), .integer(Int64(progress.batches)),
            try ProgressStore.encodeKey(progress.cursor), try ProgressStore.encodeKey(progress.highWater),
        ]
        do {
            try insertStatement().run(values)
        } catch {
            // A rolled-back transaction may have taken the table with it.
            insert = nil
            throw error
        }
    }

    private func insertStatement() throws(SQLiteError) -> Statement {
        if let insert { return insert }
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS \(ProgressStore.table)(
              step INTEGER PRIMARY KEY, definition TEXT NOT NULL, phase TEXT NOT NULL,
              rows INTEGER NOT NULL, batches INTEGER NOT NULL, cursor TEXT, high_water TEXT)
            """)
        let statement = try connection.prepare("INSERT OR REPLACE INTO \(ProgressStore.table) VALUES (?, ?, ?, ?, ?, ?, ?)")
        insert = statement
        return statement
    }

    /// Forgets the step's progress and drops the table when nothing is left in it;
    /// call inside the transaction that finishes the step.
    public func clear(step: Int) throws(SQLiteError) {
        insert = nil
        guard try exists else { return }
        try connection.prepare("DELETE FROM \(ProgressStore.table) WHERE step = ?").run([.integer(Int64(step))])
        if try connection.integer("SELECT count(*) FROM \(ProgressStore.table)") == 0 {
            try connection.execute("DROP TABLE \(ProgressStore.table)")
        }
    }

    // A key that cannot be stored or read back is an error, never "no key": a nil
    // high-water key means the table was empty, and a nil cursor means "from the first
    // row", so either would silently skip or repeat rows.

    static func encodeKey(_ key: [SQLiteValue]?) throws(SQLiteError) -> SQLiteValue {
        guard let key else { return .null }
        // The common key, INTEGERs only, written as JSONEncoder writes it, without it: the
        // cursor is saved at every batch.
        var integers: [String] = []
        for value in key {
            guard case .integer(let integer) = value else { break }
            integers.append(String(integer))
        }
        if integers.count == key.count { return .text("[" + integers.joined(separator: ",") + "]") }
        do {
            return .text(String(decoding: try JSONEncoder().encode(key), as: UTF8.self))
        } catch {
            // JSON has no infinity: a REAL key of ±Inf.
            throw SQLiteError(code: SQLITE_MISMATCH, message: "the key \(key) cannot be kept as a resumable cursor: \(error)")
        }
    }

    static func decodeKey(_ value: SQLiteValue) throws(SQLiteError) -> [SQLiteValue]? {
        guard value != .null else { return nil }
        guard let text = value.textValue, let key = try? JSONDecoder().decode([SQLiteValue].self, from: Data(text.utf8)) else {
            throw SQLiteError(
                code: SQLITE_CORRUPT, message: "\(ProgressStore.table) holds a cursor that cannot be read: \(value)")
        }
        return key
    }
}
