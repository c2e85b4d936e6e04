import Dispatch
import Foundation
import Glibc
import MigrationCore
import Simulation

/// Keeps every line of the server's stderr one JSON object, whoever writes it. The workers
/// inherit the server's fd 2 and write plain text there (`preflight worker: ...`), and so
/// do the runtime and a few start-up warnings; with the relay, fd 2 is a pipe, the log
/// writes to the real stderr (saved, close-on-exec, so workers never get it), and a thread
/// turns each line read from the pipe into a log line `{"level": "error", "msg": LINE,
/// "source": "stderr"}`, with the `job_id` a worker's line names (`WorkerStderr`):
/// whatever reaches stderr is something a person should see.
final class StderrRelay: Sendable {
    let log: RequestLog
    private let pipeOutput: Int32
    private let realStderr: Int32
    private let drained = DispatchSemaphore(value: 0)

    /// Moves fd 2 onto the relay's pipe and starts reading it; nil (and stderr left as it
    /// was) when a descriptor cannot be had, so that the server still starts and logs.
    init?(level: LogLevel) {
        let saved = fcntl(2, F_DUPFD_CLOEXEC, 3)
        var ends: [Int32] = [0, 0]
        guard saved >= 0 else { return nil }
        guard pipe(&ends) == 0 else {
            close(saved)
            return nil
        }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        guard dup2(ends[1], 2) == 2 else {
            close(saved)
            close(ends[0])
            close(ends[1])
            return nil
        }
        // fd 2 is now the pipe's input without close-on-exec (dup2 clears it): workers inherit it.
        close(ends[1])
        realStderr = saved
        pipeOutput = ends[0]
        log = RequestLog(level: level, descriptor: saved)
        let relay = self
        Thread.detachNewThread { relay.relayLines() }
    }

    /// Puts the real stderr back on fd 2 and waits (at most `timeout`) until every line
    /// written to the pipe is logged: the pipe ends once no worker holds it either.
    func finish(timeout: DispatchTimeInterval = .seconds(2)) {
        dup2(realStderr, 2)
        _ = drained.wait(timeout: .now() + timeout)
    }

    private func relayLines() {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipeOutput, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending.append(contentsOf: chunk[..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                relay(pending[..<newline])
                pending.removeSubrange(...newline)
            }
        }
        relay(pending[...])
        close(pipeOutput)
        drained.signal()
    }

    private func relay(_ bytes: ArraySlice<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return }
        if let (jobID, message) = WorkerStderr.job(of: text) {
            log.write(.error, message, [("source", .string("stderr")), ("job_id", .string(jobID))])
        } else {
            log.write(.error, text, [("source", .string("stderr"))])
        }
    }
}
