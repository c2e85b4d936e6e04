import Foundation
import MigrationCore
import Testing
import TestSupport

/// `preflight plan import --from room` on real Room apps, copied verbatim with their exported
/// schemas (Fixtures/RoomApps, each with its PROVENANCE).
@Suite struct RoomAppImportTests {
    static let fixtures = Repository.path("Tests/PreflightServiceTests/Fixtures/RoomApps")

    /// What the import could not read is said on stderr, file and line, and kept in the
    /// steps; the migration that spans two versions keeps its span.
    @Test func theImportSaysWhatItCouldNotRead() throws {
        let directory = TemporaryDirectory("room-app")
        let out = directory.file("wikipedia.json")
        let result = try PreflightProcess.run(["plan", "import", "--from", "room", Self.fixtures + "/wikipedia/app", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        let plan = try PlanDecoder.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
        #expect(plan.baseVersion == 19 && plan.newestVersion == 35 && plan.room?.destructiveFallback == .always)
        let spanning = try #require(plan.steps.first { $0.fromVersion == 26 && $0.version == 28 })
        #expect(spanning.name.hasPrefix("MIGRATION_26_28 (src/main/java/org/wikipedia/database/AppDatabase.kt:"))
        #expect(plan.steps.filter { $0.version == 28 }.count == 2)
        // Run-time values in MIGRATION_30_31's SQL: the statement is left out and named.
        let thirtyOne = try #require(plan.steps.first { $0.version == 31 })
        #expect(thirtyOne.needsReview.contains { $0.contains("AppDatabase.kt:347") && $0.contains("LocalDate.now().year") })
        #expect(result.stderr.contains("note: step 31 (MIGRATION_30_31"))
        #expect(result.stderr.contains("needs review: src/main/java/org/wikipedia/database/AppDatabase.kt:347"))
        // A constant of another file (OnThisDayGameViewModel.MAX_QUESTIONS) is read.
        let thirtyTwo = try #require(plan.steps.first { $0.version == 32 })
        #expect(thirtyTwo.action == .sql([
            "ALTER TABLE DailyGameHistory ADD COLUMN status INTEGER NOT NULL DEFAULT 1",
            "ALTER TABLE DailyGameHistory ADD COLUMN currentQuestionIndex INTEGER NOT NULL DEFAULT 5",
        ]) && thirtyTwo.needsReview.isEmpty)

        // A run of the plan says which steps are marked.
        let database = try FixtureDatabase.create(at: directory.file("v35.db"), sql: "PRAGMA user_version = 35;")
        let run = try PreflightProcess.run(["run", "--db", database, "--plan", out], environment: ["TMPDIR": directory.path])
        #expect(run.stderr.contains("note: step 31 (MIGRATION_30_31 (src/main/java/org/wikipedia/database/AppDatabase.kt:334)) is marked needs_review (1 place)"))

        let wrong = try PreflightProcess.run(["plan", "import", "--from", "room", Self.fixtures + "/wikipedia/app", "--database", "NoteDatabase"])
        #expect(wrong.status == 2 && wrong.stderr.contains("has no schemas of a database NoteDatabase; it has org.wikipedia.database.AppDatabase"))
        let misplaced = try PreflightProcess.run(["plan", "import", "--from", "sql-dir", Self.fixtures, "--database", "AppDatabase"])
        #expect(misplaced.status == 2 && misplaced.stderr.contains("--database names a Room database class"))
    }

    /// Each app's migrations and AutoMigrations, one step each, over its exported schemas.
    /// (Wikipedia exported no schema of versions 20 and 21.)
    @Test(arguments: [("nowinandroid/core/database", 1, 14, 13, 14), ("wikipedia/app", 19, 35, 0, 15), ("libretube/app", 7, 25, 10, 19)])
    func everyAppImports(module: String, base: Int, newest: Int, automatic: Int, exported: Int) throws {
        let imported = try PlanImport(layout: .room, directory: Self.fixtures + "/" + module).makePlan()
        let plan = try PlanDecoder.decode(imported.document)
        #expect(plan.runner == .room && plan.baseVersion == base && plan.newestVersion == newest)
        #expect(plan.steps.filter { $0.name.hasPrefix("AutoMigration(") }.count == automatic)
        #expect(plan.room?.identityHashes.count == exported)
        let fresh = try #require(plan.freshInstall)
        #expect(fresh.version == newest && !fresh.sql.contains { $0.contains("room_master_table") })
    }

    /// As a user would: import, a made-up file at version 5 (`synthesize`, which writes 5's
    /// identity hash), and a run on a phone whose SQLite is 3.28: every AutoMigration, its
    /// copies and foreign-key checks included, runs there.
    @Test func anImportedPlanRunsOnAnOlderPhone() throws {
        let directory = TemporaryDirectory("room-app")
        let plan = directory.file("nia.json")
        let imported = try PreflightProcess.run(["plan", "import", "--from", "room", Self.fixtures + "/nowinandroid/core/database", "--out", plan])
        #expect(imported.status == 0, "\(imported.stderr)")
        let database = directory.file("nia-v5.db")
        let made = try PreflightProcess.run([
            "synthesize", "--plan", plan, "--version", "5", "--rows", "topics=300,episodes=50,news_resources=500,news_resources_topics=500,authors=20",
            "--out", database,
        ])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try RawDatabase(database).rows("SELECT identity_hash FROM room_master_table") == [["'fdb65d28086c5a10d129b905ce940aa4'"]])
        let result = try PreflightProcess.run(
            ["run", "--db", database, "--plan", plan, "--device", "android-30"], environment: ["TMPDIR": directory.path])
        #expect(try result.decodedReport.outcome.rawValue == "completed", "\(result.stderr)")
    }

    /// nowinandroid's spec renames topics.description; LibreTube's deletes downloadItem.url.
    @Test func specsBecomeRoomsCopies() throws {
        let nia = try PlanDecoder.decode(PlanImport(layout: .room, directory: Self.fixtures + "/nowinandroid/core/database").makePlan().document)
        let rename = try #require(nia.steps.first { $0.version == 3 })
        #expect(rename.action.statements.contains(
            "INSERT INTO `_new_topics` (`id`,`name`,`shortDescription`) SELECT `id`,`name`,`description` FROM `topics`"))
        let fts = try #require(nia.steps.first { $0.version == 13 })
        #expect(fts.action.statements.first?.hasPrefix("CREATE VIRTUAL TABLE IF NOT EXISTS `newsResourcesFts` USING FTS4(") == true)
        let tube = try PlanDecoder.decode(PlanImport(layout: .room, directory: Self.fixtures + "/libretube/app").makePlan().document)
        let deleted = try #require(tube.steps.first { $0.version == 24 })
        #expect(deleted.action.statements.contains { $0.hasPrefix("INSERT INTO `_new_downloadItem` (`id`,`type`,`videoId`,`fileName`,`path`,") && !$0.contains("`url`") })
    }
}

extension StepAction {
    /// A `sql` step's statements.
    fileprivate var statements: [String] {
        if case .sql(let statements) = self { return statements }
        return []
    }
}
