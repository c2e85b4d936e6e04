import CSQLite

/// What `--version` prints: Preflight's own version and the SQLite it runs with. The
/// SQLite is the library loaded now (`sqlite3_libversion`), not the headers it was built
/// against: the workers are this same binary, so it is the SQLite every rehearsal runs.
public enum Version {
    /// Preflight's version; the one place it is written.
    public static let preflight = "0.1.0"

    public static var sqlite: String { String(cString: sqlite3_libversion()) }

    /// `preflight 0.1.0` and `SQLite 3.40.1`, one per line.
    public static var text: String { "preflight \(preflight)\nSQLite \(sqlite)\n" }
}
