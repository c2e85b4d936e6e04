import Foundation
import Glibc
import MigrationCore

/// Test-only: ends the worker process abruptly at a chosen checkpoint of the migration
/// (SIGKILL to itself: no cleanup, no rollback, the same death as the watchdog's), to
/// prove that every point of a migration survives being killed there; and the other
/// conditions a test forces in a launch (a crash, a hold, a real flush on the device
/// clock). Parsed from the worker's `PREFLIGHT_TEST_FAULT` environment variable.
final class FaultInjection: MigrationHooks {
    /// The checkpoints a specification can name with `point=`.
    enum Point: String, Sendable, CaseIterable {
        case afterCreate = "after_create"
        case afterLastBatch = "after_last_batch"
        case insideSwap = "inside_swap"
        case insideStep = "inside_step"
        case insidePurge = "inside_purge"

        var checkpoint: MigrationCheckpoint {
            switch self {
            case .afterCreate: return .afterCreate
            case .afterLastBatch: return .afterLastBatch
            case .insideSwap: return .insideSwap
            case .insideStep: return .insideStep
            case .insidePurge: return .insidePurge
            }
        }
    }

    /// Exit after this many batches have committed (in this process).
    var afterBatches: Int?
    /// Exit after this many transactions of a purge of a rebuild's old table have
    /// committed (in this process, the purge an earlier launch left included).
    var afterPurgeBatches: Int?
    private var purgeBatches = 0
    /// Exit as the next step starts once this many steps have started (in this process):
    /// a watchdog that allows that many steps per launch, at whatever version it begins.
    var afterSteps: Int?
    private var stepsStarted = 0
    var point: Point?
    /// Raise SIGSEGV when the step with this version starts (a crashing SQLite, simulated).
    var crashAtStep: Int?
    /// When a step starts, try to create this file (outside the job directory:
    /// what hostile SQL would do without the authorizer) and say on stderr how that went,
    /// to prove the worker's file sandbox (`WorkerSandbox.confineFiles`).
    var createFile: String?
    /// Hold when this step starts, until the test releases the job (`StepHold`).
    var hold: StepHold?
    /// The worker's job directory, where a hold is said and released.
    var jobDirectory = "."
    /// Pass every sync on to the OS on the device clock too, where a launch only counts
    /// them: to show that the prediction is the same either way.
    var passesFlushesOn = false
    /// A `synthesize` worker holds as it starts, before it makes anything (`StepHold`, in
    /// its job directory): a synthesis surely under way while a test acts.
    var holdsSynthesis = false
    /// The process that stores a synthesized file in the `SynthesisCache` holds once the
    /// file is copied into the entry's temporary place, before the entry is complete
    /// (`StepHold`, in that place): a store a test can kill half done.
    var holdsCacheStore = false

    /// Parses "after_batches=3", "after_purge_batches=2", "after_steps=2",
    /// "point=inside_swap", "crash_at_step=2", "create_file=/tmp/x", "hold_at_step=3",
    /// "os_flush=on", "hold_synthesis=on", "hold_cache_store=on", comma-separated.
    init?(specification: String) {
        for item in specification.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            switch parts[0] {
            case "after_batches": guard let count = Int(parts[1]) else { return nil }; afterBatches = count
            case "after_purge_batches": guard let count = Int(parts[1]) else { return nil }; afterPurgeBatches = count
            case "after_steps": guard let count = Int(parts[1]) else { return nil }; afterSteps = count
            case "point": guard let value = Point(rawValue: parts[1]) else { return nil }; point = value
            case "crash_at_step": guard let value = Int(parts[1]) else { return nil }; crashAtStep = value
            case "create_file": createFile = parts[1]
            case "hold_at_step": guard let version = Int(parts[1]) else { return nil }; hold = StepHold(version: version)
            case "os_flush": guard parts[1] == "on" else { return nil }; passesFlushesOn = true
            case "hold_synthesis": guard parts[1] == "on" else { return nil }; holdsSynthesis = true
            case "hold_cache_store": guard parts[1] == "on" else { return nil }; holdsCacheStore = true
            default: return nil
            }
        }
    }

    /// This process's specification, whole (the holds of a synthesis and of a cache store,
    /// which no launch number limits); nil without one or when it does not parse.
    static var inEnvironment: FaultInjection? {
        ProcessInfo.processInfo.environment[Worker.faultVariable].flatMap { FaultInjection(specification: $0) }
    }

    /// The fault `specification` sets for launch `launch`, if any: `launch=K,` in front of
    /// it limits it to launch K, so that a test can kill launch 1 and let launch 2 recover.
    /// A specification that does not parse is an error, not "no fault": a test whose
    /// fault silently did nothing would pass without testing anything.
    static func forLaunch(_ launch: Int, in specification: String, jobDirectory: String) throws(InvalidSpecification)
        -> FaultInjection?
    {
        var parts = specification.split(separator: ",").map(String.init)
        if let index = parts.firstIndex(where: { $0.hasPrefix("launch=") }) {
            guard let only = Int(parts[index].dropFirst("launch=".count)) else { throw InvalidSpecification(specification) }
            guard only == launch else { return nil }
            parts.remove(at: index)
        }
        guard let faults = FaultInjection(specification: parts.joined(separator: ",")) else {
            throw InvalidSpecification(specification)
        }
        faults.jobDirectory = jobDirectory
        return faults
    }

    struct InvalidSpecification: Error, CustomStringConvertible {
        let specification: String
        init(_ specification: String) { self.specification = specification }
        var description: String { "\"\(specification)\" is not a fault specification (see FaultInjection)" }
    }

    func reached(_ checkpoint: MigrationCheckpoint) -> MigrationHookAnswer {
        switch checkpoint {
        case .stepStarting(let version):
            if let createFile { tryToCreate(createFile) }
            hold?.reached(step: version, jobDirectory: jobDirectory)
            // The default action, not a crash reporter's handler: SQLite crashing in C.
            if crashAtStep == version {
                signal(SIGSEGV, SIG_DFL)
                raise(SIGSEGV)
            }
            if let afterSteps, stepsStarted >= afterSteps { killSelf() }
            stepsStarted += 1
        case .batchesCommitted(let count):
            if let afterBatches, count >= afterBatches { killSelf() }
        case .purgeBatchCommitted:
            purgeBatches += 1
            if let afterPurgeBatches, purgeBatches >= afterPurgeBatches { killSelf() }
        default:
            if point?.checkpoint == checkpoint { killSelf() }
        }
        return .proceed
    }

    /// "created", or the errno that `open(O_CREAT)` failed with, on stderr.
    private func tryToCreate(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        let outcome = descriptor >= 0 ? "created" : "errno \(errno) (\(String(cString: strerror(errno))))"
        if descriptor >= 0 { close(descriptor) }
        WorkerStderr.say("test fault create_file \(path): \(outcome)")
    }

    /// Dies as the OS watchdog kills: SIGKILL, which cannot be caught or cleaned up after.
    private func killSelf() -> Never {
        kill(getpid(), SIGKILL)
        _exit(137)
    }
}
