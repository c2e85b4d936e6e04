import Foundation
import Simulation

/// Runs the real `preflight` binary, as users do.
public enum PreflightProcess {
    /// The binary `swift build` made, beside the test bundle.
    public static var executable: String { builtProduct("preflight") }

    /// The executable `name` (`preflight`, `launch-gate`) that `swift build` made, beside
    /// the test bundle.
    public static func builtProduct(_ name: String) -> String {
        let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
        // The bundle may sit inside `X.xctest/` on some layouts.
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent(name).path
    }

    public struct Result: Sendable {
        public var status: Int32
        public var stdout: Data
        public var stderr: String

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

    /// Polls of 10 ms a run may take (10 minutes, far beyond any test's) before it is
    /// taken for hung: killed, and thrown as `Hung` instead of hanging the test run.
    public static let maxPolls = 60_000

    /// A run that did not end within `maxPolls`, and what it had said on stderr.
    public struct Hung: Error, CustomStringConvertible {
        public var arguments: [String]
        public var stderr: String

        public var description: String {
            "preflight \(arguments.joined(separator: " ")) had not ended after \(maxPolls) polls and was killed; stderr: \(stderr)"
        }
    }

    /// Runs `preflight arguments...` in the repository root and waits for it.
    public static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: Repository.root)
        var processEnvironment = ProcessInfo.processInfo.environment
        for (key, value) in environment { processEnvironment[key] = value }
        process.environment = processEnvironment
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Read both pipes while the process runs, so that neither fills up and blocks it.
        let outputReader = Thread.detachedReader(stdout.fileHandleForReading)
        let errorReader = Thread.detachedReader(stderr.fileHandleForReading)
        var polls = 0
        while process.isRunning && polls < maxPolls {
            usleep(10_000)
            polls += 1
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Hung(arguments: arguments, stderr: String(decoding: errorReader.wait(), as: UTF8.self))
        }
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: outputReader.wait(),
            stderr: String(decoding: errorReader.wait(), as: UTF8.self))
    }
}

/// Reads a file handle to its end on a thread of its own.
final class BackgroundReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

extension Thread {
    static func detachedReader(_ handle: FileHandle) -> BackgroundReader { BackgroundReader(handle) }
}
