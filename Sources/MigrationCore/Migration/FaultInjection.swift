import CSQLite
import Glibc

/// Test-only: end the process abruptly at a chosen point (SIGKILL to itself: no cleanup,
/// no rollback, the same death as the watchdog's), to prove that every point of a
/// migration survives being killed there.
public struct FaultInjection: Sendable, Equatable {
    public enum Point: String, Sendable, CaseIterable {
        /// After the new table of a rebuild was created and committed.
        case afterCreate = "after_create"
        /// After the last batch of a copy or backfill committed.
        case afterLastBatch = "after_last_batch"
        /// Inside the final swap transaction, before its COMMIT.
        case insideSwap = "inside_swap"
        /// Inside a step's transaction, before its COMMIT.
        case insideStep = "inside_step"
    }

    /// Exit after this many batches have committed (in this process).
    public var afterBatches: Int?
    public var point: Point?
    /// Raise SIGSEGV when the step with this version starts (a crashing SQLite, simulated).
    public var crashAtStep: Int?
    /// Test-only, in-process: instead of `_exit`, a chunked step (rebuild, backfill) that
    /// reaches the fault throws `FaultInjection.abandoned` at once and does no cleanup:
    /// whatever transaction is open stays open until the connection closes, which rolls it
    /// back exactly as journal recovery after a kill would. Set through `@testable import`;
    /// see `StepContext.stopIfFaulted(at:)`. Real kills are SIGKILL in a worker process.
    var abandons = false

    public init(afterBatches: Int? = nil, point: Point? = nil, crashAtStep: Int? = nil) {
        self.afterBatches = afterBatches
        self.point = point
        self.crashAtStep = crashAtStep
    }

    public static let none = FaultInjection()

    /// Parses "after_batches=3", "point=inside_swap", "crash_at_step=2", comma-separated.
    public init?(specification: String) {
        self.init()
        for item in specification.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            switch parts[0] {
            case "after_batches": guard let count = Int(parts[1]) else { return nil }; afterBatches = count
            case "point": guard let value = Point(rawValue: parts[1]) else { return nil }; point = value
            case "crash_at_step": guard let value = Int(parts[1]) else { return nil }; crashAtStep = value
            default: return nil
            }
        }
    }

    func reached(_ point: Point) {
        if self.point == point && !abandons { killSelf() }
    }

    func batchesCommitted(_ count: Int) {
        if let afterBatches, count >= afterBatches, !abandons { killSelf() }
    }

    /// What an abandoned step throws (see `abandons`); callers must let it through untouched.
    static let abandoned = SQLiteError(code: SQLITE_INTERRUPT, message: "abandoned by a test fault (a simulated kill)")

    func abandons(at point: Point) -> Bool { abandons && self.point == point }

    func abandons(afterBatches count: Int) -> Bool {
        guard abandons, let afterBatches else { return false }
        return count >= afterBatches
    }

    func stepStarting(_ version: Int) {
        // The default action, not a crash reporter's handler: SQLite crashing in C.
        if crashAtStep == version {
            signal(SIGSEGV, SIG_DFL)
            raise(SIGSEGV)
        }
    }

    /// Dies as the OS watchdog kills: SIGKILL, which cannot be caught or cleaned up after.
    private func killSelf() -> Never {
        kill(getpid(), SIGKILL)
        _exit(137)
    }
}
