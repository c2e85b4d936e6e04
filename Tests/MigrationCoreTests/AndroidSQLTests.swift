import Foundation
import Testing
import TestSupport
@testable import MigrationCore

/// What an Android connection has beyond stock SQLite (ICU case mapping, LIKE and REGEXP;
/// the framework's LOCALIZED and UNICODE collations), on Android's settings only.
@Suite("Android's SQL functions and collations")
struct AndroidSQLTests {
    private static let android = ConnectionSettings(androidFunctions: true)

    private func connection(_ settings: ConnectionSettings = android) throws -> Connection {
        let connection = try Connection(path: ":memory:")
        try settings.defineFunctions(on: connection)
        return connection
    }

    private func text(_ sql: String, _ settings: ConnectionSettings = android) throws -> String? {
        try connection(settings).scalar(sql).textValue
    }

    @Test func lowerAndUpperFoldEveryLetterOnAndroidAndOnlyASCIIElsewhere() throws {
        #expect(try text("SELECT lower('ÄRGER Ωmega')") == "ärger ωmega")
        #expect(try text("SELECT upper('straße')") == "STRASSE")
        #expect(try text("SELECT lower('ÄRGER')", ConnectionSettings()) == "Ärger")
        // Turkish dotted capital I, with the locale as SQLite's ICU extension takes it.
        #expect(try text("SELECT lower('I', 'tr_TR')") == "ı")
        #expect(try text("SELECT lower('I')") == "i")
        #expect(try connection().scalar("SELECT lower(NULL)") == .null)
    }

    @Test(arguments: [
        ("SELECT 'Äpfel' LIKE 'äp%'", 1), ("SELECT 'ÄPFEL' LIKE '_pfel'", 1), ("SELECT 'straße' LIKE 'STRASSE'", 0),
        ("SELECT 'a%b' LIKE 'a!%b' ESCAPE '!'", 1), ("SELECT 'axb' LIKE 'a!%b' ESCAPE '!'", 0),
        ("SELECT 'Ωmega' LIKE '%MEGA'", 1), ("SELECT 'abc' LIKE 'a%c%'", 1), ("SELECT 'abc' LIKE 'b%'", 0),
        ("SELECT 'Café' REGEXP 'caf.'", 0), ("SELECT 'Café' REGEXP '[Cc]af.'", 1), ("SELECT 'xCafé' REGEXP 'Caf.'", 0),
    ])
    func likeAndRegexpAreICUs(sql: String, expected: Int64) throws {
        #expect(try connection().integer(sql) == expected, "\(sql)")
    }

    @Test func stockLikeFoldsOnlyASCIIAndHasNoRegexp() throws {
        #expect(try connection(ConnectionSettings()).integer("SELECT 'Äpfel' LIKE 'äp%'") == 0)
        #expect(throws: SQLiteError.self) { try connection(ConnectionSettings()).integer("SELECT 'a' REGEXP 'a'") }
    }

    @Test func anEscapeOfMoreThanOneCharacterIsRefused() throws {
        let connection = try connection()
        do {
            _ = try connection.integer("SELECT 'a' LIKE 'a' ESCAPE 'ab'")
            Issue.record("a two-character escape was taken")
        } catch {
            #expect(error.message.contains("ESCAPE expression must be a single character"))
        }
    }

    /// LOCALIZED orders by the locale's collator at primary strength (case and accents
    /// tie); UNICODE by the same collator at its own strength (they order, after letters).
    @Test func localizedAndUnicodeOrderAsICUDoes() throws {
        let connection = try connection()
        try connection.execute("CREATE TABLE t(name TEXT); INSERT INTO t VALUES ('b'), ('B'), ('á'), ('a'), ('Z'), ('A')")
        let binary = try connection.rows("SELECT name FROM t ORDER BY name").map { $0[0].textValue ?? "" }
        #expect(binary == ["A", "B", "Z", "a", "b", "á"])
        let unicode = try connection.rows("SELECT name FROM t ORDER BY name COLLATE UNICODE").map { $0[0].textValue ?? "" }
        #expect(unicode == ["a", "A", "á", "b", "B", "Z"])
        #expect(try connection.integer("SELECT count(DISTINCT name COLLATE LOCALIZED) FROM t") == 3)
        #expect(try connection.integer("SELECT 'á' = 'A' COLLATE LOCALIZED") == 1)
        #expect(try connection.integer("SELECT 'á' = 'A' COLLATE UNICODE") == 0)
    }

    private func plan(_ steps: [String]) throws -> Plan {
        let items = steps.enumerated().map { #"{"version": \#($0.offset + 1), "name": "s\#($0.offset + 1)", "sql": \#(JSONValue.quoted($0.element))}"# }
        return try PlanDecoder.decode(Array(#"{"name": "t", "steps": [\#(items.joined(separator: ", "))]}"#.utf8))
    }

    /// The issue's rows: a backfill writes what the phone writes, and an index in LOCALIZED
    /// order is made on Android and refused elsewhere, as on the phones.
    @Test func aMigrationWritesWhatAnAndroidPhoneWrites() throws {
        let directory = TemporaryDirectory("android-sql")
        let plan = try plan([
            "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, k TEXT)", "UPDATE t SET k = lower(name)",
            "CREATE INDEX t_name ON t(name COLLATE LOCALIZED)",
        ])
        let create = "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, k TEXT); INSERT INTO t(name) VALUES ('ÄRGER'); PRAGMA user_version = 1;"

        let android = try FixtureDatabase.create(at: directory.file("android.db"), sql: create)
        let onAndroid = Migrator(plan: plan, settings: MigrationSettings(connection: Self.android))
        #expect(onAndroid.migrate(databaseAt: android, emit: { _ in }) == .reached(version: 3))
        #expect(try Connection(path: android).scalar("SELECT k FROM t").textValue == "ärger")

        let iPhone = try FixtureDatabase.create(at: directory.file("iphone.db"), sql: create)
        guard case .stopped(.failed, let failure) = Migrator(plan: plan, settings: MigrationSettings()).migrate(databaseAt: iPhone, emit: { _ in })
        else {
            Issue.record("an index in LOCALIZED order was made without Android's collations")
            return
        }
        #expect(failure.message.contains("no such collation sequence: LOCALIZED"), "\(failure.message)")
        #expect(try Connection(path: iPhone).scalar("SELECT k FROM t").textValue == "Ärger")
    }
}
