import Foundation
import Testing
import TestSupport
import Simulation

/// `preflight run` on the slow test phone (`SlowPhone`, on the device clock), and the check
/// that two such runs ended alike, for the suites that run one job twice under different
/// conditions (a loaded machine, real flushes) and expect the same verdict.
enum SlowPhoneRun {
    static func report(
        _ database: String, plan: String, devices: String, in directory: TemporaryDirectory,
        _ options: [String] = [], environment: [String: String] = [:]
    ) throws -> Report {
        let result = try PreflightProcess.run(
            ["run", "--db", database, "--plan", plan, "--devices-dir", devices, "--device", SlowPhone.name] + options,
            environment: environment.merging(["TMPDIR": directory.path]) { $1 })
        return try result.decodedReport
    }

    /// The same outcome and launches, each ending where the other did, with `device_ms`
    /// within 2%, and the steps killed at the same step and batch.
    static func expectSameEnd(_ first: Report, _ second: Report) throws {
        #expect(second.outcome == first.outcome)
        #expect(second.launches.count == first.launches.count)
        for (a, b) in zip(first.launches, second.launches) {
            #expect(a.ended == b.ended && a.fromVersion == b.fromVersion && a.reachedVersion == b.reachedVersion)
            let deviceA = try #require(a.deviceMs), deviceB = try #require(b.deviceMs)
            #expect(abs(deviceA - deviceB) <= max(1, deviceA / 50), "launch \(a.launch): \(deviceA) ms against \(deviceB) ms")
        }
        #expect(first.steps.map { [$0.version, $0.launch ?? 0, Int($0.rows ?? -1), $0.batches ?? -1] }
            == second.steps.map { [$0.version, $0.launch ?? 0, Int($0.rows ?? -1), $0.batches ?? -1] })
    }
}
