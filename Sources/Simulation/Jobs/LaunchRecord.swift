import Foundation
import Glibc
import MigrationCore

/// One simulated launch as the parent saw it: the worker's events, and how it ended.
struct LaunchRecord {
    let number: Int
    let events: [MigrationEvent]
    /// Milliseconds from process start to each event.
    let eventTimesMs: [Int]
    let run: WorkerLauncher.Run

    init(number: Int, run: WorkerLauncher.Run) {
        self.number = number
        self.run = run
        let decoder = JSONDecoder()
        var events: [MigrationEvent] = []
        var times: [Int] = []
        for (line, time) in zip(run.lines, run.lineTimesMs) {
            // The one line that is not an event is the last one of a killed worker, cut
            // short mid-write: what it would have said did not happen durably.
            guard let event = try? decoder.decode(MigrationEvent.self, from: Data(line)) else { continue }
            events.append(event)
            times.append(time)
        }
        self.events = events
        self.eventTimesMs = times
    }

    var opened: MigrationEvent? { events.first { $0.event == .opened } }
    var finished: MigrationEvent? { events.first { $0.event == .finished } }
    var stepFailure: MigrationEvent? { events.first { $0.event == .stepFailed } }

    /// Whether a commit that changes where the migration stands happened in this launch:
    /// a batch with its cursor, or a whole step. (Events are written after COMMIT, so a
    /// kill in the instant between the two can hide one batch; the next launch's
    /// `opened` event would show it.)
    var madeDurableProgress: Bool {
        events.contains { $0.event == .batchCommitted || $0.event == .stepFinished }
    }

    /// The version the database was at when this launch opened it.
    var fromVersion: Int? { opened?.userVersion }

    /// The version this launch left the database at.
    var reachedVersion: Int? {
        if let finished { return finished.userVersion }
        let applied = events.filter { $0.event == .stepFinished }.compactMap(\.version).max()
        return applied ?? fromVersion
    }

    /// Process start until the database was open: part of the watchdog budget.
    var startMs: Int? {
        guard let index = events.firstIndex(where: { $0.event == .opened }) else { return nil }
        return eventTimesMs[index]
    }

    /// Killed with no chance to clean up: by the watchdog, or by anything else that sends
    /// SIGKILL (a phone's low-memory killer; the tests' fault points).
    var wasKilled: Bool { run.killedByWatchdog || run.termination == .signaled(SIGKILL) }

    var ending: LaunchReport.Ending {
        if wasKilled { return .killed }
        if finished != nil { return .finished }
        return .failed
    }

    /// The step running when the launch ended without finishing it, if any.
    var cutStep: MigrationEvent? {
        guard let started = events.last(where: { $0.event == .stepStarted }), let version = started.version else {
            return nil
        }
        let settled = events.contains {
            ($0.event == .stepFinished || $0.event == .stepFailed) && $0.version == version
        }
        return settled ? nil : started
    }

    /// Time from the process start to the event at `index`.
    func timeMs(of event: MigrationEvent) -> Int? {
        guard let index = events.firstIndex(of: event) else { return nil }
        return eventTimesMs[index]
    }
}
