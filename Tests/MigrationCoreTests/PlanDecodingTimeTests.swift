import Foundation
import Glibc
import Testing

@testable import MigrationCore

/// Decoding a plan (its statements split, each piece of SQL scanned) takes time in
/// proportion to its length. A plan ten times as long may take at most thirty times as
/// long (room for the machine's noise; quadratic code takes about a hundred times): the
/// ratio is measured within the test, so no absolute time is asserted.
@Suite(.serialized) struct PlanDecodingTimeTests {
    /// Text that a splitter calling `sqlite3_complete` at each `;` scans again and again.
    enum Shape: String, CaseIterable, Sendable {
        /// One statement with a string literal full of semicolons.
        case semicolonsInAString
        /// Semicolons in `--` and `/* */` comments between statements.
        case semicolonsInComments
        /// A trigger whose body holds statement after statement.
        case triggerBody

        /// The plan's one `sql` step, growing with `units`.
        func sql(_ units: Int) -> String {
            switch self {
            case .semicolonsInAString:
                return "INSERT INTO t(x) VALUES ('" + String(repeating: "a;", count: units) + "')"
            case .semicolonsInComments:
                return String(repeating: "-- a; b;\n/* c; d; */ ", count: units / 4) + "SELECT 1"
            case .triggerBody:
                return "CREATE TRIGGER tr AFTER INSERT ON t BEGIN "
                    + String(repeating: "UPDATE t SET x = ';' WHERE x = new.x; ", count: units / 16) + "END"
            }
        }
    }

    private func plan(_ shape: Shape, units: Int) throws -> [UInt8] {
        let document: [String: Any] = [
            "name": "long", "steps": [["version": 1, "name": "create", "sql": "CREATE TABLE t(x)"], ["version": 2, "name": "long", "sql": shape.sql(units)]],
        ]
        return [UInt8](try JSONSerialization.data(withJSONObject: document))
    }

    /// This thread's CPU time for one decode: unlike the wall clock, it does not count the
    /// time other processes of a loaded machine hold the cores.
    private func decodeTime(_ bytes: [UInt8]) throws -> Double {
        func now() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        let started = now()
        let plan = try PlanDecoder.decode(bytes)
        let took = now() - started
        #expect(plan.steps.count == 2)
        return took
    }

    @Test(arguments: Shape.allCases)
    func tenTimesTheTextTakesAboutTenTimesTheTime(_ shape: Shape) throws {
        // Enough text that the shorter plan takes some milliseconds even in a debug build.
        let units = shape == .semicolonsInAString ? 100_000 : 20_000
        let (shortPlan, longPlan) = (try plan(shape, units: units), try plan(shape, units: 10 * units))
        // The least of five each, taken in turns: the rest is the machine's noise.
        var short = Double.infinity, long = Double.infinity
        for _ in 0..<5 {
            short = min(short, try decodeTime(shortPlan))
            long = min(long, try decodeTime(longPlan))
        }
        let ratio = long / max(short, 1e-6)
        #expect(ratio <= 30, "\(shape): \(short) for \(units) units, \(long) for \(10 * units) units: \(ratio)x")
    }
}
