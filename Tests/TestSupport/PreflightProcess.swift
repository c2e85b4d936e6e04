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

        /// The report printed on stdout, as a JSON object.
        public var report: [String: Any] {
            (try? JSONSerialization.jsonObject(with: stdout)) as? [String: Any] ?? [:]
        }

        /// The report printed on stdout, as the `Report` it was encoded from; throws when
        /// stdout is not one (another format, or no report at all).
        public var decodedReport: Report {
            get throws { try JSONDecoder().decode(Report.self, from: stdout) }
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
        let errorReader = Thread.detachedReader(stderr.fileHandleForReading)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: output, stderr: String(decoding: errorReader.wait(), as: UTF8.self))
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
