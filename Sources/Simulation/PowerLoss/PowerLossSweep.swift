import Foundation
import MigrationCore

/// The power-loss sweep (docs/CONTRACT.md §2 `power_loss_sweep`): the run is replayed once more
/// with the shim VFS recording every operation on the database's files; from that log,
/// at each crash point (a sync, or a commit), the states a power cut can leave
/// (`CrashState`) are built as files, each opened by a fresh launch that recovers the hot
/// journal or the WAL as the phone would and resumes the migration, and compared with
/// the uninterrupted run.
///
/// A state fails when the file cannot be read or is damaged (`corruption`), when the
/// relaunched run ends short of its target (`relaunch_failed`) or differs from the
/// uninterrupted run (`data_lost`), or when it opened at a version below one the app had
/// committed before the cut (`version_rolled_back`: a step taken back, the file
/// consistent). States that leave the same disk are opened once.
extension SweepReplays {
    /// Opens the states `selection` names, reporting each to `record`: whether it is the
    /// first opened at its point, and its failure (nil: it survived).
    func powerLoss(
        _ selection: PowerLossSelection, durability: Durability,
        record: (_ firstAtPoint: Bool, _ failure: PowerLossSweepReport.StateFailure?) throws -> Void
    ) throws {
        let history = try recordedHistory(durability: durability)
        var chosen: [Int: [CrashState]] = [:]
        var points = 0
        var everyState: [(point: Int, state: CrashState)] = []
        history.forEachPoint { point in
            points = point.ordinal
            everyState += CrashState.states(at: point, durability: durability).map { (point.ordinal, $0) }
        }
        switch selection {
        case .replay(let point, let id):
            guard let state = CrashState(id: id), everyState.contains(where: { $0.point == point && $0.state == state }) else {
                let here = everyState.filter { $0.point == point }.map(\.state.id)
                throw PreparationError(
                    description: "power_loss_sweep \(point):\(id) names no state of this run: it has \(points) crash points"
                        + (here.isEmpty ? "" : ", and point \(point)'s states are \(here.joined(separator: ", "))"))
            }
            chosen[point] = [state]
        case .states(let states):
            for ordinal in states.points(outOf: everyState.count) {
                chosen[everyState[ordinal - 1].point, default: []].append(everyState[ordinal - 1].state)
            }
        }
        var opened: [String: OpenedState] = [:]
        try history.forEachPoint { point in
            guard let states = chosen[point.ordinal] else { return }
            var disks: Set<String> = []
            for state in states {
                let disk = point.disk(in: state, log: history.log)
                let hash = disk.sha256
                guard disks.insert(hash).inserted else { continue }
                let result = try opened[hash] ?? open(disk)
                opened[hash] = result
                try record(disks.count == 1, result.failure(at: point, state: state, target: run.target))
            }
        }
    }

    /// Replays the run on a fresh copy of the input with the operations recorded, and
    /// answers its disk's history.
    private func recordedHistory(durability: Durability) throws -> DiskHistory {
        let manager = FileManager.default
        for file in directory.work.all where manager.fileExists(atPath: file) { try manager.removeItem(atPath: file) }
        try run.job.input.copy(to: directory.work)
        let initial = try DiskImage.read(directory.work)
        if manager.fileExists(atPath: directory.operationLog) { try manager.removeItem(atPath: directory.operationLog) }
        let (replay, outcome) = try launch(with: .recordOperations, onFreshCopy: false)
        if let outcome {
            throw PreparationError(
                description: "the replay that records the run's writes ended \(outcome.rawValue) instead of reaching version \(run.target): \(replay.failure?.message ?? outcome.meaning)")
        }
        return DiskHistory(log: try OperationLog(path: directory.operationLog), initial: initial, durability: durability)
    }

    /// Puts `disk` in place of the work copy and runs the launches on it.
    private func open(_ disk: DiskImage) throws -> OpenedState {
        try disk.write(to: directory.work)
        let (replay, outcome) = try launch(with: nil, onFreshCopy: false)
        return OpenedState(
            foundVersion: replay.launches.first?.fromVersion, outcome: outcome,
            failure: replay.failure?.message ?? outcome?.meaning, end: try endState(of: replay), baseline: baseline)
    }
}

/// How the launches ended on one crash state's disk.
private struct OpenedState {
    /// The version the first launch found the file at; nil when it could not open it.
    var foundVersion: Int?
    /// Nil: at the target.
    var outcome: Outcome?
    var failure: String?
    /// Where the launches left the file; nil when the worker reading it crashed.
    var end: EndState?
    var baseline: EndState

    func failure(
        at point: DiskHistory.CrashPoint, state: CrashState, target: Int
    ) -> PowerLossSweepReport.StateFailure? {
        let cut = "a power cut here leaving \(state.id)"
        let (kind, message): (PowerLossSweepReport.Kind, String)
        if foundVersion == nil || end == nil || outcome == .invalidDatabase {
            (kind, message) = (.corruption, "\(cut), SQLite cannot read the file: \(failure ?? "the worker reading it crashed")")
        } else if let end, end.integrity != "ok" {
            (kind, message) = (.corruption, "\(cut), integrity_check then reports \(end.integrity)")
        } else if let outcome {
            (kind, message) = (
                .relaunchFailed, "\(cut), the relaunched run ended \(outcome.rawValue) instead of reaching version \(target): \(failure ?? outcome.meaning)")
        } else if let end, case let differences = end.differences(from: baseline), !differences.isEmpty {
            (kind, message) = (.dataLost, "\(cut), the relaunched run differs from the uninterrupted run: " + differences.joined(separator: "; "))
        } else if let found = foundVersion, found < point.committedVersion {
            (kind, message) = (
                .versionRolledBack,
                "\(cut), the file opened consistent at version \(found), though the app had committed version \(point.committedVersion): the relaunch applied the lost steps again")
        } else {
            return nil
        }
        return PowerLossSweepReport.StateFailure(
            point: point.ordinal, state: state.id, step: point.step(target: target), phase: point.phase, message: message,
            kind: kind)
    }
}

extension PowerLossSweepReport {
    /// Counts one opened state: survived (nil) or not.
    mutating func record(_ firstAtPoint: Bool, failure: StateFailure?) {
        if firstAtPoint { points += 1 }
        states += 1
        if let failure { failures.append(failure) } else { survived += 1 }
    }
}
