import CSpaceVFS
import MigrationCore

/// A file of the database that a power cut can leave in another state than the page
/// cache held: the main file, its rollback journal, its WAL. (The `-shm` is rebuilt from
/// the WAL at the next open and never trusted after a crash; temp files are gone.)
enum DatabaseFile: Int, Sendable, CaseIterable, Comparable {
    case main, journal, wal

    /// From the shim VFS's class number (`SPACEVFS_CLASS_*`); nil for the classes not logged.
    init?(vfsClass: Int) {
        switch vfsClass {
        case SPACEVFS_CLASS_MAIN: self = .main
        case SPACEVFS_CLASS_JOURNAL: self = .journal
        case SPACEVFS_CLASS_WAL: self = .wal
        default: return nil
        }
    }

    /// `main`, `journal`, `wal`: as the report's `phase` and the state ids name it.
    var name: String {
        switch self {
        case .main: return "main"
        case .journal: return "journal"
        case .wal: return "wal"
        }
    }

    init?(name: String) {
        guard let file = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = file
    }

    func path(in files: DatabaseFiles) -> String {
        switch self {
        case .main: return files.path
        case .journal: return files.journal
        case .wal: return files.wal
        }
    }

    static func < (lhs: DatabaseFile, rhs: DatabaseFile) -> Bool { lhs.rawValue < rhs.rawValue }
}
