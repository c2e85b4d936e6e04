import Foundation

/// Work started on a thread of its own the moment this is made, whose result is waited
/// for later, once. The runner's: the work copy,
/// made while a worker reads the upload, and the upload's hash and WAL check, made while
/// the launches run.
final class BackgroundTask<Success: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    // Written once by the working thread before `done` is signalled, read only after it.
    private var result: Result<Success, any Error> = .failure(Unfinished())

    private struct Unfinished: Error {}

    init(_ work: @escaping @Sendable () throws -> Success) {
        Thread.detachNewThread { [self] in
            result = Result { try work() }
            done.signal()
        }
    }

    /// What the work answered or threw, once it is done. Call it once.
    func wait() -> Result<Success, any Error> {
        done.wait()
        return result
    }
}
