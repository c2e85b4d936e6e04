import MigrationCore

/// The report's `steps[]`, built from the events of every launch: one entry per launch
/// a step ran in, so that a step cut by a kill shows as `interrupted` in that launch
/// and as `applied` in the one that finished it. Under a runner that records the version
/// only after the whole path, a finished step is applied once that record committed; a
/// kill or a failure before it leaves the launch's steps `interrupted` (rolled back, or
/// under drift left half-applied at the old version).
struct StepLedger {
    private(set) var entries: [StepReport] = []
    /// Warnings the steps reported as they finished.
    private(set) var warnings: [Warning] = []

    mutating func record(_ launch: LaunchRecord, spaceAtEnd: SpaceStats?) {
        // Entries of steps that finished in this launch but wait for the path's commit.
        var awaitingCommit: [Int] = []
        // The launch's device time when each step began (`clock: device`).
        var deviceAtStart: [Int: DeviceTime] = [:]
        func deviceSpan(_ version: Int, until event: MigrationEvent) -> DeviceTime? {
            guard let start = deviceAtStart[version], let end = event.device else { return nil }
            return end - start
        }
        for event in launch.events {
            if event.event == .versionCommitted {
                for index in awaitingCommit { entries[index].status = .applied }
                awaitingCommit = []
            }
            guard let version = event.version else { continue }
            switch event.event {
            case .stepStarted:
                var entry = StepReport(
                    version: version, id: event.id, name: event.name ?? "", kind: event.stepKind ?? .sql,
                    status: .interrupted)
                entry.launch = launch.number
                entry.estimatedBytes = event.estimatedBytes
                entries.append(entry)
                deviceAtStart[version] = event.device
            case .batchCommitted:
                // The purge counts the old table's rows apart; the step's rows are its copy's.
                guard event.phase != ChunkPhase.purge.rawValue else { break }
                update(version, launch.number) { entry in
                    entry.rows = event.rows
                    entry.batches = event.batches
                }
            case .stepFinished:
                if !launch.runner.commitsEachStep,
                    let index = entries.lastIndex(where: { $0.version == version && $0.launch == launch.number })
                {
                    awaitingCommit.append(index)
                }
                update(version, launch.number) { entry in
                    entry.status = launch.runner.commitsEachStep ? .applied : .interrupted
                    entry.costClass = event.costClass
                    entry.elapsedMs = event.elapsedMs
                    entry.swapMs = event.swapMs
                    entry.rows = event.rows ?? entry.rows
                    entry.batches = event.batches ?? entry.batches
                    entry.estimatedBytes = event.estimatedBytes ?? entry.estimatedBytes
                    entry.peakMemoryBytes = event.peakMemoryBytes
                    entry.apply(event.space)
                    entry.apply(deviceSpan(version, until: event))
                }
                if let warning = event.warning {
                    warnings.append(Warning(code: "cleanup_pending", step: version, message: warning))
                }
            case .stepFailed:
                update(version, launch.number) { entry in
                    entry.status = event.stop == .refused ? .refused : .failed
                    // A check of the runner's own after the step (Room's) has no time of its own.
                    entry.elapsedMs = event.elapsedMs ?? entry.elapsedMs
                    entry.estimatedBytes = event.estimatedBytes ?? entry.estimatedBytes
                    entry.peakMemoryBytes = event.peakMemoryBytes
                    entry.apply(event.space)
                    entry.apply(deviceSpan(version, until: event))
                }
            case .opened, .finished, .versionCommitted, .statementStarted, .phaseStarted, .createStarted, .databaseErased:
                break
            }
        }
        // The step a kill (or a crash) cut: its time up to the end of the process, and
        // its space from the stats file, which outlives the process.
        if let cut = launch.cutStep, let version = cut.version, let startedAt = launch.timeMs(of: cut) {
            update(version, launch.number) { entry in
                // The low-memory killer's kill ends the run: the step failed (kind `memory`).
                entry.status = launch.run.memory?.killedAtBytes == nil ? .interrupted : .failed
                entry.peakMemoryBytes = launch.run.memory?.stepPeakBytes
                entry.elapsedMs = max(0, launch.run.elapsedMs - startedAt)
                if let stats = spaceAtEnd, stats.windowStep == version { entry.apply(stats.stepSpace) }
                if let start = deviceAtStart[version], let end = launch.deviceAtEnd { entry.apply(end - start) }
            }
        }
    }

    /// A step whose version bump committed is applied even when the launch was then cut in
    /// its clean-up (a rebuild purging the old table): the version says so.
    mutating func settle(reachedVersion: Int) {
        for version in Set(entries.map(\.version)) where version <= reachedVersion {
            guard !entries.contains(where: { $0.version == version && $0.status == .applied }),
                let last = entries.lastIndex(where: { $0.version == version && $0.status == .interrupted })
            else { continue }
            entries[last].status = .applied
        }
    }

    /// Adds the steps the run never reached because an earlier one stopped it: the rest of
    /// the plan's path from the last step reached.
    mutating func skipRemaining(plan: Plan, through target: Int) {
        guard let last = entries.map(\.version).max() else { return }
        for step in plan.migrationPath(from: last, to: target) ?? [] {
            entries.append(StepReport(
                version: step.version, id: step.id, name: step.name, kind: step.action.kind, status: .skipped))
        }
    }

    private mutating func update(_ version: Int, _ launch: Int, _ change: (inout StepReport) -> Void) {
        guard let index = entries.lastIndex(where: { $0.version == version && $0.launch == launch }) else { return }
        change(&entries[index])
    }
}

extension StepReport {
    mutating func apply(_ space: StepSpace?) {
        guard let space else { return }
        peakBytes = space.peakBytes
        peakGrowthBytes = space.peakGrowthBytes
        bytesWritten = space.bytesWritten
        syncs = space.syncs
    }

    mutating func apply(_ device: DeviceTime?) {
        guard let device else { return }
        self.device = device
        deviceMs = Int(device.totalMs.rounded())
    }
}
