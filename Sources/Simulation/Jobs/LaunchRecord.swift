import Foundation
import Glibc
import MigrationCore

/// One simulated launch as the parent saw it: the worker's events, and how it ended.
struct LaunchRecord {
    let number: Int
    /// How the plan's framework commits, which says what the events prove durable.
    let runner: Runner
    let events: [MigrationEvent]
    /// Milliseconds from process start to each event.
    let eventTimesMs: [Int]
    let run: WorkerLauncher.Run
    /// Where the device clock stood when its watchdog ended the launch.
    let deadline: WatchdogDeadline?

    /// A launch's events, decoded as its worker writes them (`WorkerLauncher.run`'s
    /// `onLine`), while it runs, rather than all at once after it, on the job's path: a
    /// chunked rebuild writes one per batch.
    struct EventLog {
        fileprivate(set) var events: [MigrationEvent] = []
        fileprivate(set) var timesMs: [Int] = []
        /// The device clock's watchdog ended the launch here (its last line).
        fileprivate(set) var deadline: WatchdogDeadline?
        private let decoder = JSONDecoder()

        /// Adds `line`, read `atMs` after the process started, and answers its event; nil
        /// for a line that is not an event: the device clock's deadline, or the last line
        /// of a killed worker, cut short mid-write: what it would have said did not happen
        /// durably.
        mutating func add(_ line: [UInt8], atMs: Int) -> MigrationEvent? {
            guard let event = try? decoder.decode(MigrationEvent.self, from: Data(line)) else {
                deadline = try? decoder.decode(WatchdogDeadline.self, from: Data(line))
                return nil
            }
            events.append(event)
            timesMs.append(atMs)
            return event
        }
    }

    init(number: Int, runner: Runner, run: WorkerLauncher.Run, log: EventLog) {
        self.number = number
        self.runner = runner
        self.run = run
        self.events = log.events
        self.eventTimesMs = log.timesMs
        self.deadline = log.deadline
    }

    var opened: MigrationEvent? { events.first { $0.event == .opened } }
    var finished: MigrationEvent? { events.first { $0.event == .finished } }
    var stepFailure: MigrationEvent? { events.first { $0.event == .stepFailed } }
    /// Room's destructive fallback erased the file in this launch (in its transaction).
    var erasure: MigrationEvent? { events.first { $0.event == .databaseErased } }

    /// Which path the framework took on this launch: `created` when its create path ran
    /// (`onCreate`, `createAll`), `migrated` when its migrations did; nil for neither.
    var firstLaunchPath: FirstLaunch? {
        if events.contains(where: { $0.event == .createStarted }) { return .created }
        if events.contains(where: { $0.event == .stepStarted }) { return .migrated }
        return nil
    }

    /// Whether a commit that changes where the migration stands happened in this launch:
    /// a batch with its cursor, a step committed with its version (under a runner that
    /// commits each step), or the version recorded after the whole path. (Events are
    /// written after COMMIT, so a kill in the instant between the two can hide one; the
    /// database itself, read afterwards, shows it.)
    var committedProgress: Bool {
        events.contains { event in
            switch event.event {
            case .batchCommitted, .versionCommitted: return true
            case .stepFinished: return runner.commitsEachStep
            default: return false
            }
        }
    }

    /// Where the launch found the file; nil when it was cut before it opened it.
    var start: DurablePoint? { opened.flatMap(DurablePoint.init(opened:)) }

    /// The version the database was at when this launch opened it.
    var fromVersion: Int? { opened?.userVersion }

    /// The version this launch left the database at, as its own events show it; the next
    /// launch's opening (or the final read) says it for sure.
    var reachedVersion: Int? {
        if let finished { return finished.userVersion }
        if let recorded = events.last(where: { $0.event == .versionCommitted }) { return recorded.userVersion }
        guard runner.commitsEachStep else { return fromVersion }
        let applied = events.filter { $0.event == .stepFinished }.compactMap(\.version).max()
        return applied ?? fromVersion
    }

    /// Whether the kill cut work this launch had not committed, which the next open of the
    /// file rolls back: a step in progress; under a runner that commits the whole path at
    /// its end, every step since the path's transaction began; under autocommit, the
    /// statement (or batch) that was running, if one was.
    var cutUncommittedWork: Bool {
        guard wasKilled else { return false }
        if runner.commitsWholePath {
            return events.contains { $0.event == .stepStarted || $0.event == .createStarted }
                && !events.contains { $0.event == .versionCommitted }
        }
        guard let cut = cutStep else { return false }
        guard runner.autocommits, cut.stepKind == .sql else { return true }
        return events.last?.event == .statementStarted
    }

    /// The part of the migration the launch was in when it ended, as a person names it
    /// ("the purge of the old table"): for a killed launch, the work the kill cut; nil
    /// when it was between steps, or had not opened the file.
    var cutPhase: String? {
        guard start != nil else { return nil }
        var phase: String?
        for event in events {
            switch event.event {
            case .stepStarted:
                if runner.commitsWholePath {
                    phase = "the runner's transaction around the whole path"
                } else if event.stepKind == .sql {
                    phase = runner.autocommits ? "a statement of the step" : "the step's transaction"
                } else {
                    phase = "the step's start"
                }
            case .createStarted:
                phase = "the framework's creation of the schema (its onCreate), in one transaction"
            case .phaseStarted:
                phase = event.phase.map { ChunkPhase(rawValue: $0)?.name ?? $0 }
            case .stepFinished:
                if !runner.commitsWholePath { phase = nil }
            case .finished:
                phase = nil
            case .opened, .statementStarted, .batchCommitted, .versionCommitted, .stepFailed, .databaseErased:
                break
            }
        }
        return phase
    }

    /// The step whose work the launch was in when it ended: the step it was running, or
    /// the one whose purge it was finishing before any step.
    var cutStepVersion: Int? {
        if let version = cutStep?.version { return version }
        guard cutPhase != nil else { return nil }
        return events.last { $0.event == .phaseStarted }?.version
    }

    /// The furthest step this launch began.
    var furthestStep: Int? { events.filter { $0.event == .stepStarted }.compactMap(\.version).max() }

    /// Process start until the database was open: part of the watchdog budget.
    var startMs: Int? {
        guard let index = events.firstIndex(where: { $0.event == .opened }) else { return nil }
        return eventTimesMs[index]
    }

    /// Killed with no chance to clean up: by the watchdog, or by anything else that sends
    /// SIGKILL (a phone's low-memory killer; the tests' fault points).
    var wasKilled: Bool { run.killedByWatchdog || run.termination == .signaled(SIGKILL) }

    /// Killed by the watchdog: on the wall clock by the parent at the deadline, on the
    /// device clock by the worker itself, which said so in its last event.
    var killedByWatchdog: Bool { run.killedByWatchdog || (run.termination == .signaled(SIGKILL) && deadline != nil) }

    /// The device clock at the launch's end as far as its lines show: the deadline, or
    /// its last event. Nil on the wall clock.
    var deviceAtEnd: DeviceTime? { deadline?.device ?? events.last(where: { $0.device != nil })?.device }

    /// The launch's modelled device time, its start included; nil on the wall clock.
    func deviceMs(startMs: Double) -> Int? {
        deviceAtEnd.map { Int((startMs + $0.totalMs).rounded()) }
    }

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

extension ChunkPhase {
    /// What a person calls this part of a step, in a sentence: "killed in the swap".
    var name: String {
        switch self {
        case .create: return "the creation of the new table"
        case .copy: return "the copy into the new table"
        case .swap: return "the swap"
        case .purge: return "the purge of the old table"
        case .backfill: return "the backfill"
        }
    }

    /// The same as a progress line's label: "purge of the old table 200,000/1,000,000 rows".
    var label: String {
        switch self {
        case .create: return "creation of the new table"
        case .copy: return "copy"
        case .swap: return "swap"
        case .purge: return "purge of the old table"
        case .backfill: return "backfill"
        }
    }
}
