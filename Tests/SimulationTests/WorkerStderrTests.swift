import Testing
@testable import Simulation

/// A worker's stderr line names its job, and the relay reads the name back.
@Suite struct WorkerStderrTests {
    @Test func aLineNamesItsJobAndTheRelayReadsItBack() {
        let line = WorkerStderr.line("cannot confine file access: EPERM", jobID: "0f3a9c")
        #expect(line == "preflight worker (job 0f3a9c): cannot confine file access: EPERM")
        let read = WorkerStderr.job(of: line)
        #expect(read?.jobID == "0f3a9c")
        #expect(read?.message == "preflight worker: cannot confine file access: EPERM")
        // Outside a job, and any other line: no job.
        #expect(WorkerStderr.line("x", jobID: nil) == "preflight worker: x")
        #expect(WorkerStderr.job(of: "preflight worker: x") == nil)
        #expect(WorkerStderr.job(of: "warning: something else (job 1): y") == nil)
    }
}
