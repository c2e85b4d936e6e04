import Testing

@testable import MigrationCore

/// A rebuild's indexes are built with the copy and only change names at the swap, so that
/// no transaction of the step grows with the table; the names and statements they end with
/// are a fresh install's.
@Suite struct IndexSwapTests {
    /// Statements of every shape SQLite accepts for an index, with what SQLite itself stores.
    @Test(arguments: [
        "CREATE INDEX i ON t(a)",
        "create unique index if not exists main.\"my index\" on [t] (a DESC, b COLLATE NOCASE) where a > 0;",
        "CREATE INDEX i /* named */ ON t(lower(b), a + 1) -- trailing comment",
        "CREATE UNIQUE INDEX `i` ON \"t\"(b)",
        "CREATE INDEX i ON t(a) /* kept */ ; -- not kept",
    ])
    func theStoredFormIsWhatSQLiteStores(sql: String) throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t(a INTEGER, b TEXT)")
        try db.prepare(sql).run()  // the text as given: `execute` splits and trims it
        let stored = try db.scalar("SELECT sql FROM sqlite_schema WHERE type = 'index'").textValue
        let statement = try IndexStatement(sql, context: "test")
        #expect(statement.storedSQL() == stored)
        #expect(statement.table == "t")
    }

    @Test func aRenamedStatementNamesItsNewIndexAndTable() throws {
        let statement = try IndexStatement("CREATE UNIQUE INDEX IF NOT EXISTS i ON t(a) WHERE a IS NOT NULL", context: "test")
        #expect(statement.storedSQL(name: "j\"k", table: "u") == #"CREATE UNIQUE INDEX "j""k" ON "u"(a) WHERE a IS NOT NULL"#)
        #expect(statement.name == "i" && statement.unique)
    }

    @Test(arguments: [
        "CREATE TABLE i(a)", "CREATE INDEX ON t(a)", "CREATE INDEX i t(a)", "DROP INDEX i", "CREATE INDEX i ON t(a); DROP TABLE t",
    ])
    func otherStatementsAreRefusedByName(sql: String) {
        #expect(throws: SQLiteError.self) { try IndexStatement(sql, context: "rebuild of \"t\", index 1") }
    }

    /// The b-trees the copy built are the ones the swap puts in place: the new index keeps
    /// its root page under its final name, and the old one keeps its own, under a name of
    /// Preflight's, until the purge drops it with the emptied table.
    @Test func theSwapRenamesTheIndexesTheCopyBuilt() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.notesV1)
        let plan = try RebuildFixture.notesPlan(batchRows: 64)
        func rootPage(_ name: String) throws -> Int64? {
            try Connection(path: path).rows("SELECT rootpage FROM sqlite_schema WHERE name = ?", [.text(name)]).first?[0].integerValue
        }
        let oldRoot = try #require(try rootPage("idx_notes_updated"))

        // Copied, not yet swapped: the new index is whole beside the old one.
        _ = RebuildFixture.migrate(path, plan, hooks: RebuildFixture.kill(at: .afterLastBatch))
        let newRoot = try #require(try rootPage(TableRebuild.newIndexPrefix + "idx_notes_updated"))
        let db = try Connection(path: path)
        #expect(try db.integer("SELECT count(*) FROM \"_preflight_new_notes\" INDEXED BY \"_preflight_newidx_idx_notes_updated\" WHERE updated_at > 0") == 995)

        // Swapped, not yet purged.
        _ = try RebuildFixture.relaunch(path, plan, hooks: RebuildFixture.kill(at: .insidePurge))
        #expect(try rootPage("idx_notes_updated") == newRoot)
        #expect(try rootPage(TableRebuild.oldIndexPrefix + "idx_notes_updated") == oldRoot)
        #expect(try Connection(path: path).scalar("PRAGMA integrity_check") == .text("ok"))

        // Purged: the old index went with its table, and the new one reads as a fresh install's.
        #expect(try RebuildFixture.relaunch(path, plan).0 == .reached(version: 2))
        #expect(try rootPage(TableRebuild.oldIndexPrefix + "idx_notes_updated") == nil)
        let after = try Connection(path: path)
        #expect(try after.scalar("SELECT sql FROM sqlite_schema WHERE name = 'idx_notes_updated'")
            == .text("CREATE INDEX idx_notes_updated ON notes(updated_at)"))
        #expect(try after.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    @Test func aPlanIndexOnAnotherTableIsRefusedBeforeAnyCopy() throws {
        let scratch = try RebuildScratch()
        let path = try scratch.database(sql: RebuildFixture.notesV1)
        let plan = try RebuildFixture.notesPlan(extra: #", "indexes": ["CREATE INDEX idx_audit ON audit(note_id)"]"#)
        guard case .stopped(.failed, let failure) = RebuildFixture.migrate(path, plan).0 else {
            Issue.record("an index on another table must fail the step")
            return
        }
        #expect(failure.message.contains("index \"idx_audit\" is on \"audit\""))
        #expect(try Connection(path: path).integer("PRAGMA user_version") == 1)
    }
}
