import Foundation

/// A database file and the files SQLite keeps beside it, named the one way SQLite names
/// them: `-journal` (rollback journal), `-wal` and `-shm` (WAL mode).
public struct DatabaseFiles: Sendable, Equatable {
    /// The main database file.
    public let path: String

    public init(_ path: String) {
        self.path = path
    }

    public var journal: String { path + "-journal" }
    public var wal: String { path + "-wal" }
    public var shm: String { path + "-shm" }

    /// The main file and every sidecar, main first.
    public var all: [String] { [path, journal, wal, shm] }

    /// Removes the database and its sidecars. Best effort by design: most of them are
    /// not there at any moment, and a file that cannot be removed shows itself to the
    /// next open (SQLite reports it), so there is nothing here to report.
    public func remove() {
        for file in all { try? FileManager.default.removeItem(atPath: file) }
    }
}
