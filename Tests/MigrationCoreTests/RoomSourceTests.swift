import Foundation
import Testing
import TestSupport

@testable import MigrationCore

/// Reading a Room app's Kotlin and Java as the importer reads it: tokens, static strings,
/// and each form of migration, on small hand-made sources.
@Suite struct RoomSourceTests {
    // MARK: - Tokens and static strings

    func strings(_ source: String, _ language: SourceTokens.Language = .kotlin) -> [String] {
        let tokens = SourceTokens(source, language: language)
        return tokens.tokens.filter { $0.kind == .string }.map { token in
            token.parts.map { part -> String in
                switch part {
                case .text(let text): return text
                case .template(let source): return "${" + source + "}"
                }
            }.joined()
        }
    }

    @Test func quotesInCommentsAndCommentsInStringsAreWhatTheyAre() {
        #expect(strings(#"val a = "x" // "not a string""#) == ["x"])
        #expect(strings(#"/* a "quote" /* nested */ still "comment" */ val b = "http://y""#) == ["http://y"])
        #expect(strings(#"/* "a" /* b */ val c = "z""#, .java).count == 1)  // Java's comments do not nest
        #expect(strings(#"val d = "tab\there \"q\" \$x $name ${a + "}"}""#) == ["tab\there \"q\" $x ${name} ${a + \"}\"}"])
        #expect(strings("val e = '\"'; val f = \"\"\"raw \"quoted\" \\n\"\"\"\"") == ["raw \"quoted\" \\n\""])
        #expect(strings("String g = \"\"\"\n    CREATE TABLE t (\n      x TEXT\n    )\n    \"\"\";", .java) == ["CREATE TABLE t (\n  x TEXT\n)\n"])
    }

    @Test func kotlinTrimsAsKotlinDoes() {
        #expect(KotlinText.trimIndent("\n    CREATE TABLE t (\n      x TEXT\n    )\n    ") == "CREATE TABLE t (\n  x TEXT\n)")
        #expect(KotlinText.trimMargin("\n    |ALTER TABLE t\n    |ADD COLUMN y\n") == "ALTER TABLE t\nADD COLUMN y")
        #expect(KotlinText.trimMargin("#a\n  #b", prefix: "#") == "a\nb")
    }

    @Test func staticValuesFollowConstantsAcrossFiles() {
        let first = SourceTokens(#"const val TABLE = "notes"; val COLUMN = "tag" + SUFFIX"#, language: .kotlin)
        let second = SourceTokens(#"class T { static final String SUFFIX = "_v" + 2; static final int N = 0x10; }"#, language: .java)
        let constants = StaticStrings.constants(in: [first, second])
        #expect(constants["TABLE"] == "notes" && constants["COLUMN"] == "tag_v2" && constants["N"] == "16")
        // One name, two values: which one is meant is not known.
        let twice = StaticStrings.constants(in: [SourceTokens(#"val X = "a"; fun f() { val X = "b" }"#, language: .kotlin)])
        #expect(twice["X"] == nil)
        let expression = SourceTokens(#"("ALTER TABLE $TABLE ADD " + COLUMN + " TEXT").trimIndent()"#, language: .kotlin)
        #expect(StaticStrings(tokens: expression, constants: constants).value(of: 0..<expression.count) == "ALTER TABLE notes ADD tag_v2 TEXT")
        let call = SourceTokens(#""a" + f()"#, language: .kotlin)
        #expect(StaticStrings(tokens: call, constants: constants).value(of: 0..<call.count) == nil)
    }

    // MARK: - A hand-made app

    /// A Room module with every form of migration: Kotlin objects and room-ktx lambdas, a
    /// spanning one, one not registered, Java's anonymous class and a class with `super`,
    /// and an AutoMigration whose spec renames a column and runs SQL after it.
    static func module(in directory: TemporaryDirectory) throws -> String {
        let root = directory.file("notes/app")
        func write(_ path: String, _ text: String) throws {
            let file = root + "/" + path
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        }
        let notes = "`id` INTEGER NOT NULL, `title` TEXT NOT NULL"
        let tag = ", `tag` TEXT"
        let schemas: [(Int, String, [String])] = [
            (1, notes, []), (2, notes + tag, []), (3, notes + tag + ", `pinned` INTEGER NOT NULL DEFAULT 0", []),
            (4, notes + tag + ", `pinned` INTEGER NOT NULL DEFAULT 0, `color` INTEGER", []),
            (5, notes + tag + ", `pinned` INTEGER NOT NULL DEFAULT 0, `color` INTEGER", ["labels"]),
            (6, notes + ", `label` TEXT, `pinned` INTEGER NOT NULL DEFAULT 0, `color` INTEGER", ["labels"]),
        ]
        for (version, columns, extra) in schemas {
            try write("schemas/com.example.notes.NoteDatabase/\(version).json", schemaJSON(version: version, notes: columns, extra: extra))
        }
        try write("src/main/java/com/example/notes/Migrations.kt", #"""
            package com.example.notes

            import androidx.room.migration.Migration

            const val NOTES = "notes"
            private const val ADD_TAG = "ALTER TABLE $NOTES ADD COLUMN tag TEXT" // a "quote" in a comment
            /* a block with "quotes" and /* nested */ ones: execSQL("DROP TABLE notes") */

            val MIGRATION_1_2 = object : Migration(1, 2) {
                override fun migrate(db: SupportSQLiteDatabase) {
                    Log.i("migrate", "1 -> 2")
                    db.execSQL(ADD_TAG)
                    db.execSQL("""
                        CREATE INDEX IF NOT EXISTS index_notes_tag
                        ON notes (tag)
                    """.trimIndent())
                }
            }

            val MIGRATION_2_3 = Migration(2, 3) { database ->
                database.execSQL("ALTER TABLE " + NOTES + " ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0; DROP TABLE notes")
                for (table in listOf("a", "b")) {
                    database.execSQL("DELETE FROM $table")
                }
                database.execSQL("UPDATE notes SET tag = '${System.currentTimeMillis()}'")
                cleanUp(database)
            }

            val MIGRATION_1_3 = object : Migration(1, 3) {
                override fun migrate(db: SupportSQLiteDatabase) = db.run {
                    execSQL("ALTER TABLE notes ADD COLUMN tag TEXT")
                    execSQL("ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")
                }
            }

            val UNUSED_3_4 = object : Migration(3, 4) {
                override fun migrate(db: SupportSQLiteDatabase) = db.execSQL("DROP TABLE notes")
            }
            """#)
        try write("src/main/java/com/example/notes/JavaMigrations.java", #"""
            package com.example.notes;

            public final class JavaMigrations {
                static final String TABLE = "notes";

                public static final Migration MIGRATION_3_4 = new Migration(3, 4) {
                    @Override
                    public void migrate(@NonNull SupportSQLiteDatabase database) {
                        // database.execSQL("DROP TABLE notes"); a comment, not code
                        database.execSQL("ALTER TABLE " + TABLE + " ADD COLUMN color INTEGER");
                        database.execSQL("PRAGMA foreign_keys = OFF");
                    }
                };
            }

            class Migration4To5 extends Migration {
                Migration4To5() {
                    super(4, 5);
                }

                @Override
                public void migrate(SupportSQLiteDatabase db) {
                    db.execSQL("CREATE TABLE IF NOT EXISTS `labels` (`id` INTEGER NOT NULL, PRIMARY KEY(`id`))");
                }
            }
            """#)
        try write("src/main/java/com/example/notes/NoteDatabase.kt", #"""
            package com.example.notes

            @Database(
                entities = [Note::class, Label::class],
                version = 6,
                autoMigrations = [AutoMigration(from = 5, to = 6, spec = NoteDatabase.Spec5to6::class)],
            )
            @TypeConverters(Converters::class)
            abstract class NoteDatabase : RoomDatabase() {
                @RenameColumn(NOTES, "tag", "label")
                class Spec5to6 : AutoMigrationSpec {
                    override fun onPostMigrate(db: SupportSQLiteDatabase) {
                        db.execSQL("UPDATE notes SET label = lower(label)")
                    }
                }

                companion object {
                    fun build(context: Context) = Room.databaseBuilder(context, NoteDatabase::class.java, "notes.db")
                        .addMigrations(MIGRATION_1_2, MIGRATION_2_3, MIGRATION_1_3, JavaMigrations.MIGRATION_3_4, Migration4To5())
                        .fallbackToDestructiveMigrationOnDowngrade()
                        .build()
                }
            }
            """#)
        // A test source set's migration is never the app's.
        try write("src/androidTest/java/com/example/notes/TestMigrations.kt", #"""
            val MIGRATION_5_6 = object : Migration(5, 6) { override fun migrate(db: SupportSQLiteDatabase) { db.execSQL("DROP TABLE notes") } }
            """#)
        return root
    }

    /// A schema export: `notes` with the given columns (primary key `id`) and, when asked,
    /// `labels`.
    static func schemaJSON(version: Int, notes columns: String, extra: [String]) -> String {
        func field(_ definition: Substring) -> String {
            let words = definition.split(separator: " ")
            let name = words[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let notNull = definition.contains("NOT NULL")
            let defaultValue = definition.range(of: "DEFAULT ").map { "\"\(definition[$0.upperBound...])\"" } ?? "null"
            return #"{"fieldPath": "\#(name)", "columnName": "\#(name)", "affinity": "\#(words[1])", "notNull": \#(notNull), "defaultValue": \#(defaultValue)}"#
        }
        func entity(_ table: String, _ columns: String) -> String {
            let fields = columns.components(separatedBy: ", ").map { field(Substring($0)) }.joined(separator: ", ")
            return #"{"tableName": "\#(table)", "createSql": "CREATE TABLE IF NOT EXISTS `${TABLE_NAME}` (\#(columns), PRIMARY KEY(`id`))", "fields": [\#(fields)], "primaryKey": {"autoGenerate": false, "columnNames": ["id"]}, "indices": [], "foreignKeys": []}"#
        }
        let entities = [entity("notes", columns)] + extra.map { entity($0, "`id` INTEGER NOT NULL") }
        return #"{"formatVersion": 1, "database": {"version": \#(version), "identityHash": "hash\#(version)", "entities": [\#(entities.joined(separator: ", "))], "views": [], "setupQueries": []}}"#
    }

    struct ImportedStep {
        var version: Int
        var from: Int?
        var name: String
        var sql: [String]
        var review: [String]
    }

    func imported(_ root: String) throws -> (document: [String: JSONValue], steps: [ImportedStep], notes: [String]) {
        let plan = try PlanImport(layout: .room, directory: root).makePlan()
        let document = try #require(JSONValue.parse(plan.document)?.objectValue)
        guard case .array(let items)? = document["steps"] else { throw PlanImportError("no steps") }
        let steps = items.compactMap(\.objectValue).map { step in
            ImportedStep(
                version: Int(step["version"]?.integerValue ?? -1), from: step["from_version"]?.integerValue.map { Int($0) },
                name: step["name"]?.stringValue ?? "", sql: Self.strings(step["sql"]), review: Self.strings(step["needs_review"]))
        }
        return (document, steps, plan.notes)
    }

    static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap(\.stringValue)
    }

    @Test func everyFormOfMigrationIsRead() throws {
        let directory = TemporaryDirectory("room-import")
        let (document, steps, notes) = try imported(try Self.module(in: directory))
        #expect(document["runner"] == .string("room") && document["base_version"] == .number(1))
        #expect(document["room_identity_hash"] == .string("hash6") && document["room_destructive_fallback"] == .string("on_downgrade"))
        #expect(document["room_identity_hashes"]?.objectValue?["3"] == .string("hash3"))
        #expect(steps.map { [$0.from ?? $0.version - 1, $0.version] } == [[0, 1], [1, 2], [1, 3], [2, 3], [3, 4], [4, 5], [5, 6]])
        func step(_ from: Int, _ to: Int) -> ImportedStep? { steps.first { $0.version == to && ($0.from ?? to - 1) == from } }

        // Constants, templates over them, a raw string trimmed; the comment's SQL is no code.
        #expect(step(1, 2)?.sql == ["ALTER TABLE notes ADD COLUMN tag TEXT", "CREATE INDEX IF NOT EXISTS index_notes_tag\nON notes (tag)"])
        #expect(step(1, 2)?.review == [])
        #expect(step(1, 3)?.sql.count == 2 && step(1, 3)?.review == [])
        // Only the first statement of an execSQL runs; a loop, a run-time value and a helper are for review.
        let twoToThree = try #require(step(2, 3))
        #expect(twoToThree.sql.first == "ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")
        #expect(notes.contains { $0.contains("Migrations.kt:21") && $0.contains("runs only the first") })
        #expect(twoToThree.review.contains { $0.hasPrefix("src/main/java/com/example/notes/Migrations.kt:23") && $0.contains("loop") })
        #expect(twoToThree.review.contains { $0.contains("Migrations.kt:25") && $0.contains("System.currentTimeMillis") })
        #expect(twoToThree.review.contains { $0.contains("Migrations.kt:26") && $0.contains("cleanUp(...)") })
        #expect(notes.contains { $0.contains("step 3") && $0.contains("needs review") && $0.contains("Migrations.kt:25") })
        // Java: concatenation with a static final; a PRAGMA that does nothing in Room's transaction is left out, with a note.
        let threeToFour = try #require(step(3, 4))
        #expect(threeToFour.name.hasPrefix("MIGRATION_3_4 (src/main/java/com/example/notes/JavaMigrations.java:"))
        #expect(threeToFour.sql == ["ALTER TABLE notes ADD COLUMN color INTEGER"])
        #expect(threeToFour.review.count == 1 && threeToFour.review[0].contains("PRAGMA foreign_keys"))
        #expect(step(4, 5)?.name.hasPrefix("Migration4To5") == true && step(4, 5)?.sql.first?.hasPrefix("CREATE TABLE IF NOT EXISTS `labels`") == true)
        // The AutoMigration: Room's copy for the renamed column, then the spec's onPostMigrate.
        let auto = try #require(step(5, 6))
        #expect(auto.name.hasPrefix("AutoMigration(from = 5, to = 6, spec = Spec5to6)"))
        #expect(auto.sql.contains("INSERT INTO `_new_notes` (`id`,`title`,`label`,`pinned`,`color`) SELECT `id`,`title`,`tag`,`pinned`,`color` FROM `notes`"))
        #expect(auto.sql.last == "UPDATE notes SET label = lower(label)")
        // Not registered, or only in a test source set: never run by Room.
        #expect(notes.contains { $0.contains("UNUSED_3_4") && $0.contains("not registered") })
        #expect(!steps.contains { $0.sql.contains("DROP TABLE notes") })
        // The fresh install is the newest schema; room_master_table is the runner's to write.
        let fresh = Self.strings(document["fresh_install"]?.objectValue?["sql"])
        #expect(fresh.first?.hasPrefix("CREATE TABLE IF NOT EXISTS `notes` (`id` INTEGER NOT NULL, `title` TEXT NOT NULL, `label` TEXT") == true)
        #expect(!fresh.contains { $0.contains("room_master_table") })
    }

    /// `addMigrations(*ALL)`: the array's items are what Room runs; one left out of it is
    /// left out of the plan, and a version no step reaches then has no identity hash in it
    /// (no file at that version can be built from the plan).
    @Test func aSpreadArrayRegistersItsItems() throws {
        let directory = TemporaryDirectory("room-import")
        let root = try Self.module(in: directory)
        let database = root + "/src/main/java/com/example/notes/NoteDatabase.kt"
        var text = try String(contentsOfFile: database, encoding: .utf8)
        text = text.replacingOccurrences(
            of: ".addMigrations(MIGRATION_1_2, MIGRATION_2_3, MIGRATION_1_3, JavaMigrations.MIGRATION_3_4, Migration4To5())",
            with: ".addMigrations(*ALL_MIGRATIONS)")
        text += "\nval ALL_MIGRATIONS = arrayOf(MIGRATION_1_3, MIGRATION_2_3, JavaMigrations.MIGRATION_3_4, Migration4To5())\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: database))
        let (document, steps, notes) = try imported(root)
        #expect(steps.map { [$0.from ?? $0.version - 1, $0.version] } == [[0, 1], [1, 3], [2, 3], [3, 4], [4, 5], [5, 6]])
        #expect(notes.contains { $0.hasPrefix("MIGRATION_1_2 (src/main/java/com/example/notes/Migrations.kt:") && $0.contains("not registered") })
        #expect(document["room_identity_hashes"]?.objectValue.map { Set($0.keys) } == ["1", "3", "4", "5", "6"])
        #expect(try PlanDecoder.decode(PlanImport(layout: .room, directory: root).makePlan().document).steps.count == 6)
    }

    @Test func aModuleWithoutItsSchemasOrItsDatabaseSaysWhatIsMissing() throws {
        let directory = TemporaryDirectory("room-import")
        let root = try Self.module(in: directory)
        try FileManager.default.removeItem(atPath: root + "/src/main/java/com/example/notes/NoteDatabase.kt")
        let noClass = #expect(throws: PlanImportError.self) { try PlanImport(layout: .room, directory: root).makePlan() }
        #expect(noClass?.message.contains("no @Database class com.example.notes.NoteDatabase") == true)
        try FileManager.default.removeItem(atPath: root + "/schemas")
        let noSchemas = #expect(throws: PlanImportError.self) { try PlanImport(layout: .room, directory: root).makePlan() }
        #expect(noSchemas?.message.contains("holds no Room schemas") == true)
    }
}

/// What the import writes that only it writes: `needs_review` on a step, and a Room step
/// that runs nothing.
@Suite struct NeedsReviewDecodingTests {
    func decode(_ steps: String, runner: String = "room") throws -> Plan {
        try PlanDecoder.decode(Array(#"{"name": "t", "runner": "\#(runner)", "steps": [\#(steps)]}"#.utf8))
    }

    @Test func aStepCarriesWhatAPersonMustReview() throws {
        let plan = try decode(#"{"version": 1, "sql": "CREATE TABLE a(x)"}, {"version": 2, "needs_review": ["M.kt:3: loop"], "sql": []}"#)
        #expect(plan.steps[1].needsReview == ["M.kt:3: loop"] && plan.steps[1].action == .sql([]))
        #expect(plan.steps[0].needsReview.isEmpty)
        let wrong = #expect(throws: PlanError.self) { try decode(#"{"version": 1, "needs_review": "loop", "sql": "SELECT 1"}"#) }
        #expect(wrong?.message.contains("\"needs_review\" must be an array of strings") == true)
        // Outside Room a step still needs a statement.
        #expect(throws: PlanError.self) { try decode(#"{"version": 1, "sql": []}"#, runner: "per_step") }
    }
}
