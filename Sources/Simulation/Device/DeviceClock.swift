import CSpaceVFS
import Foundation
import Glibc
import MigrationCore

/// The phone's clock during one launch, in the migrating worker: it advances with the work
/// the migration does (`WorkCounts`, charged at the profile's `SpeedModel`), not with this
/// machine's time, so the same file and plan reach the same device time at the same point
/// of the work on every machine and under any load.
///
/// When the launch's device time (its start included) passes the watchdog's deadline, the
/// clock writes a `watchdog_deadline` line (`WatchdogDeadline`) and the process SIGKILLs itself: a real kill,
/// at that point of the work. It looks at the time whenever SQLite reports a stretch of
/// instructions (`WorkMeter`) and after every read, write and sync of the shim VFS, so
/// neither a long statement nor a run of flushes gets past the deadline.
final class DeviceClock: WorkMeter {
    let model: SpeedModel
    /// The launch's budget in device milliseconds; nil for no watchdog.
    let watchdogMs: Int?
    private var counters: [SQLiteWorkCounter] = []
    /// The shim's counts when the launch began: earlier launches' I/O is in the stats file too.
    private let ioAtStart: WorkCounts
    private var killing = false

    /// A clock for this process's launch; `start()` makes it the one the shim's I/O reports to.
    init(model: SpeedModel, watchdogMs: Int?) {
        self.model = model
        self.watchdogMs = watchdogMs
        ioAtStart = Self.io()
    }

    /// The launch's device time so far, without the app's start (`SpeedModel.startMs`).
    var now: DeviceTime { model.time(of: work) }

    /// The launch's work so far.
    var work: WorkCounts {
        var counts = Self.io() - ioAtStart
        for counter in counters { counts.sqlite = counts.sqlite + counter.total }
        return counts
    }

    /// Makes this the clock the shim VFS's I/O is charged to from now on.
    func start() {
        activeClock = self
        spacevfs_set_io_hook(deviceClockSawIO)
    }

    func counting(_ counter: SQLiteWorkCounter) { counters.append(counter) }

    func sqliteWorked() { checkDeadline() }

    /// Ends the process, as the watchdog would, once the launch is past its deadline.
    func checkDeadline() {
        guard let watchdogMs, !killing else { return }
        let time = now
        guard model.startMs + time.totalMs >= Double(watchdogMs) else { return }
        killing = true
        EventWriter.write(WatchdogDeadline(device: time))
        raise(SIGKILL)
    }

    /// The shim VFS's counts of this job so far (every launch's).
    private static func io() -> WorkCounts {
        var stats = spacevfs_stats()
        spacevfs_snapshot(&stats)
        func sum<T>(_ values: T, classes: [Int] = allClasses) -> Int64 {
            withUnsafeBytes(of: values) { raw in
                let perClass = raw.bindMemory(to: Int64.self)
                return classes.reduce(0) { $0 + perClass[$1] }
            }
        }
        var counts = WorkCounts()
        counts.reads = sum(stats.run.reads)
        counts.bytesRead = sum(stats.run.bytes_read)
        counts.writes = sum(stats.run.write_calls)
        counts.bytesWritten = sum(stats.run.bytes_written)
        counts.syncs = sum(stats.run.syncs, classes: durableClasses)
        return counts
    }

    private static let allClasses = Array(0..<Int(SPACEVFS_CLASS_COUNT))
    private static let durableClasses = [Int(SPACEVFS_CLASS_MAIN), Int(SPACEVFS_CLASS_JOURNAL), Int(SPACEVFS_CLASS_WAL)]
}

/// The last line of a launch the device clock's watchdog ends: where the clock stood.
struct WatchdogDeadline: Codable, Equatable {
    var event = "watchdog_deadline"
    var device: DeviceTime
}

/// The clock of this process's launch: a worker runs one launch, on one thread.
nonisolated(unsafe) private var activeClock: DeviceClock?

/// The shim VFS's hook (a plain C function): the I/O it just counted may have taken the
/// launch past its deadline.
private func deviceClockSawIO() { activeClock?.checkDeadline() }
