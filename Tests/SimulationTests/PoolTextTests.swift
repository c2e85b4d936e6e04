import MigrationCore
@testable import Simulation
import Testing
import TestSupport

/// `preflight_pool_text` against the SQL it replaced in the synthesizer, run by SQLite
/// itself: two `substr`s of the pool, concatenated and cast to text. The same bytes and the
/// same type for every draw and length, so a synthesized file does not change with it.
@Suite("synthesis: the pool's text function")
struct PoolTextTests {
    private let directory = TemporaryDirectory("pool-text")

    /// The text cut for `draw` as the synthesizer's SQL cut it before the function.
    private static func reference(draw: String, lengths: ClosedRange<Int>) -> String {
        let window = ValueExpression.poolWindow
        let length = lengths.count == 1 ? "\(lengths.lowerBound)" : "(\(lengths.lowerBound) + \(draw) / 7 % \(lengths.count))"
        let first = "(\(length) / 2)"
        return "CAST(substr(?1, 1 + \(draw) % \(window), \(first)) || substr(?1, 1 + \(draw) / \(window) % \(window), \(length) - \(first)) AS TEXT)"
    }

    private func connection() throws -> Connection {
        let connection = try Connection(path: directory.file("pool.db"), create: true)
        try PoolText.define(on: connection)
        return connection
    }

    /// Draws from the stream's whole range and a distinct key's (row * 7919), lengths of one
    /// value, of none, and ranges; the short pool also cuts pieces at its end, as `substr` does.
    @Test(arguments: [ValueExpression.poolWindow + 40, ValueExpression.poolWindow / 2])
    func theFunctionMakesTheBytesTheSQLMade(poolLength: Int) throws {
        let connection = try connection()
        let pool = SQLiteValue.blob(ValueExpression.pool(length: poolLength))
        let draws: [Int64] = [0, 1, 6, 7, 4095, 4096, 4097, 16_777_215, 16_777_216, 2_147_483_646, 1_234_567, 7919 * 90_000_001]
        for lengths in [0...0, 5...5, 4...32, 0...40, 1...2] {
            for draw in draws {
                let made = try connection.rows(
                    "SELECT typeof(t), hex(t) FROM (SELECT \(PoolText.call(draw: "\(draw)", lengths: lengths)) AS t)", [pool])
                let expected = try connection.rows(
                    "SELECT typeof(t), hex(t) FROM (SELECT \(Self.reference(draw: "\(draw)", lengths: lengths)) AS t)", [pool])
                #expect(made == expected, "draw \(draw), lengths \(lengths), pool of \(poolLength) bytes")
            }
        }
    }

    @Test func aDrawOutsideTheStreamIsAnError() throws {
        let connection = try connection()
        let pool = SQLiteValue.blob(ValueExpression.pool(length: 64))
        #expect(throws: SQLiteError.self) { try connection.rows("SELECT \(PoolText.call(draw: "-1", lengths: 4...8))", [pool]) }
    }

    /// Direct-only: a plan's trigger (plan SQL, which the fill's inserts fire) cannot call it.
    @Test func aTriggerCannotCallIt() throws {
        let connection = try connection()
        try connection.execute(
            """
            CREATE TABLE t(x); CREATE TABLE log(y);
            CREATE TRIGGER t_logged AFTER INSERT ON t BEGIN INSERT INTO log VALUES (preflight_pool_text(x'61626364', 0, 2, 1)); END;
            """)
        #expect(throws: SQLiteError.self) { try connection.execute("INSERT INTO t VALUES (1)") }
        #expect(try connection.integer("SELECT count(*) FROM log") == 0)
    }
}
