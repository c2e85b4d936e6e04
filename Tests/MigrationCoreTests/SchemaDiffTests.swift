import Testing

@testable import MigrationCore

/// The structural schema comparison: `SchemaSnapshot` read from real SQLite schemas and
/// `SchemaDiff` between them. Each schema is built in memory with the SQL as an app
/// would have written it.
@Suite struct SchemaDiffTests {
    /// The diff lines between a database built with `upgraded` and one built with `fresh`.
    private func diff(_ upgraded: String, _ fresh: String) throws -> [String] {
        SchemaDiff(upgraded: try snapshot(upgraded), freshInstall: try snapshot(fresh)).lines
    }

    private func snapshot(_ sql: String) throws -> SchemaSnapshot {
        let connection = try Connection(path: ":memory:")
        try connection.execute(sql)
        return try SchemaSnapshot.read(connection)
    }

    // MARK: - Formatting is not structure

    @Test func quotingCaseWhitespaceAndIfNotExistsAreIgnored() throws {
        #expect(try diff(
            "CREATE TABLE IF NOT EXISTS \"notes\"( id  INTEGER primary key)",
            "create table notes(id integer PRIMARY KEY)") == [])
        #expect(try diff(
            """
            CREATE TABLE [Notes] ( `ID` integer PRIMARY KEY , "Title" text not null default ( 'x' ) , -- the title
              updated_at INTEGER /* seconds */ NOT NULL);
            CREATE INDEX IF NOT EXISTS "idx_notes_updated" ON "notes" ( "updated_at" DESC );
            CREATE VIEW IF NOT EXISTS recent AS SELECT "id", title FROM "notes" WHERE updated_at > 0;
            CREATE TRIGGER IF NOT EXISTS notes_touch AFTER UPDATE ON notes BEGIN
              UPDATE notes SET updated_at = 1 WHERE id == new.id;
            END;
            """,
            """
            create table notes(id INTEGER primary key, title TEXT NOT NULL DEFAULT 'x', updated_at integer not null);
            create index idx_notes_updated on notes(updated_at desc);
            create view recent as select id, title from notes where updated_at>0;
            create trigger notes_touch after update on notes begin update notes set updated_at=1 where id=new.id; end;
            """) == [])
    }

    @Test func columnsAddedByAlterTableEqualTheSameColumnsDeclaredAtOnce() throws {
        // An upgrade can only append columns; SQLite resolves columns by name, so the
        // order is not compared (as Room's schema validation does not).
        #expect(try diff(
            """
            CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, updated_at INTEGER NOT NULL);
            ALTER TABLE notes ADD COLUMN sync_status TEXT NOT NULL DEFAULT 'synced';
            ALTER TABLE notes RENAME TO notes_old;
            ALTER TABLE notes_old RENAME TO notes;
            """,
            """
            CREATE TABLE notes(
              id INTEGER PRIMARY KEY, title TEXT NOT NULL, sync_status TEXT NOT NULL DEFAULT 'synced',
              updated_at INTEGER NOT NULL);
            """) == [])
    }

    @Test func referencesWithoutColumnsMeanTheParentsPrimaryKey() throws {
        #expect(try diff(
            "CREATE TABLE folders(id INTEGER PRIMARY KEY); CREATE TABLE notes(id INTEGER PRIMARY KEY, folder_id REFERENCES folders)",
            "CREATE TABLE folders(id INTEGER PRIMARY KEY); CREATE TABLE notes(id INTEGER PRIMARY KEY, folder_id REFERENCES folders(id))"
        ) == [])
    }

    @Test func columnUniqueEqualsTableUniqueAndExpressionIndexesCompareByText() throws {
        #expect(try diff(
            "CREATE TABLE t(a TEXT UNIQUE, b TEXT); CREATE INDEX t_lower ON t(lower( b ) COLLATE NOCASE) WHERE b IS NOT NULL",
            "CREATE TABLE t(a TEXT, b TEXT, UNIQUE(a)); CREATE INDEX t_lower ON t((lower(b)) collate nocase) where (b is not null)"
        ) == [])
    }

    @Test func preflightsAndSQLitesOwnTablesAreIgnored() throws {
        #expect(try diff(
            """
            CREATE TABLE notes(id INTEGER PRIMARY KEY AUTOINCREMENT);
            CREATE TABLE _preflight_progress(step INTEGER PRIMARY KEY);
            CREATE INDEX _preflight_idx ON _preflight_progress(step);
            ANALYZE;
            """,
            "CREATE TABLE notes(id INTEGER PRIMARY KEY AUTOINCREMENT)") == [])
    }

    // MARK: - Tables and columns

    @Test func tablesOnOneSideOnly() throws {
        #expect(try diff(
            "CREATE TABLE notes(id INTEGER PRIMARY KEY); CREATE TABLE outbox(id INTEGER PRIMARY KEY, payload TEXT)",
            "CREATE TABLE notes(id INTEGER PRIMARY KEY); CREATE TABLE folders(id INTEGER PRIMARY KEY)"
        ) == ["table folders: in fresh install, missing after upgrade", "table outbox: after upgrade only"])
    }

    @Test func columnTypeDefaultNotNullAndPrimaryKey() throws {
        #expect(try diff(
            "CREATE TABLE notes(id INTEGER, category TEXT, status TEXT DEFAULT 'synced', title TEXT NOT NULL, body)",
            "CREATE TABLE notes(id INTEGER PRIMARY KEY, category INTEGER, status TEXT DEFAULT 'pending', title TEXT, body TEXT)"
        ) == [
            "column notes.body: type (none) after upgrade, TEXT in fresh install",
            "column notes.category: type TEXT after upgrade, INTEGER in fresh install",
            "column notes.id: not in the primary key after upgrade, primary key column 1 in fresh install",
            "column notes.status: default 'synced' after upgrade, 'pending' in fresh install",
            "column notes.title: NOT NULL after upgrade, nullable in fresh install",
        ])
        #expect(try diff("CREATE TABLE t(a INTEGER DEFAULT 0)", "CREATE TABLE t(a INTEGER)")
            == ["column t.a: default 0 after upgrade, (none) in fresh install"])
    }

    @Test func columnsOnOneSideOnlyCollationAndGeneratedColumns() throws {
        #expect(try diff(
            "CREATE TABLE t(a TEXT COLLATE NOCASE, b INTEGER, g INTEGER GENERATED ALWAYS AS (b * 2) VIRTUAL, old TEXT)",
            "CREATE TABLE t(a TEXT, b INTEGER, g INTEGER AS (b * 3) STORED, new TEXT)"
        ) == [
            "column t.a: collation NOCASE after upgrade, BINARY in fresh install",
            "column t.g: generated VIRTUAL column after upgrade, generated STORED column in fresh install",
            "column t.g: generated as (b * 2) after upgrade, (b * 3) in fresh install",
            "column t.new: in fresh install, missing after upgrade",
            "column t.old: after upgrade only",
        ])
    }

    @Test func tableOptionsAndConstraints() throws {
        #expect(try diff(
            """
            CREATE TABLE kv(k TEXT PRIMARY KEY, v TEXT, CHECK (length(k) > 0)) WITHOUT ROWID;
            CREATE TABLE s(id INTEGER PRIMARY KEY AUTOINCREMENT, x INT) STRICT;
            CREATE TABLE u(a TEXT, b TEXT, UNIQUE(a, b));
            """,
            """
            CREATE TABLE kv(k TEXT PRIMARY KEY, v TEXT CHECK(v <> ''));
            CREATE TABLE s(id INTEGER PRIMARY KEY, x INT);
            CREATE TABLE u(a TEXT, b TEXT);
            """
        ) == [
            "check constraint on kv (length(k) > 0): after upgrade only",
            "check constraint on kv (v != ''): in fresh install, missing after upgrade",
            "column kv.k: NOT NULL after upgrade, nullable in fresh install",
            "table kv: WITHOUT ROWID after upgrade, rowid table in fresh install",
            "table s: AUTOINCREMENT after upgrade, no AUTOINCREMENT in fresh install",
            "table s: STRICT after upgrade, not STRICT in fresh install",
            "unique constraint u(a, b): after upgrade only",
        ])
    }

    // MARK: - Indexes

    @Test func anIndexTheUpgradeForgot() throws {
        let lines = try diff(
            "CREATE TABLE notes(id INTEGER PRIMARY KEY, updated_at INTEGER)",
            "CREATE TABLE notes(id INTEGER PRIMARY KEY, updated_at INTEGER); CREATE INDEX idx_notes_updated ON notes(updated_at)")
        #expect(lines == ["index idx_notes_updated on notes(updated_at): in fresh install, missing after upgrade"])
    }

    @Test func indexColumnsUniquenessAndWhere() throws {
        let table = "CREATE TABLE notes(id INTEGER PRIMARY KEY, a TEXT, b TEXT);"
        #expect(try diff(
            table + "CREATE INDEX i ON notes(a); CREATE UNIQUE INDEX u ON notes(a); CREATE INDEX p ON notes(a) WHERE a IS NULL; CREATE INDEX extra ON notes(lower(b))",
            table + "CREATE INDEX i ON notes(a, b); CREATE INDEX u ON notes(a); CREATE INDEX p ON notes(a) WHERE b IS NULL"
        ) == [
            "index extra on notes(lower(b)): after upgrade only",
            "index i: on notes(a) after upgrade, on notes(a, b) in fresh install",
            "index p on notes(a): WHERE a IS NULL after upgrade, WHERE b IS NULL in fresh install",
            "index u on notes(a): UNIQUE after upgrade, not unique in fresh install",
        ])
    }

    // MARK: - Foreign keys

    @Test func foreignKeyMissingAndActionsDiffering() throws {
        let folders = "CREATE TABLE folders(id INTEGER PRIMARY KEY);"
        #expect(try diff(
            folders + "CREATE TABLE notes(id INTEGER PRIMARY KEY, folder_id INTEGER)",
            folders + "CREATE TABLE notes(id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id))"
        ) == ["foreign key notes(folder_id) -> folders(id): in fresh install, missing after upgrade"])
        #expect(try diff(
            folders + "CREATE TABLE notes(id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id) ON DELETE CASCADE)",
            folders + "CREATE TABLE notes(id INTEGER PRIMARY KEY, folder_id INTEGER REFERENCES folders(id) ON DELETE SET NULL)"
        ) == ["foreign key notes(folder_id) -> folders(id): ON DELETE CASCADE after upgrade, ON DELETE SET NULL in fresh install"])
    }

    // MARK: - Triggers and views

    @Test func triggerAndViewDifferences() throws {
        let table = "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, updated_at INTEGER);"
        let lines = try diff(
            table + """
                CREATE TRIGGER touch AFTER UPDATE ON notes BEGIN UPDATE notes SET updated_at = 1 WHERE id = new.id; END;
                CREATE TRIGGER only_here AFTER INSERT ON notes BEGIN SELECT 1; END;
                CREATE VIEW titles AS SELECT title FROM notes;
                """,
            table + """
                CREATE TRIGGER touch AFTER UPDATE OF title ON notes BEGIN UPDATE notes SET updated_at = 1 WHERE id = new.id; END;
                CREATE VIEW titles AS SELECT id, title FROM notes;
                CREATE VIEW recent AS SELECT * FROM notes;
                """)
        #expect(lines == [
            "trigger only_here on notes: after upgrade only",
            "trigger touch on notes: definition differs; after upgrade: CREATE TRIGGER touch AFTER UPDATE ON notes BEGIN UPDATE notes SET updated_at = 1 WHERE id = new.id; END; in fresh install: CREATE TRIGGER touch AFTER UPDATE OF title ON notes BEGIN UPDATE notes SET updated_at = 1 WHERE id = new.id; END",
            "view recent: in fresh install, missing after upgrade",
            "view titles: definition differs; after upgrade: CREATE VIEW titles AS SELECT title FROM notes; in fresh install: CREATE VIEW titles AS SELECT id, title FROM notes",
        ])
    }

    @Test func linesAreSortedAndDeterministic() throws {
        let upgraded = "CREATE TABLE b(x); CREATE TABLE a(x INT); CREATE INDEX z ON a(x); CREATE VIEW v AS SELECT 1"
        let fresh = "CREATE TABLE c(x); CREATE TABLE a(x TEXT); CREATE INDEX y ON a(x)"
        let first = try diff(upgraded, fresh)
        #expect(first == first.sorted())
        #expect(first.count == 6)
        for _ in 0..<5 { #expect(try diff(upgraded, fresh) == first) }
    }

    // MARK: - Canonical SQL

    @Test func normalizerSpelling() {
        #expect(SQLNormalizer.statement("create  temp TRIGGER if not exists [T] after insert on \"Notes\" begin select 1 ; end ;")
            == "CREATE TEMP TRIGGER t AFTER INSERT ON notes BEGIN SELECT 1; END")
        #expect(SQLNormalizer.statement("SELECT 'It''s  A' , x'AB', \"my col\", `key`, -1, a - 1, a<>b, a==b")
            == "SELECT 'It''s  A', X'ab', \"my col\", KEY, -1, a - 1, a != b, a = b")
        #expect(SQLNormalizer.statement("CREATE TABLE x(x INT, xx BLOB DEFAULT X'00')") == "CREATE TABLE x(x int, xx blob DEFAULT X'00')")
        #expect(SQLNormalizer.statement("create view v as select cast( x as text ),a in(1,2) from t where exists(select 1)")
            == "CREATE VIEW v AS SELECT CAST(x AS text), a IN (1, 2) FROM t WHERE EXISTS (SELECT 1)")
        #expect(SQLNormalizer.expression("((0))") == "0")
        #expect(SQLNormalizer.expression("(a) + (b)") == "(a) + (b)")
    }
}
