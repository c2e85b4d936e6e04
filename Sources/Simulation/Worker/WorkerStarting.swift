/// What starts `preflight worker` processes of its own (a capacity search, a matrix): made
/// from the worker executable, or to start the same workers as a job runner.
public protocol WorkerStarting {
    init(workerExecutable: String)
}

extension WorkerStarting {
    /// Starts the same workers as `runner`.
    public init(runner: JobRunner) {
        self.init(workerExecutable: runner.workerExecutable)
    }
}
