import Foundation
import Testing
import TestSupport

@testable import PreflightService

/// Error bodies say nothing of the server: an internal error has a stable code, a message a
/// person can act on and a request id; what went wrong, with the server's paths, is in its
/// log under that id. (Every error body the HTTP suites get is audited: `ErrorBodyAudit`.)
@Suite struct ErrorBodyTests {
    /// The job directory cannot be made (`job_dir` replaced by a file after the start: the
    /// tests run as root, for whom no mode bit refuses a directory): 500 `internal`.
    @Test func aJobDirectoryThatCannotBeMadeNamesNoPath() throws {
        let server = try ServerProcess()
        try FileManager.default.removeItem(atPath: server.jobDir)
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: server.jobDir))
        let fixtures = TemporaryDirectory("error-body")
        let database = try Fixtures.notesDatabase(in: fixtures.path)
        let answer = server.curl("/v1/migrations?plan=notes", ["--data-binary", "@" + database])
        #expect(answer.status == 500, "\(answer.text)")
        let error = try #require(answer.json["error"] as? [String: Any])
        #expect(error["code"] as? String == "internal")
        let requestID = try #require(error["request_id"] as? String)
        let message = error["message"] as? String ?? ""
        #expect(message.contains("could not create the job's directory"), "\(message)")
        #expect(message.contains(requestID))
        #expect(!answer.text.contains(server.root), "\(answer.text)")
        #expect(ErrorBodyAudit.leaks(in: answer.text).isEmpty, "\(answer.text)")
        // The log has what happened, under the same id.
        #expect(eventually {
            server.logLines.contains {
                $0["request_id"] as? String == requestID && ($0["detail"] as? String)?.contains(server.jobDir) == true
                    && $0["level"] as? String == "error"
            }
        }, "\(server.stderr)")
    }

    /// The audit fails a body that names what it must not: it can fail.
    @Test func theAuditFindsAServersPathsAndSources() throws {
        let server = try ServerProcess()
        #expect(ErrorBodyAudit.leaks(in: #"{"error": {"message": "cannot create \#(server.jobDir)/x"}}"#).count == 2)
        #expect(ErrorBodyAudit.leaks(in: #"{"error": {"message": "in JobScheduler.swift"}}"#) == [".swift"])
        #expect(ErrorBodyAudit.leaks(in: #"{"error": {"code": "busy", "message": "retry in 5 s"}}"#).isEmpty)
    }
}
