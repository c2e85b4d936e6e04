import Foundation
import Glibc
import MigrationCore

/// A program the benchmarks run to its end, as a user's shell runs it: spawned, waited for
/// with `waitpid`, and timed from the spawn to the exit.
///
/// Not `Foundation.Process`: on Linux its `waitUntilExit` wakes every 50 ms to look at the
/// child, so that `/bin/true` measured 51 ms through it (1 ms through this), and every
/// process on either side of a comparison gained up to 50 ms of nothing.
struct Program {
    var executable: String
    var arguments: [String]
    /// A file for its standard input (otherwise /dev/null).
    var input: String?
    /// Its standard output is read and answered (otherwise it goes to /dev/null).
    var capturesOutput = false
    /// Its standard error goes to /dev/null (otherwise it is this process's).
    var quiet = false
    /// Any exit status is an answer (otherwise only 0 is).
    var acceptsAnyExit = false

    struct Run {
        var output: Data
        var seconds: Double
    }

    init(_ executable: String, _ arguments: [String], input: String? = nil, capturesOutput: Bool = false, quiet: Bool = false) {
        self.executable = executable
        self.arguments = arguments
        self.input = input
        self.capturesOutput = capturesOutput
        self.quiet = quiet
    }

    /// Runs it; throws when it cannot be started or does not exit 0.
    func run() throws -> Run {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
        var pipeEnds: [Int32] = [-1, -1]
        if capturesOutput {
            guard pipe(&pipeEnds) == 0 else { throw BenchError("cannot make a pipe: \(String(cString: strerror(errno)))") }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
            posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if quiet { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let start = ContinuousClock.now
        let code = posix_spawn(&child, executable, &actions, nil, argv, environ)
        if capturesOutput { close(pipeEnds[1]) }
        guard code == 0 else {
            if capturesOutput { close(pipeEnds[0]) }
            throw BenchError("cannot start \(executable): \(String(cString: strerror(code)))")
        }
        var output = Data()
        if capturesOutput {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                output.append(contentsOf: chunk[..<count])
            }
            close(pipeEnds[0])
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        let elapsed = seconds(ContinuousClock.now - start)
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exitStatus == 0 || acceptsAnyExit else {
            throw BenchError("\(executable) \(arguments.joined(separator: " ")) exited \(exitStatus)")
        }
        return Run(output: output, seconds: elapsed)
    }
}
