import Foundation
import TestSupport

/// The reference run on a device engine: the same transactions as `Oracle` (each step
/// `BEGIN IMMEDIATE; <stmts>; PRAGMA user_version = N; COMMIT`, the seed rows in one of
/// their own), through the engine's own `sqlite3` shell, which scripts/build-engines builds
/// from the same source and with the same options as the engine. The shell stops at the
/// first error (`-bail`) and leaves the transaction unfinished, so a step SQLite rejects is
/// an error here, as in `Oracle`.
enum EngineOracle {
    static func run(
        _ testCase: DifferentialCase, from start: Differential.Start, shell: String, in directory: TemporaryDirectory
    ) throws -> Oracle.Run {
        let endPath = directory.file("oracle-end.db")
        let steps = testCase.oracleSteps.enumerated().map { index, statements in
            transaction(statements.joined(separator: ";\n") + ";\nPRAGMA user_version = \(index + 1)")
        }
        guard let first = steps.first else {
            throw OracleError("the case \(testCase.name) has no steps; a plan starts at version 1")
        }
        switch start {
        case .empty:
            try execute(steps.joined(), on: endPath, shell: shell)
            return Oracle.Run(versionOne: nil, end: try file(endPath))
        case .seeded:
            let versionOnePath = directory.file("oracle-v1.db")
            try execute(first + (testCase.seedSQL.map(transaction) ?? ""), on: versionOnePath, shell: shell)
            try FileManager.default.copyItem(atPath: versionOnePath, toPath: endPath)
            try execute(steps.dropFirst().joined(), on: endPath, shell: shell)
            return Oracle.Run(versionOne: try file(versionOnePath), end: try file(endPath))
        }
    }

    private static func transaction(_ sql: String) -> String { "BEGIN IMMEDIATE;\n\(sql);\nCOMMIT;\n" }

    private static func file(_ path: String) throws -> Oracle.File {
        Oracle.File(path: path, fingerprint: try DatabaseFingerprint.read(path))
    }

    private static func execute(_ script: String, on path: String, shell: String) throws {
        let result = try TestProcess.run(shell, ["-bail", path], input: Data(script.utf8))
        guard result.status == 0, result.stderr.isEmpty else {
            throw OracleError("\(shell) on \(path) failed (exit status \(result.status)): \(result.stderr)")
        }
    }
}
