import Testing
import TestSupport
@testable import MigrationCore

/// The statements and transactions a work-counted connection counts: the device clock charges
/// each statement prepared its parse and plan, each run its setup, and each transaction its
/// locks and commit record, work that no instruction count shows.
@Suite("Statements and transactions counted")
struct StatementCountTests {
    @Test func eachPrepareRunAndCommitIsCounted() throws {
        let directory = TemporaryDirectory("statement-counts")
        let connection = try Connection(path: directory.file("counts.db"), create: true)
        let keeper = CounterKeeper()
        try connection.reportWork(to: keeper)
        let counter = try #require(keeper.counter)
        let start = counter.total

        // Three statements, each prepared, run once and committed on its own.
        try connection.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, b TEXT); INSERT INTO t(b) VALUES ('a'); INSERT INTO t(b) VALUES ('b')")
        let autocommits = counter.total - start
        #expect(autocommits.statementsPrepared == 3)
        #expect(autocommits.statementsRun == 3)
        #expect(autocommits.transactions == 3)

        // One insert prepared once and run a hundred times in one transaction; a rollback
        // commits nothing.
        try connection.execute("BEGIN")
        let insert = try connection.prepare("INSERT INTO t(b) VALUES (?)")
        for index in 0..<100 { try insert.run([.text("row \(index)")]) }
        try connection.execute("COMMIT")
        try connection.execute("BEGIN; INSERT INTO t(b) VALUES ('undone'); ROLLBACK")
        let batch = counter.total - start - autocommits
        #expect(batch.statementsPrepared == 6)
        #expect(batch.statementsRun == 105)
        #expect(batch.transactions == 1)
    }
}
