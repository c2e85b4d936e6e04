import Foundation
import TestSupport

/// The third-party validators the tests run, installed by `BOOTSTRAP_TESTS=1 scripts/bootstrap`
/// (scripts/test does it): a Python venv at `.build/tools/venv` (openapi-core,
/// kubernetes-validate, checkov) and `.build/tools/bin/promtool` (unpacked from Debian's
/// prometheus package). A missing tool fails the test that needs it, with the command that
/// installs it: these checks are not optional.
enum TestTools {
    static let bootstrapHint = "install the test tools with `BOOTSTRAP_TESTS=1 scripts/bootstrap` (scripts/test does)"

    /// The venv's executable `name` (python, checkov, kubernetes-validate).
    static func venv(_ name: String) throws -> String {
        try executable(Repository.path(".build/tools/venv/bin/" + name))
    }

    static func promtool() throws -> String { try executable(Repository.path(".build/tools/bin/promtool")) }

    private static func executable(_ path: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else { throw HarnessError("no \(path): \(bootstrapHint)") }
        return path
    }

    /// Runs a tool to its end with `input` on stdin; answers its exit status and its stdout and
    /// stderr together (a validator's message may be on either).
    static func run(_ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:])
        throws -> (status: Int32, output: String)
    {
        let result = try TestProcess.run(executable, arguments, environment: environment, input: input, mergingErrors: true)
        return (result.status, result.stdoutText)
    }
}
