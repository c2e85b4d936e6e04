import CSQLite
import Foundation

/// The work SQLite did on one connection: what the device clock turns into a phone's time.
/// Counted by SQLite itself, so the same file and plan give the same counts on every
/// machine and under any load.
public struct SQLiteWork: Sendable, Equatable {
    /// Virtual-machine instructions run (`SQLITE_STMTSTATUS_VM_STEP`, summed over statements).
    public var vmSteps: Int64 = 0
    /// Page reads that went to the file (`SQLITE_DBSTATUS_CACHE_MISS`).
    public var cacheMisses: Int64 = 0
    /// Pages found in SQLite's page cache (`SQLITE_DBSTATUS_CACHE_HIT`): each level of a
    /// B-tree search below its root fetches one, and the search within that page goes with
    /// it, whose comparisons of `BINARY` texts take a fast path no collation's count sees.
    /// An index insert searches from the root for every row.
    public var cacheHits: Int64 = 0
    /// The instructions of statements that sorted (`CREATE INDEX`, an `ORDER BY` no index
    /// serves), each weighed by the base-2 log of their number: one instruction feeds a row
    /// to the sorter, whose comparisons grow as n log n and are no instructions of their own.
    public var sortWork: Int64 = 0
    /// Comparisons of two texts through a `NOCASE` or `RTRIM` collation (counted by
    /// `counted_collations.h`): an index on such a text sorts and is searched through a
    /// call per comparison, where a `BINARY` index compares records on a fast path.
    public var collations: Int64 = 0
    /// Statements prepared (`sqlite3_prepare_v2`): each parses its SQL and plans it against
    /// the schema, work no instruction of its own counts.
    public var statementsPrepared: Int64 = 0
    /// Runs of a prepared statement (a reset, the bindings, the first step's setup), however
    /// many rows each returns.
    public var statementsRun: Int64 = 0
    /// Transactions committed (`sqlite3_commit_hook`), an autocommit statement's included:
    /// each takes and drops the file's locks and writes its commit (a WAL frame and the
    /// `-shm`'s index, or a journal's header), whether or not a sync follows.
    public var transactions: Int64 = 0
    /// The instructions by kind (`OpcodeWork`), where the SQLite the connection runs on
    /// counts them (a device engine); nil on Debian's. Counted, not yet charged.
    public var opcodes: OpcodeWork?

    public init(
        vmSteps: Int64 = 0, cacheMisses: Int64 = 0, cacheHits: Int64 = 0, sortWork: Int64 = 0, collations: Int64 = 0,
        statementsPrepared: Int64 = 0, statementsRun: Int64 = 0, transactions: Int64 = 0, opcodes: OpcodeWork? = nil
    ) {
        self.vmSteps = vmSteps
        self.cacheMisses = cacheMisses
        self.cacheHits = cacheHits
        self.sortWork = sortWork
        self.collations = collations
        self.statementsPrepared = statementsPrepared
        self.statementsRun = statementsRun
        self.transactions = transactions
        self.opcodes = opcodes
    }

    public static func + (left: SQLiteWork, right: SQLiteWork) -> SQLiteWork {
        left.combined(with: right, by: +, +)
    }

    public static func - (left: SQLiteWork, right: SQLiteWork) -> SQLiteWork {
        left.combined(with: right, by: -, -)
    }

    /// Each count of this and `other` combined by `operation`; the opcode counts by
    /// `opcodeOperation` where either side has them, a missing side as none run.
    private func combined(
        with other: SQLiteWork, by operation: (Int64, Int64) -> Int64, _ opcodeOperation: (OpcodeWork, OpcodeWork) -> OpcodeWork
    ) -> SQLiteWork {
        SQLiteWork(
            vmSteps: operation(vmSteps, other.vmSteps), cacheMisses: operation(cacheMisses, other.cacheMisses),
            cacheHits: operation(cacheHits, other.cacheHits), sortWork: operation(sortWork, other.sortWork),
            collations: operation(collations, other.collations),
            statementsPrepared: operation(statementsPrepared, other.statementsPrepared),
            statementsRun: operation(statementsRun, other.statementsRun),
            transactions: operation(transactions, other.transactions),
            opcodes: opcodes == nil && other.opcodes == nil
                ? nil : opcodeOperation(opcodes ?? OpcodeWork(), other.opcodes ?? OpcodeWork()))
    }
}

/// Where the migrator reports the work SQLite does on the migrating connection, as it
/// reports space to its `SpaceMeter`. On a device nothing listens; in Preflight the device
/// clock turns the work into the phone's time. The core only counts: it never stops a
/// statement for the meter.
public protocol WorkMeter: AnyObject {
    /// The migrator opened a connection whose work `counter` counts from now on.
    func counting(_ counter: SQLiteWorkCounter)
    /// SQLite ran about `SQLiteWorkCounter.reportInterval` more instructions on a counted
    /// connection (SQLite's progress handler): the meter may read the counters now.
    func sqliteWorked()
    /// The migrator starts work of its own that the app does not do (the space estimate
    /// before a step), until `ownWorkEnded()`: none of it is the app's work.
    func ownWorkStarted()
    func ownWorkEnded()
}

/// Counts one connection's work: the instructions of its finalized statements plus those of
/// the statements it holds now, its page cache's hits and misses, its comparisons through
/// the counted collations, and its statements prepared and run and transactions committed.
///
/// SQLite adds a statement's instructions to `SQLITE_STMTSTATUS_VM_STEP` only when
/// `sqlite3_step` returns, so a statement still running (a `CREATE INDEX`, a recursive query
/// that never ends) would show none of its work. The progress handler's reports fill that
/// gap: each one counts `reportInterval` instructions in flight, until the statement's own
/// count settles them. The count is then exact again, and never ran ahead of SQLite's.
public final class SQLiteWorkCounter {
    /// How many instructions SQLite runs between two reports to the meter: small enough that
    /// the meter sees a deadline pass within a fraction of a batch, large enough that the
    /// reports cost nothing measurable.
    public static let reportInterval: Int32 = 1000

    private var handle: OpaquePointer?
    private let meter: WorkMeter
    /// The work of the statements already finalized.
    private var finished = SQLiteWork()
    /// The totals when the connection closed (the handle can no longer be asked).
    private var closedTotal: SQLiteWork?
    /// The statements' own counts when the progress handler last reported.
    private var settled = SQLiteWork()
    /// Instructions reported by the progress handler since then, which no statement's own
    /// count holds yet.
    private var inFlight: Int64 = 0
    /// Where the connection's counted collations count; it outlives the connection, which
    /// holds this counter.
    private let collations = UnsafeMutablePointer<preflight_collation_counts>.allocate(capacity: 1)
    /// Statements prepared and run, and transactions committed, on the connection.
    private var statementsPrepared: Int64 = 0
    private var statementsRun: Int64 = 0
    fileprivate var transactions: Int64 = 0
    /// The engine's opcode counts for the connection, where its SQLite counts them.
    private let opcodes: OpcodeCounter?

    init(handle: OpaquePointer, meter: WorkMeter) {
        self.handle = handle
        self.meter = meter
        collations.initialize(to: preflight_collation_counts(comparisons: 0))
        opcodes = OpcodeCounter(handle: handle)
    }

    deinit { collations.deallocate() }

    /// The connection's work so far.
    public var total: SQLiteWork {
        if let closedTotal { return closedTotal }
        guard let handle else { return SQLiteWork() }
        var work = settle()
        work.vmSteps += inFlight
        work.cacheMisses = Self.status(handle, SQLITE_DBSTATUS_CACHE_MISS)
        work.cacheHits = Self.status(handle, SQLITE_DBSTATUS_CACHE_HIT)
        work.collations = collations.pointee.comparisons
        work.statementsPrepared = statementsPrepared
        work.statementsRun = statementsRun
        work.transactions = transactions
        work.opcodes = opcodes?.work
        return work
    }

    /// The statements' own counts; once they have grown (a step returned, and its count holds
    /// what was in flight), the reports in flight are dropped.
    private func settle() -> SQLiteWork {
        guard let handle else { return settled }
        var work = finished
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            work = work + Self.work(of: current)
            statement = sqlite3_next_stmt(handle, current)
        }
        if work.vmSteps != settled.vmSteps {
            settled = work
            inFlight = 0
        }
        return work
    }

    /// A statement was prepared on the connection.
    func prepared() { statementsPrepared += 1 }

    /// A prepared statement starts a run.
    func running() { statementsRun += 1 }

    /// A statement of the connection is about to be finalized: its work stays counted.
    func finalizing(_ statement: OpaquePointer) {
        finished = finished + Self.work(of: statement)
    }

    /// One statement's instructions so far, and its sort work if it sorted.
    private static func work(of statement: OpaquePointer) -> SQLiteWork {
        let steps = Int64(sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_VM_STEP, 0))
        let sorted = sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_SORT, 0) > 0 && steps > 1
        return SQLiteWork(vmSteps: steps, sortWork: sorted ? Int64(Double(steps) * log2(Double(steps))) : 0)
    }

    /// The connection is closing: the totals are kept as they are now.
    func closing() {
        closedTotal = total
        opcodes?.stop()
        handle = nil
    }

    /// Replaces the connection's `NOCASE` and `RTRIM` with the counted ones (an SQLite
    /// result code).
    fileprivate func countCollations() -> Int32 {
        guard let handle else { return SQLITE_MISUSE }
        return preflight_count_collations(handle, collations)
    }

    func report() {
        _ = settle()
        inFlight += Int64(Self.reportInterval)
        meter.sqliteWorked()
    }

    private static func status(_ handle: OpaquePointer, _ operation: Int32) -> Int64 {
        var current: Int32 = 0
        var highwater: Int32 = 0
        sqlite3_db_status(handle, operation, &current, &highwater, 0)
        return Int64(current)
    }
}

/// SQLite's commit hook: counts the transaction and lets it commit (0).
private func countCommit(_ context: UnsafeMutableRawPointer?) -> Int32 {
    guard let context else { return 0 }
    Unmanaged<SQLiteWorkCounter>.fromOpaque(context).takeUnretainedValue().transactions += 1
    return 0
}

/// SQLite's progress handler: a plain C function, handed the counter unretained (the
/// connection holds it for as long as the handler is installed).
private func reportSQLiteWork(_ context: UnsafeMutableRawPointer?) -> Int32 {
    guard let context else { return 0 }
    Unmanaged<SQLiteWorkCounter>.fromOpaque(context).takeUnretainedValue().report()
    return 0
}

extension Connection {
    /// Counts this connection's work from now on and reports it to `meter` as it goes.
    /// While none of the connection's statements is running: SQLite refuses to replace a
    /// collation (the counted ones) during one.
    public func reportWork(to meter: WorkMeter) throws(SQLiteError) {
        let counter = SQLiteWorkCounter(handle: handle, meter: meter)
        try SQLiteError.check(counter.countCollations(), handle)
        workCounter = counter
        let context = Unmanaged.passUnretained(counter).toOpaque()
        sqlite3_progress_handler(handle, SQLiteWorkCounter.reportInterval, reportSQLiteWork, context)
        sqlite3_commit_hook(handle, countCommit, context)
        meter.counting(counter)
    }
}
