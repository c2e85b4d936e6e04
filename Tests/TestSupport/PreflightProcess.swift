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

    /// The `sqlite3` shell built beside the device engine `name` (scripts/build-engines), for
    /// the binary the tests run; nil when that engine is not built.
    public static func engineShell(_ name: String) -> String? {
        SQLiteEngine.installed(forExecutable: executable).first { $0.name == name }?.directory
            .map { ($0 as NSString).appendingPathComponent("sqlite3") }
    }

    /// A device engine's shared library, by the engine's name.
    public struct EngineLibrary: Sendable, CustomStringConvertible {
        public let name: String
        public let path: String
        public var description: String { name }
    }

    /// The device engines built for the binary the tests run, each its `libsqlite3.so.0`.
    public static func engineLibraries() -> [EngineLibrary] {
        SQLiteEngine.installed(forExecutable: executable).compactMap { engine in
            engine.directory.map {
                EngineLibrary(name: engine.name, path: ($0 as NSString).appendingPathComponent("libsqlite3.so.0"))
            }
        }
    }

    public typealias Result = TestProcess.Result

    /// Runs `preflight arguments...` in the repository root and waits for it (at most
    /// `seconds`, a bound against a hang: see `TestProcess.wait`).
    public static func run(_ arguments: [String], environment: [String: String] = [:], within seconds: Double = 600) throws -> Result {
        try TestProcess.run(executable, arguments, environment: environment, within: seconds)
    }
}
