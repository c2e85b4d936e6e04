import Glibc

/// Test-only (`PREFLIGHT_TEST_FAULT=hold_at_step=N`, `FaultInjection`): a worker that
/// reaches step N holds there, doing no work, until the test releases it. A test can then
/// act on a job that is surely still running (cancel it, stop the server, read its
/// progress) instead of counting on a slow plan to outlast its own checks.
///
/// The worker says it is held by creating `held` in its job directory, and goes on once
/// `release` exists there (the job directory is the one place a worker may write). The
/// specification comes from the worker's environment, which only whoever starts the
/// server or the command sets: nothing in an upload reaches it.
public struct StepHold: Sendable {
    /// Created by the worker once it holds.
    public static let heldFile = "held"
    /// Created by the test to let the worker go on; it stays, so that a later launch that
    /// reaches the step again goes straight on.
    public static let releaseFile = "release"
    /// How often a held worker looks for its release.
    static let pollMicroseconds: useconds_t = 10_000

    /// The step's version.
    let version: Int

    /// Holds when `step` is the held one and the job has not been released yet.
    func reached(step: Int, jobDirectory: String) {
        guard step == version else { return }
        Self.hold(in: jobDirectory)
    }

    /// Says it is held in `directory` and waits there for the release (at once when it is there).
    static func hold(in directory: String) {
        let release = directory + "/" + releaseFile
        guard access(release, F_OK) != 0 else { return }
        let descriptor = open(directory + "/" + heldFile, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
        while access(release, F_OK) != 0 { usleep(pollMicroseconds) }
    }
}
