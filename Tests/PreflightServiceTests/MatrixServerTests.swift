import Foundation
import MigrationCore
import Simulation
import Synchronization
import Testing
import TestSupport

@testable import PreflightService

/// `POST /v1/matrix` (docs/CONTRACT.md §11) on the real server with curl: the fixtures as repeated
/// `database` parts, answered in every format, the same cells as `preflight matrix` on the
/// same files; the page in headless Chromium; WAL parts paired by filename.
@Suite("POST /v1/matrix")
struct MatrixServerTests {
    static let devices = MatrixCommandTests.devices

    /// The repository's notes plan and the two device profiles, registered on the server.
    static func server(environment: [String: String] = [:]) throws -> ServerProcess {
        func file(_ path: String) throws -> String { try String(contentsOfFile: Repository.path(path), encoding: .utf8) }
        var devices: [String: String] = [:]
        for name in Self.devices { devices[name] = try file("Config/devices/\(name).json") }
        return try ServerProcess(environment: environment, plans: ["notes": try file("Config/plans/notes.json")], devices: devices)
    }

    /// The server's synthesis cache (`synthesis_cache_dir`, `synthesis_cache_bytes`): a second
    /// matrix of the same plan and size takes its synthesized rows' files from it.
    @Test func aSecondMatrixOverHTTPTakesItsFilesFromTheSynthesisCache() throws {
        let directory = TemporaryDirectory("matrix-cache")
        let (database, _) = try Fixtures.walDatabase(rows: 30, walRows: 0, in: directory.path)
        let server = try Self.server(environment: [
            "PREFLIGHT_SYNTHESIS_CACHE_DIR": directory.file("cache"), "PREFLIGHT_SYNTHESIS_CACHE_BYTES": "100000000",
        ])
        let options = #"{"devices": "ios-launch", "from": "4", "rows": "notes=50"}"#
        let answers = try [1, 2].map { _ in
            let posted = server.curl("/v1/matrix", ["-F", "plan=notes", "-F", "database=@\(database)", "-F", "options=\(options)"])
            #expect(posted.status == 200, "\(posted.text)")
            return try JSONDecoder().decode(MatrixAnswer.self, from: posted.body)
        }
        let synthesized = answers.map { $0.rows.filter { $0.source == .synthesized } }
        #expect(synthesized[0].count == 2 && synthesized[1].count == 2)
        #expect(synthesized[0].allSatisfy { $0.cached == false })
        #expect(synthesized[1].allSatisfy { $0.cached == true })
        #expect(synthesized[0].map(\.bytes) == synthesized[1].map(\.bytes))
    }

    @Test func everyFormatOverHTTPGivesTheCommandLinesCells() throws {
        let directory = TemporaryDirectory("matrix-http")
        let fixtures = try MatrixCommandTests.notesFixtures(directory, versions: [1, 3])
        let server = try Self.server()
        let options = #"{"devices": "ios-launch,android-low-end", "rows": "notes=\#(MatrixCommandTests.rows)"}"#
        let parts = ["-F", "plan=notes", "-F", "database=@\(fixtures)/notes-v1.db", "-F", "database=@\(fixtures)/notes-v3.db",
                     "-F", "options=\(options)"]
        let posted = server.curl("/v1/matrix", parts)
        #expect(posted.status == 200, "\(posted.text)")
        let answer = try JSONDecoder().decode(MatrixAnswer.self, from: posted.body)
        #expect(answer.rows.map(\.fromVersion) == [0, 1, 2, 3, 4, 5])
        #expect(answer.rows.map(\.file) == [nil, "notes-v1.db", nil, "notes-v3.db", nil, nil])
        #expect(posted.headers["preflight-outcome"] == answer.summary.worstOutcome?.rawValue)
        // The command line on the same files: the same cells.
        let local = try MatrixCommandTests.answer(try MatrixCommandTests.matrix(["--fixtures", fixtures]))
        #expect(answer.identity == local.identity)
        for (row, expected) in zip(answer.rows, local.rows) {
            for device in Self.devices {
                #expect(row.cells[device]?.outcome == expected.cells[device]?.outcome)
                #expect(row.cells[device]?.launches == expected.cells[device]?.launches)
                #expect(row.cells[device]?.report?.input.sha256 == expected.cells[device]?.report?.input.sha256)
            }
        }

        let text = server.curl("/v1/matrix", parts + ["-H", "Accept: text/plain"])
        #expect(text.headers["content-type"]?.hasPrefix("text/plain") == true)
        #expect(text.text.contains("from v3 "), "\(text.text)")
        #expect(text.text.contains("schemas agree: yes"))
        let junit = server.curl("/v1/matrix", parts + ["-H", "Accept: application/xml"])
        #expect(junit.text.components(separatedBy: "<testcase ").count - 1 == 12)
        #expect(junit.text.contains("<testsuite name=\"preflight.notes.android-low-end\""))
        #expect(junit.text.contains("name=\"from v0 on ios-launch\""))

        let page = server.curl("/v1/matrix", parts + ["-H", "Accept: text/html"])
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        let file = directory.file("matrix.html")
        try page.body.write(to: URL(fileURLWithPath: file))
        let dom = try Chromium.dumpDOM("file://" + file)
        #expect(dom.components(separatedBy: "data-outcome=").count - 1 == 12)
        #expect(dom.components(separatedBy: "<section class=\"report\"").count - 1 == 12)
        #expect(dom.contains("href=\"#cell-3-1\""))
        // Each cell's detail and tooltip, and each device's margin, say which clock their times are on.
        let times = PageTimes(dom: dom)
        #expect(times.unlabelled.isEmpty, "times without their clock: \(times.unlabelled)")
        #expect(times.count(on: "device") >= 12 + Self.devices.count, "\(times.shown)")
        // Each cell's section holds that cell's own report page.
        #expect(dom.contains("from v3 on android-low-end</h2>"))
        try FileManager.default.createDirectory(atPath: PageBrowserTests.screenshots, withIntermediateDirectories: true)
        for (name, fragment) in [("grid", ""), ("cell", "#cell-3-1")] {
            let png = PageBrowserTests.screenshots + "/matrix-\(name)-1280x900.png"
            try Chromium.screenshot("file://" + file + fragment, to: png, width: 1280, height: 900)
            #expect(Chromium.pngSize(png).map { $0.width == 1280 && $0.height == 900 } == true)
        }
    }

    /// A `wal` part goes with the database part it is named after; one without its database
    /// is a row of its own; a database part without a filename is refused.
    @Test func walPartsArePairedByFilename() throws {
        let directory = TemporaryDirectory("matrix-wal")
        let (database, wal) = try Fixtures.walDatabase(rows: 30, walRows: 10, in: directory.path)
        let server = try Self.server()
        let options = #"{"devices": "ios-launch", "from": "5", "rows": "notes=10"}"#
        let posted = server.curl(
            "/v1/matrix",
            ["-F", "plan=notes", "-F", "database=@\(database)", "-F", "wal=@\(wal)", "-F", "wal=@\(wal);filename=lost.db-wal",
             "-F", "options=\(options)"])
        #expect(posted.status == 200, "\(posted.text)")
        let answer = try JSONDecoder().decode(MatrixAnswer.self, from: posted.body)
        let paired = try #require(answer.rows.first { $0.file == "wal-v1.db" })
        #expect(paired.sha256?.contains("+") == true, "the row's hash covers its WAL")
        let report = try #require(paired.cells["ios-launch"]?.report)
        #expect(report.input.tables?["notes"] == 40, "the WAL's rows count")
        let lost = try #require(answer.rows.first { $0.file == "lost.db-wal" })
        #expect(lost.cells["ios-launch"]?.outcome == .invalidDatabase)

        let unnamed = server.curl("/v1/matrix", ["-F", "plan=notes", "-F", "database=<\(database)"])
        #expect(unnamed.status == 400)
        #expect(unnamed.text.contains("needs its filename"), "\(unnamed.text)")
        let raw = server.curl("/v1/matrix?plan=notes", ["--data-binary", "@" + database])
        #expect(raw.status == 415)
    }

    /// A matrix's cells beyond its first borrow free slots, which count as running: a job
    /// that comes meanwhile waits for the lent slot, and gets it once it is given back.
    @Test func aMatrixsLentSlotsCountAsRunning() throws {
        let scheduler = JobScheduler(maxRunning: 2, queueLength: 2)
        let matrix = try scheduler.admitted(for: "ci")
        try scheduler.run(matrix, checking: {}) {
            #expect(scheduler.borrowSlot())
            #expect(!scheduler.borrowSlot(), "both slots taken")
            #expect(scheduler.load.running == 2)
            let other = try scheduler.admitted(for: "someone")
            let started = Mutex(false)
            let thread = Thread {
                try? scheduler.run(other, checking: {}) { started.withLock { $0 = true } }
            }
            thread.start()
            // In line and waiting (its ticket out of the uploads), which it reaches under
            // the scheduler's lock after it has looked for a slot and found none.
            #expect(eventually { scheduler.load == .init(running: 2, queued: 1, uploading: 0) })
            #expect(!started.withLock { $0 }, "the other job waits while the slot is lent")
            scheduler.returnSlot()
            #expect(eventually { started.withLock { $0 } })
        }
    }
}
