import Foundation
import Simulation

/// A program a test runs: the one way the tests spawn a process (`preflight` itself, curl,
/// sqlite3, chromium, the validators, `launch-gate`). Its standard output and error go to
/// files of its own, so that no pipe left unread fills up and blocks it, and they can be
/// read while it runs; a test that wants exactly that block (to stop a program at its next
/// line of output) gives a pipe of its own for standard output. A process still running
/// when its value goes away is killed.
public final class TestProcess: @unchecked Sendable {
    /// How a process ended, and what it said.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: Data
        public var stderr: String

        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }

        /// The report printed on stdout, as the `Report` it was encoded from; throws
        /// `NoReport` (with the exit status and stderr) when stdout is not one (another
        /// format, or no report at all).
        public var decodedReport: Report {
            get throws {
                do {
                    return try JSONDecoder().decode(Report.self, from: stdout)
                } catch {
                    throw NoReport(status: status, stderr: stderr, reason: "\(error)")
                }
            }
        }
    }

    /// A run whose stdout is not a report, and what the process said instead.
    public struct NoReport: Error, CustomStringConvertible {
        public var status: Int32
        public var stderr: String
        public var reason: String

        public var description: String { "no report on stdout (exit status \(status), \(reason)); stderr: \(stderr)" }
    }

    /// A process that had not ended within the time a test allowed it, killed.
    public struct Hung: Error, CustomStringConvertible {
        public var command: [String]
        public var stderr: String

        public var description: String { "\(command.joined(separator: " ")) had not ended in time and was killed; stderr: \(stderr)" }
    }

    public let process = Process()
    private let command: [String]
    private let files = TemporaryDirectory("process")
    private var stdoutPath: String { files.file("stdout") }
    private var stderrPath: String { files.file("stderr") }

    /// Starts `executable` with `arguments`, in this process's environment with
    /// `environment` added (or in `environment` alone when `inherits` is false), the
    /// synthesis cache off unless `environment` or the arguments name it (a test sees the
    /// synthesis it asked for, never a file another test or another build left), in
    /// `workingDirectory` (the repository's root by default), with `input` on its standard
    /// input (none by default). With `mergingErrors` its standard error goes to its standard
    /// output, interleaved as it wrote them (for tools whose message may be on either). With
    /// `output` its standard output goes into that pipe, for the test to read (`stdout` is
    /// then empty).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], inherits: Bool = true,
        workingDirectory: String = Repository.root, input: Data? = nil, mergingErrors: Bool = false, output: Pipe? = nil
    ) throws {
        command = [executable] + arguments
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
        process.environment = (inherits ? ProcessInfo.processInfo.environment : [:])
            .merging(["PREFLIGHT_SYNTHESIS_CACHE_BYTES": "0"]) { $1 }.merging(environment) { $1 }
        for path in [stdoutPath, stderrPath] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let stdoutFile = FileHandle(forWritingAtPath: stdoutPath)
        // Foundation closes this process's end of a pipe it hands the child, so the test
        // sees the pipe end with the child.
        let standardOutput: Any? = if let output { output } else { stdoutFile }
        process.standardOutput = standardOutput
        process.standardError = mergingErrors ? standardOutput : FileHandle(forWritingAtPath: stderrPath)
        if let input {
            let inputPath = files.file("stdin")
            try input.write(to: URL(fileURLWithPath: inputPath))
            process.standardInput = FileHandle(forReadingAtPath: inputPath)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
    }

    /// `preflight arguments...`, the binary `swift build` made.
    public static func preflight(
        _ arguments: [String], environment: [String: String] = [:], workingDirectory: String = Repository.root
    ) throws -> TestProcess {
        try TestProcess(PreflightProcess.executable, arguments, environment: environment, workingDirectory: workingDirectory)
    }

    /// Runs a program to its end (at most `seconds`: see `wait`).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], inherits: Bool = true,
        workingDirectory: String = Repository.root, input: Data? = nil, mergingErrors: Bool = false,
        within seconds: Double = 600
    ) throws -> Result {
        try TestProcess(
            executable, arguments, environment: environment, inherits: inherits, workingDirectory: workingDirectory, input: input,
            mergingErrors: mergingErrors
        ).wait(within: seconds)
    }

    deinit { stop(signal: SIGKILL) }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    /// What it wrote so far.
    public var stdout: Data { FileManager.default.contents(atPath: stdoutPath) ?? Data() }
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderr: String { String(decoding: FileManager.default.contents(atPath: stderrPath) ?? Data(), as: UTF8.self) }

    /// Waits for the end; throws `Hung` (having killed it) when it has not ended after
    /// `seconds`, a bound far beyond what any test needs, so that a hang fails the test
    /// instead of the whole run.
    public func wait(within seconds: Double = 600) throws -> Result {
        guard eventually(within: seconds, { !process.isRunning }) else {
            stop(signal: SIGKILL)
            throw Hung(command: command, stderr: stderr)
        }
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    /// Sends `signal` and waits (at most `seconds`) for the exit; answers the exit status
    /// (128 + the signal for one that killed it), or nil when it had to be SIGKILLed.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, within seconds: Double = 60) -> Int32? {
        guard process.isRunning else { return status }
        kill(pid, signal)
        if !eventually(within: seconds, { !process.isRunning }) {
            kill(pid, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        process.waitUntilExit()
        return status
    }

    private var status: Int32 {
        process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }
}
