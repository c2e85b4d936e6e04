import MigrationCore
import Testing

@testable import Simulation

/// The plan lint reads words as SQLite's tokenizer does: not inside strings or comments.
@Suite struct CompatibilityWarningsTests {
    private func codes(_ statements: [String], minSQLite: String? = "3.22.0") throws -> [String] {
        let plan = try PlanDecoder.decode(Array(#"{"name": "t", "steps": [{"version": 1, "sql": ["SELECT 1"]}]}"#.utf8))
        var step = plan.steps[0]
        step.action = .sql(statements)
        var linted = plan
        linted.steps = [step]
        return CompatibilityWarnings.check(
            plan: linted, target: 1, device: DeviceProfile(name: "old", sqliteVersion: minSQLite.flatMap(SQLiteVersion.init)),
            sqliteCheck: .warn
        ).map(\.code)
    }

    @Test func wordsInStringsAndCommentsAreNotSQL() throws {
        #expect(try codes(["INSERT INTO log VALUES ('DROP TABLE notes; RETURNING')", "-- DROP TABLE later\nSELECT 1"]) == [])
        #expect(try codes(["CREATE TABLE \"strict\"(x)"]) == [])
    }

    @Test func wordsAroundACommentStillCount() throws {
        #expect(try codes(["DROP /* old */ TABLE notes"]) == ["destructive_drop"])
        #expect(try codes(["ALTER TABLE notes DROP COLUMN body"]) == ["sqlite_too_old"])
    }

    /// A table dropped and put back in the same step (SQLite's twelve-step change, Room's
    /// AutoMigration: create, copy, drop, rename) keeps its rows: no warning for it; a table
    /// dropped for good still warns, by name.
    @Test func aTableDroppedAndPutBackIsNotLost() throws {
        let rebuild = [
            "CREATE TABLE `_new_notes` (`id` INTEGER NOT NULL, `title` TEXT, PRIMARY KEY(`id`))",
            "INSERT INTO `_new_notes` (`id`,`title`) SELECT `id`,`title` FROM `notes`",
            "DROP TABLE `notes`",
            "ALTER TABLE `_new_notes` RENAME TO `notes`",
        ]
        #expect(try codes(rebuild) == [])
        #expect(try codes(rebuild + ["DROP TABLE IF EXISTS \"Archive\""]) == ["destructive_drop"])
        #expect(try codes(["DROP TABLE notes", "ALTER TABLE other RENAME TO elsewhere"]) == ["destructive_drop"])
    }
}
