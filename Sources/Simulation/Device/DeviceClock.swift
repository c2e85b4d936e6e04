import Glibc
import MigrationCore

/// The phone's clock during one launch, in the migrating worker: it advances with the work
/// the migration does (`LaunchWork`, charged at the profile's `SpeedModel`), not with this
/// machine's time, so the same file and plan reach the same device time at the same point
/// of the work on every machine and under any load.
///
/// When the launch's device time (its start included) passes the watchdog's deadline, the
/// clock writes a `watchdog_deadline` line (`WatchdogDeadline`) and the process SIGKILLs
/// itself: a real kill, at that point of the work. It looks whenever SQLite reports a
/// stretch of instructions and after every read, write and sync of the shim VFS, so that
/// neither a long statement nor a run of flushes gets past the deadline.
final class DeviceClock {
    let model: SpeedModel
    /// The launch's budget in device milliseconds; nil for no watchdog.
    let watchdogMs: Int?
    /// What the migrator reports SQLite's work to.
    let work = LaunchWork()
    private var killing = false

    init(model: SpeedModel, watchdogMs: Int?) {
        self.model = model
        self.watchdogMs = watchdogMs
    }

    /// The launch's device time so far, without the app's start (`SpeedModel.startMs`).
    var now: DeviceTime { model.time(of: work.counts) }

    /// Starts the clock on this process's work.
    func start() {
        work.onWork = { [unowned self] in checkDeadline() }
        work.start()
    }

    /// Ends the process, as the watchdog would, once the launch is past its deadline.
    private func checkDeadline() {
        guard let watchdogMs, !killing else { return }
        let time = now
        guard model.startMs + time.totalMs >= Double(watchdogMs) else { return }
        killing = true
        EventWriter.write(WatchdogDeadline(device: time))
        raise(SIGKILL)
    }
}

/// The last line of a launch the device clock's watchdog ends: where the clock stood.
struct WatchdogDeadline: Codable, Equatable {
    var event = "watchdog_deadline"
    var device: DeviceTime
}
