import Foundation
import Testing
import TestSupport

@testable import MigrationCore

/// The header's page count against the file's size (`DatabaseHeader.shortfall`), on
/// files cut or grown on a page boundary and inside a page: the header check refuses a
/// main file read alone exactly when plain SQLite does (it fails to read the schema).
@Suite struct HeaderSizeTests {
    let directory = TemporaryDirectory("header-size")

    /// A rollback-journal database of `pages` pages or so, and its bytes.
    private func database() throws -> (path: String, bytes: [UInt8], pageSize: Int) {
        let path = try FixtureDatabase.create(
            at: directory.file("whole.db"),
            sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); \(series(400)) INSERT INTO notes(body) SELECT printf('%.*c', 200, 'x') FROM series")
        let bytes = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
        return (path, bytes, 4096)
    }

    /// A file of `bytes`, alone in its own directory (no journal, no WAL beside it).
    private func file(_ name: String, _ bytes: [UInt8]) -> String {
        let path = directory.file(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    /// Whether plain SQLite reads the schema of the file at `path`.
    private func sqliteOpens(_ path: String) -> Bool {
        do {
            _ = try Connection(path: path, readOnly: true).integer("SELECT count(*) FROM sqlite_schema")
            return true
        } catch {
            return false
        }
    }

    private func headerAccepts(_ path: String) -> Bool {
        if case .database = DatabaseHeader.read(path: path) { return true }
        return false
    }

    @Test func theHeaderRefusesAMainFileExactlyWhenSQLiteDoes() throws {
        let (_, bytes, pageSize) = try database()
        let cases: [(name: String, bytes: [UInt8], opens: Bool)] = [
            ("whole.copy", bytes, true),
            // Bytes after the last page: SQLite counts a page more, and never reads it.
            ("longer", bytes + [UInt8](repeating: 0, count: 100), true),
            // Ending inside its last page: SQLite reads zeros for the rest, and opens it.
            ("ends-inside-last-page", Array(bytes.prefix(bytes.count - pageSize + 100)), true),
            // A page or more short of what page 1 says: SQLite calls it malformed.
            ("short-by-a-page", Array(bytes.prefix(bytes.count - pageSize)), false),
            ("short-inside-a-page", Array(bytes.prefix(bytes.count - pageSize - 100)), false),
        ]
        for (name, content, opens) in cases {
            let path = file(name, content)
            #expect(sqliteOpens(path) == opens, "\(name): plain SQLite")
            #expect(headerAccepts(path) == opens, "\(name): \(DatabaseHeader.read(path: path))")
        }
    }

    /// A header whose version-valid-for number is not the change counter (written by a
    /// SQLite before 3.7.0): SQLite takes the file's size for the page count.
    @Test func aStalePageCountIsNotHeldAgainstTheFile() throws {
        var (_, bytes, pageSize) = try database()
        bytes[95] &+= 1
        let path = file("stale", Array(bytes.prefix(bytes.count - 2 * pageSize)))
        #expect(sqliteOpens(path))
        #expect(headerAccepts(path))
    }

    /// Beside a hot journal or a WAL with frames, the main file alone is not the
    /// database: its size is SQLite's to judge when it opens them together.
    @Test func aShortFileWithASidecarIsForSQLiteToJudge() throws {
        let (_, bytes, pageSize) = try database()
        let short = Array(bytes.prefix(bytes.count - pageSize))
        for sidecar in ["-journal", "-wal"] {
            let path = file("short\(sidecar).db", short)
            #expect(!headerAccepts(path))
            _ = FileManager.default.createFile(atPath: path + sidecar, contents: Data(repeating: 1, count: 512))
            #expect(headerAccepts(path), "\(sidecar)")
        }
        // A WAL named apart from the file (an upload's): the same.
        let named = file("named.db", short)
        guard case .database = DatabaseHeader.read(path: named, journal: nil, wal: directory.file("short-wal.db-wal")) else {
            Issue.record("a short file with a WAL named apart must be for SQLite to judge")
            return
        }
        // An empty sidecar holds nothing that could make up for the missing pages.
        let empty = file("empty-wal.db", short)
        _ = FileManager.default.createFile(atPath: empty + "-wal", contents: Data())
        #expect(!headerAccepts(empty))
    }
}
