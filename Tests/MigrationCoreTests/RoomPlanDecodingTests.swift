import Testing
@testable import MigrationCore

/// The Room keys of a plan (docs/CONTRACT.md §1): how they are read, and the plans they make
/// an error of, each with a message that names the problem.
extension PlanDecoderTests {
    /// A Room plan whose history starts at 24 and ships even versions, with one step that
    /// spans two.
    private var spanning: String { """
        {"name": "r", "runner": "room", "base_version": 24, "room_version": "2.6.1",
         "room_identity_hashes": {"24": "h24", "26": "h26", "28": "h28"},
         "room_destructive_fallback": [25, 27],
         "steps": [
           {"version": 24, "sql": "CREATE TABLE a(x)"},
           {"version": 25, "sql": "ALTER TABLE a ADD COLUMN y"},
           {"version": 26, "from_version": 24, "sql": "ALTER TABLE a ADD COLUMN y; ALTER TABLE a ADD COLUMN z"},
           {"version": 26, "sql": "ALTER TABLE a ADD COLUMN z"},
           {"version": 28, "from_version": 26, "sql": "ALTER TABLE a ADD COLUMN w"}]}
        """
    }

    @Test func readsTheRoomKeys() throws {
        let plan = try decode(spanning)
        #expect(plan.baseVersion == 24)
        #expect(plan.newestVersion == 28)
        #expect(plan.steps.map(\.fromVersion) == [0, 24, 24, 25, 26])
        #expect(plan.room?.version == RoomVersion(2, 6, 1))
        #expect(plan.room?.identityHashes == [24: "h24", 26: "h26", 28: "h28"])
        #expect(plan.room?.destructiveFallback == .from([25, 27]))
        // The newest version's hash stands for `room_identity_hash` when that is absent.
        #expect(plan.roomIdentityHash == "h28")

        let plain = try decode(#"{"name": "p", "runner": "room", "steps": [{"version": 1, "sql": "CREATE TABLE a(x)"}]}"#)
        #expect(plain.baseVersion == 1)
        #expect(plain.room == RoomSettings(version: .newestRead, identityHashes: [:], destructiveFallback: .off))
        #expect(RoomVersion("2.7.0-alpha01") == RoomVersion(2, 7, 0))
        #expect(RoomVersion("2.1") == nil)
        #expect(RoomVersion(2, 1, 0) < RoomVersion.comparesDefaults)
    }

    /// `MigrationContainer.findMigrationPath`: from each version the step that goes furthest
    /// without passing the target, and no going back from a dead end.
    @Test func choosesThePathAsRoomDoes() throws {
        let plan = try decode(spanning)
        #expect(plan.migrationPath(from: 24, to: 28)?.map { "\($0.fromVersion)-\($0.version)" } == ["24-26", "26-28"])
        #expect(plan.migrationPath(from: 25, to: 28)?.map { "\($0.fromVersion)-\($0.version)" } == ["25-26", "26-28"])
        #expect(plan.migrationPath(from: 24, to: 25)?.map { "\($0.fromVersion)-\($0.version)" } == ["24-25"])
        #expect(plan.migrationPath(from: 28, to: 28)?.isEmpty == true)
        #expect(plan.migrationPath(from: 27, to: 28) == nil)
        #expect(plan.migrationPath(from: 3, to: 28) == nil)
        // 24 -> 26 is taken first; 26 has no step to 27, and Room does not go back to try 25.
        #expect(plan.migrationPath(from: 24, to: 27) == nil)
    }

    @Test func destructiveFallbackAppliesAsIsMigrationRequiredSays() {
        #expect(!RoomDestructiveFallback.off.erases(from: 3, to: 5))
        #expect(RoomDestructiveFallback.always.erases(from: 3, to: 5))
        #expect(!RoomDestructiveFallback.onDowngrade.erases(from: 3, to: 5))
        #expect(RoomDestructiveFallback.onDowngrade.erases(from: 6, to: 5))
        #expect(RoomDestructiveFallback.from([3]).erases(from: 3, to: 5))
        #expect(!RoomDestructiveFallback.from([3]).erases(from: 4, to: 5))
    }

    @Test func rejectsWhatRoomCannotMean() {
        let step1 = #"{"version": 1, "sql": "CREATE TABLE a(x)"}"#
        #expect(rejection(#"{"name": "a", "room_version": "2.6.1", "steps": [\#(step1)]}"#)
            == #"plan: "room_version" describes a Room app; it needs "runner": "room", not "per_step""#)
        #expect(rejection(#"{"name": "a", "runner": "sqliteopenhelper", "base_version": 3, "steps": [\#(step1)]}"#)
            == #"plan: "base_version" describes a Room app; it needs "runner": "room", not "sqliteopenhelper""#)
        #expect(rejection(#"{"name": "a", "steps": [\#(step1), {"version": 2, "from_version": 1, "sql": "SELECT 1"}]}"#)?
            .hasPrefix(#"step 2: "from_version" is Room's Migration(from, to) spanning versions; it needs "runner": "room""#) == true)
        #expect(rejection(#"{"name": "a", "runner": "room", "room_version": "two", "steps": [\#(step1)]}"#)
            == #"plan: "room_version" must be an androidx.room release such as "2.6.1", got "two""#)
        #expect(rejection(#"{"name": "a", "runner": "room", "room_destructive_fallback": "sometimes", "steps": [\#(step1)]}"#)?
            .hasSuffix(#"(fallbackToDestructiveMigrationFrom), got "sometimes""#) == true)
        #expect(rejection(#"{"name": "a", "runner": "room", "room_destructive_fallback": [0], "steps": [\#(step1)]}"#)?
            .hasSuffix("0 is not a version from 1 up") == true)
        #expect(rejection(#"{"name": "a", "runner": "room", "room_identity_hashes": {"7": "h"}, "steps": [\#(step1)]}"#)
            == #"plan: "room_identity_hashes" has "7", which is not a version any step reaches"#)
        #expect(rejection(#"{"name": "a", "runner": "room", "room_identity_hash": "x", "room_identity_hashes": {"1": "y"}, "steps": [\#(step1)]}"#)?
            .hasPrefix(#"plan: "room_identity_hash" is "x" but "room_identity_hashes" gives version 1 the hash "y""#) == true)
        #expect(rejection(#"{"name": "a", "runner": "room", "base_version": 3, "steps": [\#(step1)]}"#)?
            .hasPrefix(#"step 1: the first step creates the schema of the base version 3 on an empty file, so its "version" must be 3"#) == true)
        #expect(rejection(#"{"name": "a", "runner": "room", "steps": [\#(step1), {"version": 3, "from_version": 0, "sql": "SELECT 1"}]}"#)
            == "step 2 (to version 3): it migrates from version 0, which must be at least the base version 1 and below 3")
        #expect(rejection(#"{"name": "a", "runner": "room", "steps": [\#(step1), {"version": 3, "sql": "SELECT 1"}, {"version": 2, "sql": "SELECT 1"}]}"#)
            == #"step 3: "version" is 2, after a step to version 3; steps are listed in the order of their versions"#)
        #expect(rejection(#"{"name": "a", "runner": "room", "steps": [\#(step1), {"version": 3, "from_version": 1, "sql": "SELECT 1"}, {"version": 3, "from_version": 1, "sql": "SELECT 2"}]}"#)
            == "step 3: there is already a step from version 1 to 3")
    }
}
