import CSQLite
import Foundation
import MigrationCore

/// Builds fixture databases with the SQL of the app version that would have written
/// them, never with today's schema.
public enum FixtureDatabase {
    /// Creates `path` by running `sql` (a whole script) on a new file.
    @discardableResult
    public static func create(at path: String, sql: String, journalMode: String? = nil) throws -> String {
        try? FileManager.default.removeItem(atPath: path)
        let connection = try Connection(path: path, create: true)
        if let journalMode { try connection.execute("PRAGMA journal_mode = \(journalMode)") }
        try connection.execute(sql)
        return path
    }

    /// Runs `sql` on an existing file.
    public static func execute(_ sql: String, at path: String) throws {
        try Connection(path: path).execute(sql)
    }

    public static func count(_ table: String, at path: String) throws -> Int64 {
        try Connection(path: path).integer("SELECT count(*) FROM \(SQLText.quote(table))")
    }

    public static func userVersion(at path: String) throws -> Int {
        try Connection(path: path).userVersion
    }

    public static func sha256(of path: String) -> String {
        SHA256.hex([UInt8](FileManager.default.contents(atPath: path) ?? Data()))
    }
}
