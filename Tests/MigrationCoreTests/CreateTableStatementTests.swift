import Testing

@testable import MigrationCore

/// The one reader of CREATE TABLE text, given statements as SQLite stored them: each is
/// created in a real database and read back from `sqlite_schema`, so every case is SQL
/// SQLite accepts.
@Suite struct CreateTableStatementTests {
    /// `sql` run in a fresh database, and the CREATE TABLE text SQLite stored for `table`.
    private func stored(_ sql: String, table: String) throws -> CreateTableStatement {
        let connection = try Connection(path: ":memory:")
        try connection.execute(sql)
        let text = try connection.rows("SELECT sql FROM sqlite_schema WHERE name = ?", [.text(table)]).first?[0].textValue
        return CreateTableStatement(try #require(text))
    }

    private func column(
        _ name: String, collation: String? = nil, generatedAs: String? = nil
    ) -> CreateTableStatement.Column {
        CreateTableStatement.Column(name: name, collation: collation, generatedAs: generatedAs)
    }

    @Test func readsChecksOfColumnsAndOfTheTableAsWrittenAndCanonical() throws {
        let statement = try stored(
            """
            CREATE TABLE notes(
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              title TEXT NOT NULL DEFAULT 'CHECK (x)' CHECK (length(trim(title)) > 0),
              rating INTEGER CONSTRAINT rating_range CHECK ((rating BETWEEN 1 AND 5)),
              /* CHECK (a comment) */
              CONSTRAINT nonzero CHECK (rating <> 0 /* not zero */ AND title == 'it''s'),
              UNIQUE (title)
            )
            """, table: "notes")
        #expect(statement.checks.map(\.text) == [
            "length(trim(title)) > 0", "(rating BETWEEN 1 AND 5)", "rating <> 0 /* not zero */ AND title == 'it''s'",
        ])
        #expect(statement.checks.map(\.canonical) == [
            "length(trim(title)) > 0", "rating BETWEEN 1 AND 5", "rating != 0 AND title = 'it''s'",
        ])
        // The tokens are the expression's own, comments and whitespace left out.
        #expect(statement.checks[2].tokens.map { statement.tokenizer.text($0) } == [
            "rating", "<>", "0", "AND", "title", "==", "'it''s'",
        ])
        #expect(statement.columns == [column("id"), column("title"), column("rating")])
        #expect(statement.autoincrement)
        #expect(!statement.withoutRowID && !statement.strict)
    }

    @Test func aCheckInAStringOrAQuotedNameIsNotOne() throws {
        let statement = try stored(
            """
            CREATE TABLE "t CHECK (1)"(
              "check" TEXT DEFAULT 'CHECK (0)', [CHECK (2)] INTEGER, `autoincrement` INTEGER PRIMARY KEY
            )
            """, table: "t CHECK (1)")
        #expect(statement.checks.isEmpty)
        #expect(!statement.autoincrement)
        #expect(statement.columns.map(\.name) == ["check", "check (2)", "autoincrement"])
    }

    @Test func readsAutoincrementOfATablesPrimaryKeyAsSQLiteDoes() throws {
        let connection = try Connection(path: ":memory:")
        try connection.execute(
            """
            CREATE TABLE counted(id INTEGER, v TEXT, PRIMARY KEY (id AUTOINCREMENT));
            CREATE TABLE plain(id INTEGER, v TEXT, PRIMARY KEY (id));
            INSERT INTO counted(v) VALUES ('a'); INSERT INTO plain(v) VALUES ('a');
            """)
        // SQLite keeps a sequence for exactly the AUTOINCREMENT tables.
        let sequenced = try connection.rows("SELECT name FROM sqlite_sequence").compactMap { $0[0].textValue }
        #expect(sequenced == ["counted"])
        for (table, isAutoincrement) in [("counted", true), ("plain", false)] {
            let sql = try connection.rows("SELECT sql FROM sqlite_schema WHERE name = ?", [.text(table)]).first?[0].textValue
            #expect(CreateTableStatement(try #require(sql)).autoincrement == isAutoincrement, "\(table)")
        }
    }

    @Test func readsCollationsAndGeneratedColumns() throws {
        let statement = try stored(
            """
            CREATE TABLE people(
              name TEXT COLLATE nocase NOT NULL,
              code TEXT COLLATE "RTrim",
              born INTEGER,
              age INTEGER GENERATED ALWAYS AS (2026 - (born + 0)) STORED,
              doubled INTEGER AS (born*2)
            )
            """, table: "people")
        #expect(statement.columns == [
            column("name", collation: "NOCASE"), column("code", collation: "RTRIM"), column("born"),
            column("age", generatedAs: "2026 - (born + 0)"), column("doubled", generatedAs: "born * 2"),
        ])
        #expect(statement.column(named: "NAME")?.collation == "NOCASE")
        #expect(statement.column(named: "missing") == nil)
    }

    @Test func readsWithoutRowidAndStrict() throws {
        let both = try stored(
            "CREATE TABLE kv(k TEXT PRIMARY KEY, v ANY CHECK (v IS NOT NULL)) STRICT, WITHOUT ROWID", table: "kv")
        #expect(both.strict && both.withoutRowID && !both.autoincrement)
        #expect(both.checks.map(\.canonical) == ["v IS NOT NULL"])
        let strictOnly = try stored("CREATE TABLE s(a INTEGER) STRICT", table: "s")
        #expect(strictOnly.strict && !strictOnly.withoutRowID)
        let neither = try stored("CREATE TABLE n(a INTEGER PRIMARY KEY)", table: "n")
        #expect(!neither.strict && !neither.withoutRowID)
    }

    @Test func aTableMadeFromASelectHasNoBodyToReadUntilSQLiteWritesOne() throws {
        let written = CreateTableStatement("CREATE TABLE copy AS SELECT 'CHECK (1)' AS a, 2 AS b")
        #expect(written.columns.isEmpty && written.checks.isEmpty)
        #expect(!written.strict && !written.withoutRowID && !written.autoincrement)
        // SQLite stores the table with the columns the SELECT gave it.
        let kept = try stored("CREATE TABLE copy AS SELECT 'CHECK (1)' AS a, 2 AS b", table: "copy")
        #expect(kept.columns.map(\.name) == ["a", "b"] && kept.checks.isEmpty)
    }
}
