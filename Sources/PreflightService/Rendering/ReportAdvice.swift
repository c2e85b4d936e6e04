import MigrationCore
import Simulation

/// The one thing to do first, on the report page's banner: chosen from the outcome, the
/// kind of step that ended the run (one transaction, or chunked in batches; the runner's
/// whole path in one transaction) and what the launches did, naming the step, its batch
/// size and the launches it took. Times are labelled with their clock (`ReportClock`).
struct ReportAdvice {
    let report: Report

    init(_ report: Report) { self.report = report }

    /// The advice, one or two sentences.
    var line: String {
        switch report.outcome {
        case .completed: return completed
        case .completedAfterKills: return completedAfterKills
        case .watchdogKilled: return watchdogKilled
        case .crashLoop: return crashLoop
        case .refused: return refused
        case .diskFull: return diskFull
        case .failed:
            return "Fix \(failingStep.map(name) ?? "the failing step"): \(report.failure?.message ?? "see the failure below")."
        case .verificationFailed:
            return "Fix what verification found: \(report.failure?.message ?? "see the failure below")."
        case .dataErased:
            return "Add the missing migration: Room's destructive fallback erases every user's data on this version (\(report.failure?.message ?? "see the failure below"))."
        case .invalidDatabase:
            return "Upload an SQLite database file (with its -wal if it has one)."
        }
    }

    // MARK: - What the launches did

    private var clock: ReportClock { ReportClock(report.options) }
    private var runner: Runner { report.plan.runner }
    private var killedLaunches: [LaunchReport] { report.launches.filter { $0.ended == .killed } }

    /// The step each killed launch was in when the watchdog came, the last of them last:
    /// the launch's last step left `interrupted` (under a whole-path runner every step of
    /// the launch is, the one running at the kill last), else its last step, applied when
    /// the kill came in its clean-up (a rebuild's purge of the old table). A launch killed
    /// before any step began, or in a clean-up alone, names none.
    private var cutSteps: [StepReport] {
        killedLaunches.compactMap { launch in
            report.steps.last { $0.launch == launch.launch && $0.status == .interrupted }
                ?? report.steps.last { $0.launch == launch.launch }
        }
    }

    private var lastCut: StepReport? { cutSteps.last }

    /// The step a run that stopped on a step (failed, refused, disk full) stopped on.
    private var failingStep: StepReport? {
        guard let version = report.failure?.step else { return nil }
        return report.steps.last { $0.version == version && $0.status != .skipped }
            ?? report.steps.last { $0.version == version }
    }

    /// "crash" or "N crashes".
    private func crashes(_ count: Int) -> String { count == 1 ? "1 crash" : "\(count) crashes" }

    private func launchCount(_ count: Int) -> String { count == 1 ? "1 launch" : "\(count) launches" }

    /// "the watchdog (20.0 s device)", or "the watchdog" when the report has none.
    private var watchdog: String {
        clock.deadline.map { "the watchdog (\(clock.launches(ms: Int($0.rounded()))))" } ?? "the watchdog"
    }

    // MARK: - Naming the step

    /// `step v4 "parity"`.
    private func name(_ step: StepReport) -> String { "step v\(step.version) \"\(step.name)\"" }

    /// `step v4 "parity" (rebuild, 500 rows a batch)`, `step v2 "fill a" (sql, one transaction)`.
    private func described(_ step: StepReport) -> String {
        switch step.kind {
        case .rebuild, .backfill:
            return "\(name(step)) (\(step.kind.rawValue)\(step.batchRows.map { ", \($0) rows a batch" } ?? ", chunked"))"
        case .sql:
            return "\(name(step)) (sql, \(runner.autocommits ? "its statements committing one by one under runner drift" : "one transaction"))"
        }
    }

    /// The steps a whole-path runner runs in the killed launch's one transaction: every step
    /// from where the launch found the file to the target, "steps v2 to v5".
    private func path(of step: StepReport) -> String {
        let found = report.launches.first { $0.launch == step.launch }?.fromVersion ?? step.version - 1
        let (first, last) = (found + 1, report.plan.targetVersion)
        return first < last ? "steps v\(first) to v\(last)" : "step v\(step.version)"
    }

    /// Whether a chunked step's killed launch committed none of its batches: the rows done
    /// in committed batches stand where the launch before left them.
    private func committedNoBatch(_ step: StepReport) -> Bool {
        let before = report.steps.last { $0.version == step.version && ($0.launch ?? 0) < (step.launch ?? 0) }?.rows ?? 0
        return (step.rows ?? 0) <= before
    }

    // MARK: - The watchdog's outcomes

    private var completed: String {
        guard let launch = report.launches.first, let deadline = clock.deadline else {
            return "Nothing to do: it migrates in one launch."
        }
        return "Nothing to do: it migrates in one launch, in \(clock.launches(ms: Int(clock.length(of: launch)))); "
            + "the watchdog allows \(clock.launches(ms: Int(deadline.rounded())))."
    }

    private var completedAfterKills: String {
        let kills = killedLaunches.count
        guard let step = lastCut else {
            return "The watchdog killed \(launchCount(kills)) before a step began: users see \(crashes(kills)). "
                + "Make the app's start and the migration fit within \(watchdog)."
        }
        let launches = report.launches.count
        let finished = "launch \(launches) of \(launches)"
        if runner.commitsWholePath {
            return "Runner \(runner.rawValue) runs \(path(of: step)) in one transaction, which \(watchdog) cut and rolled "
                + "back whole before it was done in \(finished): users see \(crashes(kills)). Make the path's work fit within "
                + "the watchdog, or move the data work out of the migration into batches the app runs once it is open."
        }
        switch step.kind {
        case .rebuild, .backfill:
            return "\(capitalized(described(step))) resumed from its last batch after each kill and was done in "
                + "\(finished): users see \(crashes(kills)) before the app opens. Smaller batches run after the app "
                + "has opened, or an earlier start (in a release before the one that needs it), would avoid "
                + "\(kills == 1 ? "it" : "them")."
        case .sql:
            let cut = Set(cutSteps.map(\.version)).count
            let others = cut > 1 ? " (with \(cut - 1) other step\(cut == 2 ? "" : "s") cut before it)" : ""
            return "\(capitalized(described(step)))\(others) was cut by \(watchdog) and run again from its start, done in "
                + "\(finished): users see \(crashes(kills)). Split it into smaller steps or make it a chunked rebuild or "
                + "backfill, so that each launch keeps what it did."
        }
    }

    private var watchdogKilled: String {
        let launches = report.launches.count
        guard let step = lastCut else {
            return "All \(launchCount(launches)) were killed by \(watchdog): make each launch's work fit within it."
        }
        switch step.kind {
        case .rebuild, .backfill:
            return "\(capitalized(described(step))) was still unfinished after \(launchCount(launches)), each killed by "
                + "\(watchdog) after committing batches: users see \(crashes(launches)) or more before the app opens. "
                + "Start it earlier (in a release before the one that needs it) or run its batches after the app has opened."
        case .sql:
            return "Each of the \(launchCount(launches)) finished steps before \(watchdog) cut the next, and they ran "
                + "out at \(described(step)): users see \(crashes(launches)) or more. Split the long steps or make them "
                + "chunked rebuilds or backfills."
        }
    }

    private var crashLoop: String {
        guard let step = lastCut ?? failingStep else {
            return "No launch gets past \(watchdog): the app's start alone does not fit within it."
        }
        let launch = step.launch.map { "launch \($0)" } ?? "every launch"
        if runner.commitsWholePath {
            return "Runner \(runner.rawValue) runs \(path(of: step)) in one transaction, which \(watchdog) cuts in "
                + "every launch and rolls back whole: crash loop. Splitting the steps does not help under this runner: "
                + "make the path's work fit within the watchdog, or move the data work out of the migration into "
                + "batches the app runs once it is open."
        }
        if runner.autocommits, report.failure?.kind != Failure.Kind.watchdog {
            return "\(capitalized(described(step))) was killed in \(launch) with some of its statements committed, "
                + "and the next launch fails on them: crash loop. Make each of its statements safe to run twice "
                + "(IF NOT EXISTS, INSERT OR IGNORE), or make it a chunked rebuild or backfill."
        }
        switch step.kind {
        case .rebuild, .backfill:
            if committedNoBatch(step) {
                let smaller = step.batchRows.map { "smaller than \($0) rows" } ?? "smaller"
                return "\(capitalized(described(step))) committed no batch before \(watchdog) killed \(launch), and every "
                    + "launch would do the same: crash loop. It needs durable progress: make its batches \(smaller), so "
                    + "that each launch commits some."
            }
            return "\(capitalized(described(step))) finished its batches, but what follows them (a rebuild's swap "
                + "and index builds) does not fit within \(watchdog), and every launch repeats it: crash loop. It needs "
                + "durable progress: build the indexes in a step of their own."
        case .sql:
            return "\(capitalized(described(step))) takes longer than \(watchdog) allows, and every launch is killed "
                + "inside it and rolls it back: crash loop. It needs durable progress: make it a chunked rebuild or "
                + "backfill, or split it into steps that each fit."
        }
    }

    // MARK: - The other outcomes

    private var refused: String {
        let failure = report.failure
        switch failure?.kind {
        case Failure.Kind.insufficientSpace:
            let needed = failure?.neededBytes.map { ByteCount.text($0) } ?? "more space"
            let free = failure?.freeBytes.map { " (the device has \(ByteCount.text($0)))" } ?? ""
            let step = failingStep.map(name) ?? "the step"
            return "Needs \(needed) free\(free): free space first, or make \(step) need less."
        case Failure.Kind.futureVersion:
            return "The file is newer than the plan: this build cannot open it (downgrade); ship a plan that knows its version."
        case Failure.Kind.foreignApplicationID:
            return "The file belongs to another app (application_id): check which file was uploaded."
        default:
            return failure?.message ?? "See the failure below."
        }
    }

    private var diskFull: String {
        let step = failingStep.map(name) ?? "the step"
        // The step did not finish, so what it needs is only known to be more than it had.
        if let needed = report.failure?.neededBytes {
            return "Needs \(ByteCount.text(needed)) free: free space first, or make \(step) need less."
        }
        let had = report.space.freeBytes.map { "more than \(ByteCount.text($0))" } ?? "more space"
        return "Needs \(had) free: \(step) filled the disk. Free space first, or make it need less."
    }

    private func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}
