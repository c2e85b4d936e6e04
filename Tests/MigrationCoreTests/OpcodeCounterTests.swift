import CSQLite
import Foundation
import Testing
import TestSupport

@testable import MigrationCore

/// The opcode counter built into each device engine (scripts/engine-opcode-counter.c), read
/// through `OpcodeCounter` on a connection of that engine: the engine is loaded beside this
/// process's own SQLite (`RTLD_DEEPBIND`, so that it calls its own functions), and every
/// call goes to it.
@Suite("Opcode counts of the device engines")
struct OpcodeCounterTests {
    private static let engines = PreflightProcess.engineLibraries()

    /// The few functions of an engine the test calls, from its own library.
    private struct Engine {
        typealias Open = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
        typealias Close = @convention(c) (OpaquePointer?) -> Int32
        typealias Prepare = @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?,
            UnsafeMutablePointer<UnsafePointer<CChar>?>?
        ) -> Int32
        typealias Step = @convention(c) (OpaquePointer?) -> Int32
        typealias Status = @convention(c) (OpaquePointer?, Int32, Int32) -> Int32

        let library: UnsafeMutableRawPointer
        let open: Open, close: Close, prepare: Prepare, step: Step, finalize: Step, status: Status

        init(_ path: String) throws {
            let library = try #require(dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND), "cannot load \(path)")
            func function<T>(_ name: String, _ type: T.Type) throws -> T {
                unsafeBitCast(try #require(dlsym(library, name), "\(path) has no \(name)"), to: type)
            }
            self.library = library
            open = try function("sqlite3_open", Open.self)
            close = try function("sqlite3_close", Close.self)
            prepare = try function("sqlite3_prepare_v2", Prepare.self)
            step = try function("sqlite3_step", Step.self)
            finalize = try function("sqlite3_finalize", Step.self)
            status = try function("sqlite3_stmt_status", Status.self)
        }

        /// Runs each statement to its end; answers the instructions SQLite counted for them
        /// (`SQLITE_STMTSTATUS_VM_STEP`).
        func run(_ statements: [String], on db: OpaquePointer?) throws -> Int64 {
            var steps: Int64 = 0
            for sql in statements {
                var statement: OpaquePointer?
                #expect(prepare(db, sql, -1, &statement, nil) == SQLITE_OK, "\(sql)")
                while step(statement) == SQLITE_ROW {}
                steps += Int64(status(statement, SQLITE_STMTSTATUS_VM_STEP, 0))
                _ = finalize(statement)
            }
            return steps
        }
    }

    @Test(arguments: engines)
    func theCountsAddUpToSQLitesOwnInstructionCount(engine: PreflightProcess.EngineLibrary) throws {
        let sqlite = try Engine(engine.path)
        var db: OpaquePointer?
        #expect(sqlite.open(":memory:", &db) == SQLITE_OK)
        defer { _ = sqlite.close(db) }
        // The schema first: a CREATE runs statements of SQLite's own (the schema table's
        // update) that the counter counts and no statement's VM_STEP holds.
        _ = try sqlite.run(["CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, n INTEGER)", "CREATE INDEX t_n ON t(n)"], on: db)
        let handle = try #require(db)
        let counter = try #require(OpcodeCounter(handle: handle, library: sqlite.library))

        let steps = try sqlite.run([
            "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 500) INSERT INTO t(name, n) SELECT 'row ' || i, i FROM k",
            "UPDATE t SET name = upper(name) WHERE n % 2 = 0",
            "SELECT count(*) FROM t WHERE n BETWEEN 100 AND 200",
        ], on: db)
        let work = counter.work
        #expect(work.total == steps, "\(engine.name): \(work)")
        // 500 rows inserted into the table and its index, and 250 of them rewritten: each a
        // b-tree write, and each rewrite a record decoded and rebuilt.
        #expect(work.write >= 500 + 500 + 250, "\(engine.name): \(work)")
        #expect(work.record >= 250 * 2, "\(engine.name): \(work)")
        #expect(work.cursor >= 500, "\(engine.name): \(work)")

        counter.stop()
        _ = try sqlite.run(["SELECT count(*) FROM t"], on: db)
        #expect(counter.work == work, "stopped, the counts stay as they were")
    }

    @Test func debiansSQLiteHasNoCounter() throws {
        let connection = try Connection(path: ":memory:")
        #expect(OpcodeCounter(handle: connection.handle) == nil)
    }
}
