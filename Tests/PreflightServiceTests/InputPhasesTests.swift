import Foundation
import Simulation
import Testing
import TestSupport

/// The upload's hash (copied and hashed at once) and the report's `timings.phases`, from
/// the real binary.
@Suite("preflight run: input hash and phases")
struct InputPhasesTests {
    let plan = Repository.path("Config/plans/notes.json")

    @Test func theInputHashIsSha256sumsAndEveryPhaseIsTimed() throws {
        let directory = TemporaryDirectory("phases")
        // Several MiB, so that the copy and the hash run many pieces.
        let path = try NotesHistory.database(version: 1, rows: 40_000, at: directory.file("v1.db"))
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", plan, "--out", directory.file("out.db")])
        let report = try result.decodedReport
        #expect(result.status == 0, "\(result.stderr)")
        #expect(report.outcome == .completed)
        #expect(report.input.sha256 == (try sha256sum(path)))
        let phases = report.timings.phases
        let measured = [phases.hashMs, phases.copyMs, phases.countMs, phases.launchesMs, phases.verifyMs, phases.reportMs]
        #expect(measured.allSatisfy { $0 != nil }, "\(phases)")
        #expect(measured.compactMap { $0 }.allSatisfy { $0 >= 0 && $0 <= report.timings.totalMs })
    }

    /// A file that is no database stops before the copy: the phases it never reached are
    /// null, not zero.
    @Test func phasesNotReachedAreNull() throws {
        let directory = TemporaryDirectory("phases")
        let path = directory.file("text.db")
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        let result = try PreflightProcess.run(["run", "--db", path, "--plan", plan])
        let report = try result.decodedReport
        #expect(report.outcome == .invalidDatabase, "\(result.stderr)")
        #expect(report.input.sha256 == (try sha256sum(path)))
        let phases = report.timings.phases
        #expect(phases.copyMs == nil && phases.countMs == nil && phases.launchesMs == nil && phases.verifyMs == nil)
        #expect(phases.hashMs != nil && phases.reportMs != nil)
    }
}

/// The digest coreutils' `sha256sum` prints for `path`: a second, independent SHA-256.
private func sha256sum(_ path: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let bytes = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: bytes, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
}
