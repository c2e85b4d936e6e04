import CProcess
import Foundation
import Glibc
import MigrationCore

/// A child process whose standard output is read line by line, with a deadline after
/// which it is killed with SIGKILL, as a phone's watchdog kills an app.
///
/// Its standard input is a socket on which it waits for its go (`go()`, `StartSignal`): a
/// child started ahead of its turn has loaded its binary by then, so that its start is
/// not on the job's path (`WorkerLauncher.start`).
///
/// Built on `posix_spawn` and `poll` rather than `Foundation.Process`, so that the
/// kill happens at the deadline to the millisecond and no thread is left reading a
/// pipe of a process that is gone.
final class ChildProcess {
    let pid: pid_t
    private let output: Int32
    /// The parent's end of the child's standard input until the go is sent (-1 after).
    private var goInput: Int32
    /// Read but not yet handed out as lines.
    private var buffer: [UInt8] = []
    /// What each `read` fills, kept for the child's life (a read per event line).
    private var chunk = [UInt8](repeating: 0, count: 65536)
    /// The clock of its deadline and its line times: when it was spawned, moved at its go
    /// past the time it spent waiting for it.
    private(set) var startedAt: ContinuousClock.Instant
    /// `StartSignal.now()` when it was spawned.
    private var spawnedAt: UInt64 = 0

    /// How the child ended.
    enum Termination: Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    /// Starts `executable` with `arguments` and exactly `environment`; stderr is inherited.
    init(executable: String, arguments: [String], environment: [String: String]) throws {
        var pipeEnds: [Int32] = [0, 0]
        guard preflight_pipe_cloexec(&pipeEnds) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        // A socket rather than a pipe: `send` with MSG_NOSIGNAL tells of a child gone
        // with an error, where a pipe's write raises SIGPIPE, which ends a CLI run.
        var goEnds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &goEnds) == 0 else {
            let error = errno
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw POSIXError(.init(rawValue: error) ?? .EIO)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, goEnds[0], 0)
        // A process group of its own: a Ctrl-C at the terminal goes to the parent alone,
        // which decides what becomes of its workers (a run removes its job, a server
        // drains), instead of killing them behind its back.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        startedAt = ContinuousClock.now
        spawnedAt = StartSignal.now()
        let code = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        close(pipeEnds[1])
        close(goEnds[0])
        guard code == 0 else {
            close(pipeEnds[0])
            close(goEnds[1])
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        pid = child
        output = pipeEnds[0]
        goInput = goEnds[1]
    }

    deinit {
        close(output)
        if goInput >= 0 { close(goInput) }
    }

    /// Tells the child to begin. A child that said it was ready has its clock moved to
    /// now less its own start: the wait is not its time. One that is not ready yet has
    /// not waited, and keeps its clock from the spawn. A child that died already never
    /// reads the byte; its end shows in its output and its termination, as any death does.
    func go() {
        guard goInput >= 0 else { return }
        var ready: UInt64 = 0
        let received = recv(goInput, &ready, MemoryLayout<UInt64>.size, Int32(MSG_DONTWAIT))
        var byte: UInt8 = 1
        _ = send(goInput, &byte, 1, Int32(MSG_NOSIGNAL))
        close(goInput)
        goInput = -1
        if received == MemoryLayout<UInt64>.size, ready >= spawnedAt {
            startedAt = ContinuousClock.now - .nanoseconds(Int64(ready - spawnedAt))
        }
    }

    /// The next line of output; nil at end of output, or when `deadline` passed first
    /// (then `deadlineExpired` is true) or `shouldStop` said so.
    func readLine(deadline: ContinuousClock.Instant?, shouldStop: () -> Bool) -> (line: [UInt8]?, deadlineExpired: Bool) {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return (line, false)
            }
            if shouldStop() { return (nil, false) }
            // Poll in slices of at most 50 ms so that a cancellation is seen promptly.
            var timeout: Int32 = 50
            if let deadline {
                let left = deadline - ContinuousClock.now
                if left <= .zero { return (nil, true) }
                timeout = Int32(min(50, max(1, milliseconds(left))))
            }
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, timeout)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            let count = read(output, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                // End of output: hand out a last line without newline, if any.
                if buffer.isEmpty { return (nil, false) }
                defer { buffer.removeAll() }
                return (buffer, false)
            }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    func kill() {
        Glibc.kill(pid, SIGKILL)
    }

    /// Waits for the child to end and reaps it.
    func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }
}
