import Foundation
import Testing
import TestSupport
@testable import MigrationCore

/// The functions of a newer SQLite that Preflight defines where the linked one lacks them,
/// call for call against SQLite 3.44.2: every expected value below is what that release
/// answered to the same call (run through apsw 3.44.2.0, which embeds it; docs/FIDELITY.md).
@Suite("Functions of a newer SQLite")
struct DeviceFunctionTests {
    private static let device344 = SQLiteVersion(3, 44, 0)

    private func connection(device: SQLiteVersion = device344) throws -> Connection {
        let connection = try Connection(path: ":memory:")
        try connection.defineNewerFunctions(for: device)
        return connection
    }

    @Test(arguments: [
        ("hex(unhex('0123456789ABCDEF'))", "0123456789ABCDEF"), ("hex(unhex('abcdef'))", "ABCDEF"),
        ("typeof(unhex(''))", "blob"), ("length(unhex(''))", "0"),
        ("unhex('ABC') IS NULL", "1"), ("unhex('hello') IS NULL", "1"), ("unhex('123456x7') IS NULL", "1"),
        ("unhex('0xff') IS NULL", "1"), ("hex(unhex('12 34', ' '))", "1234"), ("unhex('1 234', ' ') IS NULL", "1"),
        ("hex(unhex('12-34:56', '-:'))", "123456"), ("hex(unhex('12é34', 'é'))", "1234"), ("unhex(NULL) IS NULL", "1"),
        ("unhex('12', NULL) IS NULL", "1"), ("hex(unhex(1234))", "1234"), ("hex(unhex(' 12 ', ' '))", "12"),
        ("octet_length('Hello')", "5"), ("octet_length('你好')", "6"), ("octet_length(NULL) IS NULL", "1"),
        ("octet_length(x'0001ff')", "3"), ("octet_length(12345)", "5"), ("octet_length(1.5)", "3"), ("octet_length('')", "0"),
        ("concat('a', NULL, 'b', 3, 1.5)", "ab31.5"), ("concat(NULL)", ""), ("typeof(concat(NULL, NULL))", "text"),
        ("concat('', 'x', '')", "x"), ("concat(x'6869', 'a')", "hia"),
        ("concat_ws(',', 'a', NULL, 'b')", "a,b"), ("concat_ws(',', 'a', '', 'b')", "a,b"), ("concat_ws(',', '', 'a')", "a"),
        ("concat_ws(NULL, 'a', 'b') IS NULL", "1"), ("concat_ws(',', NULL, NULL)", ""), ("typeof(concat_ws(',', NULL))", "text"),
        ("concat_ws('--', 1, 2.5, x'41')", "1--2.5--A"), ("concat_ws('', 'a', 'b')", "ab"),
    ])
    func aScalarAnswersAsSQLite344Does(call: String, expected: String) throws {
        let value = try connection().scalar("SELECT \(call)")
        #expect(value.textValue ?? value.integerValue.map(String.init) == expected, "\(call)")
    }

    @Test(arguments: [
        ("string_agg(v, ',')", "SELECT 'a' AS v UNION ALL SELECT NULL UNION ALL SELECT 'b' UNION ALL SELECT 'c'", "a,b,c"),
        ("string_agg(v, s)", "SELECT 'a' AS v, '-' AS s UNION ALL SELECT 'b', '+' UNION ALL SELECT 'c', NULL UNION ALL SELECT 'd', ':'", "a+bc:d"),
        ("quote(string_agg(v, ','))", "SELECT NULL AS v UNION ALL SELECT NULL", "NULL"),
        ("quote(string_agg(v, ','))", "SELECT '' AS v", "''"),
        ("string_agg(v, ',')", "SELECT '' AS v UNION ALL SELECT 'a' UNION ALL SELECT ''", ",a,"),
        ("string_agg(v, ',')", "SELECT 1 AS v UNION ALL SELECT 2.5 UNION ALL SELECT x'41'", "1,2.5,A"),
        ("quote(string_agg(v, ','))", "SELECT 1 AS v WHERE 0", "NULL"),
    ])
    func stringAggAnswersAsSQLite344Does(call: String, rows: String, expected: String) throws {
        #expect(try connection().scalar("SELECT \(call) FROM (\(rows))").textValue == expected, "\(call) over \(rows)")
    }

    @Test(arguments: [
        ("SELECT concat()", "wrong number of arguments to function concat()"),
        ("SELECT concat_ws(',')", "wrong number of arguments to function concat_ws()"),
        ("SELECT string_agg('a')", "wrong number of arguments to function string_agg()"),
        ("SELECT unhex()", "wrong number of arguments to function unhex()"),
    ])
    func aWrongArgumentCountFailsWithSQLitesMessage(sql: String, message: String) throws {
        let connection = try connection()
        #expect(throws: SQLiteError.self) { try connection.scalar(sql) }
        do { _ = try connection.scalar(sql) } catch { #expect(error.message.contains(message), "\(error.message)") }
    }

    /// Only what the device has: on a device older than the function, it stays missing.
    @Test func aDeviceOlderThanAFunctionDoesNotGetIt() throws {
        let connection = try connection(device: SQLiteVersion(3, 43, 0))
        #expect(try connection.scalar("SELECT octet_length('ab')").integerValue == 2)
        do {
            _ = try connection.scalar("SELECT concat('a', 'b')")
            Issue.record("concat() ran for a device on SQLite 3.43")
        } catch {
            #expect(error.message.contains("no such function: concat"))
        }
    }

    private func plan(_ sql: String) throws -> Plan {
        let create = #"{"version": 1, "name": "create", "sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT)"}"#
        return try PlanDecoder.decode(Array(#"{"name": "t", "steps": [\#(create), {"version": 2, "name": "fill", "sql": \#(JSONValue.quoted(sql))}]}"#.utf8))
    }

    /// Why `plan` stopped on the file at `path`; nil when it reached its target.
    private func failure(of plan: Plan, _ settings: MigrationSettings, at path: String) -> Failure? {
        guard case .stopped(.failed, let failure) = Migrator(plan: plan, settings: settings).migrate(databaseAt: path, emit: { _ in })
        else { return nil }
        return failure
    }

    /// A step that uses a function Preflight provides runs; one that uses a feature of the
    /// device's SQLite that Preflight's engine lacks fails as no prediction, not as SQLite's
    /// "no such function", which the device never answers.
    @Test(.enabled(if: LinkedSQLite.version < SQLiteVersion(3, 43, 0), "timediff() must be beyond the linked SQLite"))
    func aStepBeyondTheEngineIsNoPrediction() throws {
        let directory = TemporaryDirectory("device-functions")
        let create = "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT); INSERT INTO t(a) VALUES ('4142'); PRAGMA user_version = 1;"
        let settings = MigrationSettings(sqliteVersion: Self.device344)

        let provided = try FixtureDatabase.create(at: directory.file("provided.db"), sql: create)
        let fill = try plan("UPDATE t SET b = concat_ws('-', a, hex(unhex(a)))")
        #expect(Migrator(plan: fill, settings: settings).migrate(databaseAt: provided, emit: { _ in }) == .reached(version: 2))
        #expect(try Connection(path: provided).scalar("SELECT b FROM t").textValue == "4142-4142")

        let beyond = try FixtureDatabase.create(at: directory.file("beyond.db"), sql: create)
        let diff = try plan("UPDATE t SET b = timediff('2023-06-01', '2023-01-01')")
        let beyondEngine = try #require(failure(of: diff, settings, at: beyond), "a step using timediff() ran")
        #expect(beyondEngine.kind.rawValue == "engine_lacks_feature")
        #expect(
            beyondEngine.message.contains("timediff()") && beyondEngine.message.contains("3.44")
                && beyondEngine.message.contains(LinkedSQLite.version.description))
        #expect(try FixtureDatabase.userVersion(at: beyond) == 1)

        let window = try plan("UPDATE t SET b = (SELECT string_agg(a, ',') OVER () FROM t)")
        #expect(failure(of: window, settings, at: beyond)?.kind.rawValue == "engine_lacks_feature")

        let older = MigrationSettings(sqliteVersion: SQLiteVersion(3, 39, 0))
        #expect(failure(of: diff, older, at: beyond)?.kind.rawValue == "sqlite_too_old")
    }
}
