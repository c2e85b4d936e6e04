import CSQLite
import Foundation
import MigrationCore

/// `PRAGMA quick_check` of the input, run by the inspecting worker before the first launch
/// on the file as the app opens it (with its WAL): damage the device's file already had
/// ends the job `invalid_database` in SQLite's words, before a step could be blamed for it.
///
/// quick_check reads every page once and checks each B-tree's structure (O(N));
/// `integrity_check`, which also matches every index with its table (O(N log N)), stays
/// the verification's (`--verify full`). Neither looks at foreign keys.
///
/// Under `clock: device` the check's work is counted as a launch's is (`LaunchWork`: SQLite's
/// counts and the shim VFS's reads), and its time on the phone reported: what the same
/// check costs the device. It is not charged to launch 1: the frameworks do not run one.
struct InputCheck {
    /// SQLite's first problems, as quick_check lists them; empty when the file is sound.
    var problems: [String]
    /// This machine's milliseconds for the check.
    var elapsedMs: Int
    /// The check's time on the device (`clock: device`), nil on the wall clock.
    var device: DeviceTime?

    /// How many of SQLite's problems a report shows: enough to tell one damaged page from
    /// a file cut short, few enough to read.
    static let listed = 10

    /// Opens the file at `path` as the inspection does, through the shim VFS when `model`
    /// is given (the device clock counts its reads), its counters in `statsPath`.
    static func open(_ path: String, immutable: Bool, model: SpeedModel?, statsPath: String) throws(SQLiteError) -> Connection {
        guard model != nil else { return try Connection(path: path, immutable: immutable) }
        guard SpaceStats.create(path: statsPath, quotaBytes: nil) == 0 else {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "cannot create the check's stats file in the job directory")
        }
        let meter = try SpaceVFSMeter(statsPath: statsPath)
        return try Connection(path: path, vfs: meter.vfsName, immutable: immutable)
    }

    /// Runs quick_check on `connection` (opened by `open`). SQLite lists what it finds and
    /// may then stop with SQLITE_CORRUPT, which is added to the list; it throws what SQLite
    /// throws when it finds nothing to list first (a header that promises pages the file
    /// does not hold).
    static func run(_ connection: Connection, model: SpeedModel?) throws(SQLiteError) -> InputCheck {
        let work = model.map { _ in LaunchWork() }
        if let work { try connection.reportWork(to: work) }
        let started = ContinuousClock.now
        let problems = try connection.withoutCellSizeCheck { () throws(SQLiteError) in
            let statement = try connection.prepare("PRAGMA quick_check(\(listed))")
            var problems: [String] = []
            do throws(SQLiteError) {
                while try statement.step() {
                    // "ok", or problems, the first under a line that names the schema they are in.
                    let lines = (statement.column(0).textValue ?? "").split(separator: "\n").map(String.init)
                    problems += lines.filter { $0 != "ok" && !$0.hasPrefix("*** in database ") }
                }
            } catch where !problems.isEmpty {
                problems.append(error.message)
            }
            return problems
        }
        return InputCheck(
            problems: problems, elapsedMs: milliseconds(ContinuousClock.now - started),
            device: model.flatMap { model in work.map { model.time(of: $0.counts) } })
    }

    /// The failure's message for a damaged file: SQLite's problems (or its error), said as
    /// the upload's, before any step ran, and what the app's platform does with such a file
    /// (docs/FIDELITY.md, "Damaged input").
    static func damageMessage(_ found: String, runner: Runner) -> String {
        "the database is damaged, as uploaded (before any step ran): \(found). \(platformFate(runner))"
    }

    private static func platformFate(_ runner: Runner) -> String {
        switch runner {
        case .room, .sqliteOpenHelper:
            return "On the phone: once SQLite reports this damage to the app (opening the file, or a statement that reads a damaged page), Android's default DatabaseErrorHandler, and Room's, deletes the database file, and the user loses every row, unless the app installs a handler of its own"
        case .grdb:
            return "On the phone: GRDB throws SQLITE_CORRUPT to the app from the statement that meets the damage, and leaves the file as it is"
        case .perStep, .drift:
            return "On the phone: the statement that meets the damage fails with SQLITE_CORRUPT, whatever the migration does"
        }
    }
}
