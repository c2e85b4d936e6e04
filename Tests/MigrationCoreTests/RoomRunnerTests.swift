import Foundation
import Testing
import TestSupport
@testable import MigrationCore

/// Runner room in process, as Room's own code opens a file (docs/FIDELITY.md): its schema
/// validation in both directions (what Room compares fails, what it does not compare
/// passes), `onCreate` on empty and pre-packaged files, the path Room picks and its
/// destructive fallback.
@Suite("Room's open helper in the migrator")
struct RoomRunnerTests {
    /// Version 1 of the app: what the file holds before the upgrade.
    private static let version1 = [
        "CREATE TABLE items(id INTEGER PRIMARY KEY NOT NULL, n INTEGER NOT NULL, label TEXT)",
        "CREATE INDEX index_items_n ON items(n)",
        "CREATE TABLE pairs(a INTEGER NOT NULL, b INTEGER NOT NULL, PRIMARY KEY(a, b))",
        "CREATE TABLE tags(id INTEGER PRIMARY KEY NOT NULL, item_id INTEGER NOT NULL, FOREIGN KEY(item_id) REFERENCES items(id) ON UPDATE NO ACTION ON DELETE CASCADE)",
        "CREATE VIEW item_labels AS SELECT id, label FROM items",
        "CREATE VIRTUAL TABLE items_fts USING fts4(label, tokenize=simple)",
    ]
    private static let addNote = "ALTER TABLE items ADD COLUMN note TEXT"

    /// The entities of version 2: version 1's, `items.note` declared as `note`, with each
    /// of `replacing`'s texts put in place of the one it names.
    private static func version2(note: String = "note TEXT", _ replacing: [String: String] = [:], adding: [String] = []) -> [String] {
        var statements = version1
        statements[0] = statements[0].replacingOccurrences(of: "label TEXT)", with: "label TEXT, \(note))")
        for (old, new) in replacing {
            statements = statements.map { $0.replacingOccurrences(of: old, with: new) }
        }
        return statements + adding
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var migration: [String]
        var entities: [String]
        var roomVersion: String? = nil
        /// Nil: Room's validation passes; else a part of its message.
        var failure: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // Room's AutoMigration adds a nullable column with DEFAULT NULL; the entity declares none.
        Case(name: "DEFAULT NULL where the entity declares no default", migration: [addNote + " DEFAULT NULL"], entities: version2(), failure: nil),
        Case(name: "a declared type of the same affinity", migration: ["ALTER TABLE items ADD COLUMN note VARCHAR(20)"], entities: version2(), failure: nil),
        Case(
            name: "an index renamed within Room's index_ prefix", migration: [addNote, "CREATE INDEX index_items_note_v2 ON items(note)"],
            entities: version2(adding: ["CREATE INDEX index_items_note ON items(note)"]), failure: nil),
        Case(
            name: "a view written again with the same text",
            migration: [addNote, "DROP VIEW item_labels", "CREATE VIEW item_labels AS SELECT id, label FROM items"],
            entities: version2(), failure: nil),
        Case(
            name: "a default the entity declares, forgotten", migration: [addNote], entities: version2(note: "note TEXT DEFAULT 'none'"),
            failure: "column items.note: no default, expected default 'none'"),
        Case(
            name: "a forgotten default under Room 2.1, which compared none", migration: [addNote],
            entities: version2(note: "note TEXT DEFAULT 'none'"), roomVersion: "2.1.0", failure: nil),
        Case(
            name: "another affinity", migration: ["ALTER TABLE items ADD COLUMN note INTEGER"], entities: version2(),
            failure: #"column items.note: affinity INTEGER (type "INTEGER"), expected TEXT (type "TEXT")"#),
        Case(
            name: "not-null", migration: [addNote + " DEFAULT ''"], entities: version2(note: "note TEXT NOT NULL DEFAULT ''"),
            failure: "column items.note: nullable, expected NOT NULL"),
        Case(
            name: "the primary key's order", migration: [addNote], entities: version2(["PRIMARY KEY(a, b)": "PRIMARY KEY(b, a)"]),
            failure: "column pairs.a: primary key position 1, expected 2"),
        Case(
            name: "an index forgotten", migration: [addNote], entities: version2(adding: ["CREATE INDEX index_items_note ON items(note)"]),
            failure: "the indexes of items are index_items_n(n ASC), expected index_items_n(n ASC), index_items_note(note ASC)"),
        Case(
            name: "an index's order", migration: [addNote, "CREATE INDEX index_items_note ON items(note DESC)"],
            entities: version2(adding: ["CREATE INDEX index_items_note ON items(note)"]),
            failure: "index_items_note(note DESC)"),
        Case(
            name: "an index not unique", migration: [addNote, "CREATE INDEX index_items_note ON items(note)"],
            entities: version2(adding: ["CREATE UNIQUE INDEX index_items_note ON items(note)"]),
            failure: "are index_items_n(n ASC), index_items_note(note ASC), expected index_items_n(n ASC), UNIQUE index_items_note(note ASC)"),
        Case(
            name: "a foreign key's action", migration: [addNote], entities: version2(["ON DELETE CASCADE": "ON DELETE SET NULL"]),
            failure: "the foreign keys of tags are (item_id) -> items(id) ON DELETE CASCADE"),
        Case(
            name: "a view's text", migration: [addNote], entities: version2(["SELECT id, label FROM": "SELECT id, label, note FROM"]),
            failure: "view item_labels is"),
        Case(
            name: "an FTS table's options", migration: [addNote], entities: version2(["tokenize=simple": "tokenize=porter"]),
            failure: "the options of FTS table items_fts are [\"tokenize=simple\"], expected [\"tokenize=porter\"]"),
    ]

    @Test(arguments: cases)
    func validatesAsRoomsTableInfoEquals(_ example: Case) throws {
        let directory = TemporaryDirectory("room")
        let path = try database(directory, version: 1, Self.version1)
        let roomVersion = example.roomVersion.map { #", "room_version": "\#($0)""# } ?? ""
        let plan = try roomPlan(
            steps: [(1, nil, Self.version1), (2, nil, example.migration)], fresh: example.entities, extra: roomVersion)
        let (ending, _) = migrate(path, plan)
        guard let expected = example.failure else {
            #expect(ending == .reached(version: 2), "\(ending)")
            return
        }
        guard case .stopped(.failed, let failure) = ending else {
            Issue.record("not failed: \(ending)")
            return
        }
        #expect(failure.kind == Failure.Kind.schemaValidation)
        #expect(failure.message.hasPrefix("Migration didn't properly handle: "), "\(failure.message)")
        #expect(failure.message.contains(expected), "\(failure.message)")
        // Inside the transaction: the file is as it was.
        #expect(try FixtureDatabase.userVersion(at: path) == 1)
    }

    // MARK: - onCreate

    /// An empty file: room, sqliteopenhelper (also SQLDelight's `Schema.create`) and drift run
    /// the create path, the fresh install, and no migration; per_step and grdb run every step.
    @Test(arguments: ["room", "sqliteopenhelper", "drift", "per_step", "grdb"])
    func anEmptyFileTakesItsFrameworksFirstLaunchPath(runner: String) throws {
        let directory = TemporaryDirectory("room")
        let path = directory.file("empty.db")
        FileManager.default.createFile(atPath: path, contents: Data())
        // The fresh install holds a table no step makes: it shows which path ran.
        let extra = runner == "room" ? #", "room_identity_hashes": {"1": "h1", "2": "h2"}"# : ""
        let plan = try PlanDecoder.decode(Array("""
            {"name": "items", "runner": "\(runner)"\(extra), "steps": [
              {"version": 1, "id": "one", "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"},
              {"version": 2, "id": "two", "sql": "ALTER TABLE items ADD COLUMN label TEXT"}],
             "fresh_install": {"version": 2, "sql": ["CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, label TEXT)", "CREATE TABLE made_on_create(x)"]}}
            """.utf8))
        let (ending, events) = migrate(path, plan)
        #expect(ending == .reached(version: 2), "\(ending)")
        let creates = ["room", "sqliteopenhelper", "drift"].contains(runner)
        #expect(events.contains { $0.event == .createStarted } == creates)
        #expect(events.contains { $0.event == .stepStarted } == !creates)
        let tables = try Connection(path: path).rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            .compactMap { $0[0].textValue }
        #expect(tables.contains("made_on_create") == creates, "\(tables)")
        #expect(try FixtureDatabase.userVersion(at: path) == (runner == "grdb" ? 0 : 2))
        if runner == "room" {
            #expect(try Connection(path: path).rows("SELECT identity_hash FROM room_master_table WHERE id = 42") == [[.text("h2")]])
        }
    }

    /// A version-0 file that holds tables: Room creates what is missing (`IF NOT EXISTS`)
    /// and validates the rest; the user's rows stay.
    @Test func aPrepackagedFileIsCreatedIntoAndValidated() throws {
        let directory = TemporaryDirectory("room")
        let fresh = ["CREATE TABLE IF NOT EXISTS items(id INTEGER PRIMARY KEY NOT NULL, n INTEGER NOT NULL, label TEXT)",
                     "CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY NOT NULL)"]
        let plan = try roomPlan(
            steps: [(1, nil, [fresh[0]]), (2, nil, [fresh[1]])], fresh: fresh, extra: #", "room_identity_hash": "h2""#)
        let good = try database(directory, version: 0, [
            "CREATE TABLE items(id INTEGER PRIMARY KEY NOT NULL, n INTEGER NOT NULL, label TEXT)", "INSERT INTO items VALUES (1, 1, 'a'), (2, 2, 'b')"])
        let (ending, events) = migrate(good, plan)
        #expect(ending == .reached(version: 2), "\(ending)")
        #expect(!events.contains { $0.event == .stepStarted })
        let connection = try Connection(path: good)
        #expect(try connection.integer("SELECT count(*) FROM items") == 2)
        #expect(try connection.integer("SELECT count(*) FROM notes") == 0)
        #expect(try connection.rows("SELECT identity_hash FROM room_master_table") == [[.text("h2")]])

        // A pre-packaged table without the entity's column fails Room's check, and the file stays.
        let bad = try database(directory, version: 0, ["CREATE TABLE items(id INTEGER PRIMARY KEY NOT NULL, n INTEGER NOT NULL)"])
        let (failed, _) = migrate(bad, plan)
        guard case .stopped(.failed, let failure) = failed else {
            Issue.record("not failed: \(failed)")
            return
        }
        #expect(failure.kind == Failure.Kind.schemaValidation)
        #expect(failure.message.hasPrefix("Pre-packaged database has an invalid schema: items."), "\(failure.message)")
        #expect(failure.message.contains("column items.label is missing"))
        #expect(try Connection(path: bad).integer("SELECT count(*) FROM sqlite_schema WHERE name IN ('notes', 'room_master_table')") == 0)
    }

    // MARK: - onOpen

    /// A file at the app's version: Room's `checkIdentity` in `onOpen`. Another hash in
    /// `room_master_table` crashes every launch; no table at all is validated as a
    /// pre-packaged file, then given the hash.
    @Test func aFileAtTheTargetIsOpenedAsRoomChecksItsIdentity() throws {
        let directory = TemporaryDirectory("room")
        let create = "CREATE TABLE items(id INTEGER PRIMARY KEY NOT NULL, n INTEGER NOT NULL)"
        let plan = try roomPlan(steps: [(1, nil, [create])], fresh: [create], extra: #", "room_identity_hash": "h1""#)
        let master = "CREATE TABLE room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT)"
        let same = try database(directory, version: 1, [create, master, "INSERT INTO room_master_table VALUES (42, 'h1')"])
        #expect(migrate(same, plan).0 == .reached(version: 1))

        let other = try database(directory, version: 1, [create, master, "INSERT INTO room_master_table VALUES (42, 'h0')"])
        guard case .stopped(.failed, let mismatch) = migrate(other, plan).0 else {
            Issue.record("a foreign identity hash was accepted")
            return
        }
        #expect(mismatch.kind == Failure.Kind.identityMismatch)
        #expect(mismatch.message.hasPrefix("Room cannot verify the data integrity: the file is at version 1, but room_master_table holds the identity hash h0 where the app's is h1"), "\(mismatch.message)")

        let bare = try database(directory, version: 1, [create])
        #expect(migrate(bare, plan).0 == .reached(version: 1))
        #expect(try Connection(path: bare).rows("SELECT identity_hash FROM room_master_table") == [[.text("h1")]])

        let wrong = try database(directory, version: 1, ["CREATE TABLE items(id INTEGER PRIMARY KEY NOT NULL, n TEXT NOT NULL)"])
        guard case .stopped(.failed, let invalid) = migrate(wrong, plan).0 else {
            Issue.record("a file without room_master_table was not validated")
            return
        }
        #expect(invalid.kind == Failure.Kind.schemaValidation)
        #expect(invalid.message.hasPrefix("Pre-packaged database has an invalid schema: items. The file is at version 1 without room_master_table"), "\(invalid.message)")
    }

    // MARK: - The path and the destructive fallback

    /// Base version 2, a step 2 -> 4 that spans two versions and one 3 -> 4.
    private func spanningPlan(fallback: String = "\"off\"") throws -> Plan {
        try roomPlan(
            steps: [
                (2, nil, ["CREATE TABLE items(id INTEGER PRIMARY KEY NOT NULL, n INTEGER NOT NULL)"]),
                (3, nil, ["ALTER TABLE items ADD COLUMN a TEXT"]),
                (4, 2, ["ALTER TABLE items ADD COLUMN a TEXT", "ALTER TABLE items ADD COLUMN b TEXT"]),
                (4, 3, ["ALTER TABLE items ADD COLUMN b TEXT"]),
            ],
            fresh: nil, extra: #", "base_version": 2, "room_destructive_fallback": \#(fallback), "room_identity_hash": "h4""#)
    }

    private func itemsAt(_ version: Int, _ directory: TemporaryDirectory, rows: Int = 3) throws -> String {
        let columns = version >= 3 ? ", a TEXT" : ""
        return try database(directory, version: version, [
            "CREATE TABLE items(id INTEGER PRIMARY KEY NOT NULL, n INTEGER NOT NULL\(columns))",
            "\(series(rows)) INSERT INTO items(id, n) SELECT value, value FROM series",
        ])
    }

    @Test func roomTakesTheLongestStepTowardsTheTarget() throws {
        let directory = TemporaryDirectory("room")
        for (version, expected) in [(2, ["2-4"]), (3, ["3-4"])] {
            let path = try itemsAt(version, directory)
            let plan = try spanningPlan()
            let (ending, events) = migrate(path, plan)
            #expect(ending == .reached(version: 4), "\(ending)")
            let ran = events.filter { $0.event == .stepStarted }.compactMap(\.name)
            #expect(ran == expected)
            #expect(try Connection(path: path).integer("SELECT count(*) FROM items") == 3)
        }
    }

    @Test func aVersionWithoutAPathIsMissingUnlessTheFallbackErasesIt() throws {
        let directory = TemporaryDirectory("room")
        let below = try itemsAt(1, directory)
        let (missing, _) = migrate(below, try spanningPlan())
        guard case .stopped(.failed, let failure) = missing else {
            Issue.record("not failed: \(missing)")
            return
        }
        #expect(failure.kind == Failure.Kind.missingMigration)
        #expect(failure.message.contains("below the plan's base version 2"), "\(failure.message)")
        #expect(failure.message.contains(#""A migration from 1 to 4 was required but not found""#))
        #expect(try FixtureDatabase.userVersion(at: below) == 1)

        // fallbackToDestructiveMigrationFrom(3) does not cover version 1; (1) and () do.
        let (notCovered, _) = migrate(below, try spanningPlan(fallback: "[3]"))
        #expect(notCovered == .stopped(.failed, Failure(kind: Failure.Kind.missingMigration, message: failure.message
            .replacingOccurrences(of: " (the plan's room_destructive_fallback is off)", with: " (fallbackToDestructiveMigrationFrom names 3, not 1)"))))
        for fallback in ["[1]", "\"always\""] {
            let path = try itemsAt(1, directory, rows: 5)
            let (ending, events) = migrate(path, try spanningPlan(fallback: fallback))
            #expect(ending == .reached(version: 4), "\(ending)")
            let erased = events.first { $0.event == .databaseErased }?.failure
            #expect(erased?.kind == Failure.Kind.dataErased)
            #expect(erased?.message.hasSuffix("The user's data is erased: 5 rows in 1 table") == true, "\(erased?.message ?? "")")
            let connection = try Connection(path: path)
            #expect(try connection.integer("SELECT count(*) FROM items") == 0)
            #expect(try connection.rows("SELECT name FROM pragma_table_info('items')").compactMap { $0[0].textValue } == ["id", "n", "a", "b"])
            #expect(try connection.rows("SELECT identity_hash FROM room_master_table") == [[.text("h4")]])
        }
    }

    /// A file from a newer app: refused, unless fallbackToDestructiveMigrationOnDowngrade.
    @Test func aDowngradeIsErasedOnlyWithTheDowngradeFallback() throws {
        let directory = TemporaryDirectory("room")
        let newer = try itemsAt(6, directory)
        let (refused, _) = migrate(newer, try spanningPlan())
        guard case .stopped(.refused, let refusal) = refused else {
            Issue.record("not refused: \(refused)")
            return
        }
        #expect(refusal.kind == Failure.Kind.futureVersion)
        let (erased, events) = migrate(newer, try spanningPlan(fallback: "\"on_downgrade\""))
        #expect(erased == .reached(version: 4), "\(erased)")
        #expect(events.contains { $0.event == .databaseErased })
        #expect(try Connection(path: newer).integer("SELECT count(*) FROM items") == 0)
    }

    // MARK: - Helpers

    private func database(_ directory: TemporaryDirectory, version: Int, _ statements: [String]) throws -> String {
        try FixtureDatabase.create(
            at: directory.file("v\(version)-\(UUID().uuidString.prefix(6)).db"),
            sql: statements.joined(separator: ";\n") + ";\nPRAGMA user_version = \(version);")
    }

    /// A room plan: `(version, from_version, statements)` per step, named `from-to`.
    private func roomPlan(steps: [(Int, Int?, [String])], fresh: [String]?, extra: String = "") throws -> Plan {
        let stepsJSON = steps.map { version, from, statements in
            let fromKey = from.map { #""from_version": \#($0), "# } ?? ""
            let name = "\(from ?? version - 1)-\(version)"
            return #"{"version": \#(version), \#(fromKey)"name": "\#(name)", "sql": [\#(statements.map(JSONValue.quoted).joined(separator: ", "))]}"#
        }.joined(separator: ", ")
        let freshJSON = fresh.map {
            #", "fresh_install": {"version": \#(steps.last?.0 ?? 0), "sql": [\#($0.map(JSONValue.quoted).joined(separator: ", "))]}"#
        } ?? ""
        return try PlanDecoder.decode(Array(#"{"name": "room-app", "runner": "room"\#(extra), "steps": [\#(stepsJSON)]\#(freshJSON)}"#.utf8))
    }

    private func migrate(_ path: String, _ plan: Plan) -> (Migrator.Ending, [MigrationEvent]) {
        var events: [MigrationEvent] = []
        let ending = Migrator(plan: plan, settings: MigrationSettings(spaceCheck: .off)).migrate(databaseAt: path) { events.append($0) }
        return (ending, events)
    }
}
