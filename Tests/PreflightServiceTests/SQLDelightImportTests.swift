import Foundation
import Testing
import TestSupport
import MigrationCore

/// SQLDelight projects written as real apps write theirs (Fixtures/PlanImport/sqldelight-*):
/// imports, labelled queries, grouped statements, Kotlin types on columns (annotations,
/// type arguments, `AS VALUE`), views on views, triggers, FTS4 and FTS5 tables, an
/// `INSERT` in a `.sq` file, `CREATE TABLE ... AS SELECT`, and `.sqm` migrations that add
/// and replace them. Each project's `version1.sql` is the SQL its version 1 ran.
extension PlanImportTests {
    struct SQLDelightApp {
        var module: String
        /// Rows a device at version 1 holds.
        var rows: String
    }

    static let sqldelightApps: [String: SQLDelightApp] = [
        "sqldelight-library": SQLDelightApp(
            module: "app",
            rows: """
                INSERT INTO book(id, title, author, tags, favorite) VALUES
                  (1, 'The Left Hand of Darkness', 'Le Guin', 'sf,classic', 1), (2, 'Piranesi', 'Clarke', NULL, 1),
                  (3, 'Notes; and {braces}', NULL, 'misc', 0);
                INSERT INTO chapter(book_id, name, read) VALUES (1, 'One', 1), (1, 'Two', 0), (2, 'Prologue', 0), (3, 'Only', 1);
                """),
        "sqldelight-notes": SQLDelightApp(
            module: "shared",
            rows: """
                INSERT INTO folder(id, name, sort) VALUES (1, 'Work', 1);
                INSERT INTO note(folder_id, title, body, pinned) VALUES (0, 'Groceries', 'milk; eggs', 0), (1, 'Plan', 'ship it', 1);
                """),
    ]

    private func sqldelightPlan(_ fixture: String, in directory: TemporaryDirectory) throws -> (project: String, plan: Plan, version1: String) {
        let app = try #require(Self.sqldelightApps[fixture])
        let version1 = try String(contentsOfFile: Self.fixtures + "/\(fixture)/version1.sql", encoding: .utf8)
        let project = try Self.sqldelightProject(fixture, module: app.module, firstSchema: version1, in: directory)
        let plan = try PlanDecoder.decode(PlanImport(layout: .sqldelight, directory: project).makePlan().document)
        return (project, plan, version1)
    }

    /// Every table's rows, counted as a user counts them.
    private func rowCounts(_ path: String) throws -> [String: Int64] {
        let connection = try Connection(path: path, readOnly: true)
        var counts: [String: Int64] = [:]
        let tables = try connection.rows(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!' AND name NOT LIKE '!_preflight!_%' ESCAPE '!'")
        for row in tables {
            guard case .text(let name)? = row.first else { continue }
            counts[name] = try connection.integer("SELECT count(*) FROM \(SQLText.quote(name))")
        }
        return counts
    }

    /// The fresh install runs on an empty file; an upgrade from version 1 through Preflight
    /// ends with the schema and the rows that plain SQLite gets from the same migration SQL,
    /// and with the fresh install's schema.
    @Test(arguments: ["sqldelight-library", "sqldelight-notes"])
    func aSQLDelightAppUpgradesAndInstallsAsSQLiteDoes(fixture: String) throws {
        let directory = TemporaryDirectory("sqldelight-app")
        let (project, plan, version1) = try sqldelightPlan(fixture, in: directory)
        let app = try #require(Self.sqldelightApps[fixture])
        let fresh = try #require(plan.freshInstall)
        #expect(fresh.version == plan.newestVersion && plan.newestVersion == plan.steps.count)
        // No Kotlin is left: a label, an import, a group, an annotation or a type argument
        // would be a parameter or an illegal token to SQLite, or a Kotlin name after AS.
        for statement in fresh.sql + plan.steps.flatMap(statements) {
            let tokenizer = SQLTokenizer(statement)
            let stray = tokenizer.filter { $0.kind == .variable || $0.kind == .illegal }.map(tokenizer.text)
            #expect(stray.isEmpty, "\(stray) in \(statement)")
            #expect(!statement.hasPrefix("import") && !statement.contains("List<") && !statement.contains("Boolean"), "\(statement)")
        }

        // (a) A fresh install, by plain SQLite and by Preflight.
        let freshByHand = try FixtureDatabase.create(at: directory.file("fresh-sqlite.db"), sql: fresh.sql.joined(separator: ";\n") + ";")
        let empty = directory.file("empty.db")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let installed = try rehearse(empty, plan: project, out: directory.file("fresh-preflight.db"))
        #expect(installed.summary.outcome == "completed", "\(installed.stderr)")
        #expect(installed.summary.userVersion == plan.newestVersion)

        // (b) An upgrade from version 1, made by version 1's own SQL, with rows.
        let device = try FixtureDatabase.create(at: directory.file("v1.db"), sql: version1 + ";" + app.rows + "PRAGMA user_version = 1;")
        let upgradedByHand = try FixtureDatabase.create(at: directory.file("upgraded-sqlite.db"), sql: version1 + ";" + app.rows)
        for step in plan.steps.dropFirst() {
            try FixtureDatabase.execute(statements(step).joined(separator: ";\n") + ";", at: upgradedByHand)
        }
        let upgraded = try rehearse(device, plan: project, out: directory.file("upgraded-preflight.db"))
        #expect(upgraded.summary.outcome == "completed", "\(upgraded.stderr)")
        #expect(upgraded.summary.userVersion == plan.newestVersion)
        #expect(upgraded.summary.schemaMatchesFreshInstall == true)
        #expect(upgraded.summary.integrity == "ok")

        let schemas = try [freshByHand, directory.file("fresh-preflight.db"), upgradedByHand, directory.file("upgraded-preflight.db")].map { path in
            try SchemaSnapshot.read(Connection(path: path, readOnly: true))
        }
        #expect(schemas[1] == schemas[0], "\(fixture): Preflight's fresh install differs from plain SQLite's")
        #expect(schemas[2] == schemas[0], "\(fixture): the migrations do not reach the .sq files' schema")
        #expect(schemas[3] == schemas[2], "\(fixture): Preflight's upgrade differs from plain SQLite's")
        let counts = try rowCounts(directory.file("upgraded-preflight.db"))
        #expect(counts == (try rowCounts(upgradedByHand)))
        #expect(counts.values.reduce(0, +) > 0)
    }

    /// The statements of `Schema.create`, in its order, with SQLDelight's dialect taken out
    /// where SQLDelight takes it out and nowhere else.
    @Test func theFreshInstallIsWhatSQLDelightsSchemaCreateRuns() throws {
        let directory = TemporaryDirectory("sqldelight-order")
        let (_, plan, _) = try sqldelightPlan("sqldelight-library", in: directory)
        let fresh = try #require(plan.freshInstall).sql
        let heads = fresh.map { statement in
            let tokenizer = SQLTokenizer(statement)
            let words = tokenizer.filter { !$0.isTrivia }.prefix(4).map(tokenizer.text)
            return "\(words[1]) \(words[1] == "VIRTUAL" ? words[3] : words[2])"
        }
        // Files by name (Book, BookSearch, Bookmark, Chapter, view/Library, Stats,
        // view/Unread); tables, views (unread_count before the view that uses it), indexes
        // and triggers (one in Bookmark.sq is on Chapter.sq's table), then the virtual
        // table. The group in Book.sq hides no trigger.
        #expect(heads == [
            "TABLE book", "TABLE bookmark", "TABLE chapter", "TABLE reading_session",
            "VIEW unread_count", "VIEW library",
            "TRIGGER book_search_insert", "TRIGGER book_search_delete", "TRIGGER book_search_update",
            "INDEX bookmark_chapter_index", "TRIGGER chapter_bookmarks_gone", "INDEX chapter_book_index",
            "TRIGGER library_unfavorite",
            "VIRTUAL book_search",
        ])
        let book = fresh[0]
        #expect(book.contains("  tags TEXT,\n  favorite INTEGER NOT NULL DEFAULT 0,\n  memo BLOB NOT NULL DEFAULT '{}',\n"))
        #expect(book.contains("  rating INTEGER NOT NULL DEFAULT 0 CHECK (CAST(rating AS INTEGER) BETWEEN 0 AND 5),\n  genres TEXT\n)"))
        let bookmark = fresh[1]
        #expect(bookmark.contains("  id INTEGER NOT NULL PRIMARY KEY,\n"))
        #expect(bookmark.contains("  page INTEGER NOT NULL DEFAULT (CAST('0' AS INTEGER)),\n"))
        #expect(bookmark.contains("  created_at INTEGER NOT NULL,\n  flags INTEGER NOT NULL DEFAULT 0 CHECK (flags >= 0)\n)"))
        #expect(fresh[3] == "CREATE TABLE reading_session AS SELECT CAST(id AS INTEGER) AS chapter_id, CAST(NULL AS TEXT) AS started_at FROM chapter WHERE 0")
        #expect(fresh[5].contains("coalesce(u.unread, 0) AS unread\nFROM book AS b\n"))
        // FTS5 takes no column types: SQLDelight writes the names alone.
        #expect(fresh[13] == """
            CREATE VIRTUAL TABLE book_search USING fts5(
              title,
              author,
              content = 'book',
              content_rowid = 'id',
              tokenize = 'porter unicode61'
            )
            """)
        // A migration's imports go, its Kotlin types too.
        #expect(statements(plan.steps[1]).prefix(3) == [
            "ALTER TABLE chapter ADD COLUMN last_page INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE book ADD COLUMN rating INTEGER NOT NULL DEFAULT 0 CHECK (CAST(rating AS INTEGER) BETWEEN 0 AND 5)",
            "ALTER TABLE book ADD genres TEXT",
        ])
        // FTS4 keeps the SQL types; only the Kotlin one goes.
        let notes = try sqldelightPlan("sqldelight-notes", in: directory).plan
        let fts4 = try #require(notes.freshInstall?.sql.first { $0.contains("USING fts4") })
        #expect(fts4.contains("  title TEXT,\n  body TEXT,\n  tokenize=unicode61\n)"))
        // What is neither a table, a view, an index nor a trigger comes last, in the files' order.
        #expect(try #require(notes.freshInstall?.sql.suffix(2)).map { String($0.prefix(26)) } == ["INSERT OR IGNORE INTO fold", "CREATE VIRTUAL TABLE note_"])
    }

    /// With the import true to SQLDelight, a real drift shows: a trigger dropped from the
    /// `.sq` files with no migration that drops it.
    @Test func aTriggerDroppedFromTheSqFilesIsADrift() throws {
        let directory = TemporaryDirectory("sqldelight-drift")
        let (project, _, version1) = try sqldelightPlan("sqldelight-library", in: directory)
        let library = project + "/src/main/sqldelight/com/example/library/view/Library.sq"
        let text = try String(contentsOfFile: library, encoding: .utf8)
        let withoutTrigger = text.replacingOccurrences(
            of: "CREATE TRIGGER library_unfavorite INSTEAD OF DELETE ON library BEGIN\n  UPDATE book SET favorite = 0 WHERE id = old.id;\nEND;\n",
            with: "")
        #expect(withoutTrigger != text)
        try Data(withoutTrigger.utf8).write(to: URL(fileURLWithPath: library))
        let device = try FixtureDatabase.create(
            at: directory.file("v1.db"), sql: version1 + ";" + (Self.sqldelightApps["sqldelight-library"]?.rows ?? "") + "PRAGMA user_version = 1;")
        let run = try rehearse(device, plan: project, out: directory.file("out.db"))
        #expect(run.summary.userVersion == 4)
        #expect(run.summary.schemaMatchesFreshInstall == false)
        #expect(run.summary.outcome == "verification_failed", "\(run.stderr)")
        // The report names what differs, so the person sees the drift, not the import.
        #expect(run.summary.schemaDiff.contains("library_unfavorite"), "\(run.summary.schemaDiff)")
    }

    @Test func aGroupWithoutItsClosingBraceIsNamed() throws {
        let directory = TemporaryDirectory("sqldelight-group")
        let folder = directory.file("sqldelight")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("CREATE TABLE t(a INTEGER);\n\nrefill {\n  DELETE FROM t;\n  INSERT INTO t VALUES (1);\n".utf8)
            .write(to: URL(fileURLWithPath: folder + "/T.sq"))
        let error = #expect(throws: PlanImportError.self) {
            try PlanImport(layout: .sqldelight, directory: folder).makePlan()
        }
        #expect(error?.message.contains("T.sq: the group of statements refill { has no closing }") == true, "\(String(describing: error))")
    }
}
