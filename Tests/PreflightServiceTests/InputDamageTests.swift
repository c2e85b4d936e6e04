import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

/// Damaged uploads end `invalid_database` before any launch, in SQLite's words, whatever
/// the plan would read: the inspection runs `PRAGMA quick_check` on the file as the app
/// opens it. Each case is judged against plain SQLite (the sqlite3 shell's quick_check on a
/// copy of the same bytes): Preflight refuses what it finds damaged, and rehearses what it
/// finds sound.
@Suite("preflight run: damaged input, as plain SQLite finds it")
struct InputDamageTests {
    let directory = TemporaryDirectory("damage")

    /// `notes` has an index, so counting its rows reads the index and not the table; when
    /// `damaged`, one of the table's leaf pages in the middle of the file is overwritten
    /// with 0xFF (no valid page type).
    static func database(at path: String, damaged: Bool = true, rows: Int = 2000) throws -> String {
        try FixtureDatabase.create(at: path, sql: """
            CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT);
            CREATE INDEX idx_title ON notes(title);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO notes SELECT i, 't' || i, printf('%.200c', 'b') FROM n;
            PRAGMA user_version = 1;
            """)
        guard damaged else { return path }
        let connection = try Connection(path: path)
        let page = try connection.integer(
            "SELECT pageno FROM dbstat WHERE name = 'notes' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 20")
        let pageSize = try connection.integer("PRAGMA page_size")
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? file.close() }
        try file.seek(toOffset: UInt64((page - 1) * pageSize))
        try file.write(contentsOf: Data(repeating: 0xFF, count: Int(pageSize)))
        return path
    }

    static func plan(_ sql: String, at path: String) throws -> String {
        try Data("""
            {"name": "damage", "steps": [
              {"version": 1, "name": "create", "sql": ["CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT)", "CREATE INDEX idx_title ON notes(title)"]},
              {"version": 2, "name": "change", "sql": \(sql)}]}
            """.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// What plain SQLite says of the bytes: quick_check's "ok", or the first problem it
    /// lists, or the error that stopped it before it listed any (the shell, on a copy: an
    /// open may write beside the file).
    private func plainQuickCheck(_ database: String, wal: String? = nil) throws -> (sound: Bool, said: String) {
        let copy = DatabaseFiles(directory.file("plain-\(UUID().uuidString.prefix(8)).db"))
        try FileManager.default.copyItem(atPath: database, toPath: copy.path)
        if let wal { try FileManager.default.copyItem(atPath: wal, toPath: copy.wal) }
        let result = try TestProcess.run("/usr/bin/sqlite3", [copy.path, "PRAGMA quick_check"])
        let lines = result.stdoutText.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("*** in database ") }
        if result.status == 0, lines == ["ok"] { return (true, "ok") }
        if let first = lines.first { return (false, first) }
        // "Error: in prepare, database disk image is malformed (11)": the message.
        var said = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        if let place = said.range(of: #"^.*(in prepare|stepping), "#, options: .regularExpression) { said.removeSubrange(place) }
        if let code = said.range(of: #" \(\d+\)$"#, options: .regularExpression) { said.removeSubrange(code) }
        return (false, said)
    }

    /// Rehearses the bytes with a plan that never reads the table's pages, and expects what
    /// plain SQLite says of them: refused in its words, or rehearsed to the end. The user's
    /// files are left as they were.
    private func expectAgreement(_ label: String, database: String, wal: String? = nil, plan: String? = nil) throws {
        let plain = try plainQuickCheck(database, wal: wal)
        let before = [database, wal].compactMap { $0 }.map { FixtureDatabase.sha256(of: $0) }
        let plan = try plan ?? Self.plan(#""CREATE TABLE tags(name TEXT)""#, at: directory.file("elsewhere.json"))
        let out = directory.file("out-\(UUID().uuidString.prefix(8)).db")
        let result = try PreflightProcess.run(
            ["run", "--db", database, "--plan", plan, "--out", out, "--verify", "off"] + (wal.map { ["--wal", $0] } ?? []))
        let report = try result.decodedReport
        let message = report.failure?.message ?? ""
        if plain.sound {
            #expect(report.outcome == .completed, "\(label): plain SQLite finds it sound; \(message)")
        } else {
            #expect(report.outcome == .invalidDatabase, "\(label): plain SQLite says \(plain.said); \(report.outcome)")
            #expect(result.status == 1)
            #expect(message.contains(plain.said), "\(label): plain SQLite says \"\(plain.said)\"; the report: \(message)")
            #expect(report.launches.isEmpty, "\(label): no launch runs on a damaged file")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        #expect([database, wal].compactMap { $0 }.map { FixtureDatabase.sha256(of: $0) } == before, "\(label)")
    }

    /// A copy of `source` cut to its first `bytes` bytes.
    private func truncated(_ source: String, to bytes: Int) throws -> String {
        let path = directory.file("cut-\(bytes).db")
        try Data(try Data(contentsOf: URL(fileURLWithPath: source)).prefix(bytes)).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func truncationAtSeveralSizesAgreesWithPlainSQLite() throws {
        let healthy = try Self.database(at: directory.file("healthy.db"), damaged: false)
        let size = Int(try FileManager.default.attributesOfItem(atPath: healthy)[.size] as? UInt64 ?? 0)
        let pageSize = 4096
        for bytes in [32_767, pageSize * 40, size / 2, size - pageSize] {
            try expectAgreement("cut at \(bytes) of \(size) bytes", database: try truncated(healthy, to: bytes))
        }
    }

    /// The page the plan never reads: quick_check finds it all the same, before launch 1,
    /// with `--verify off` too; the report says what SQLite lists, and what an Android
    /// app's framework does with such a file.
    @Test func aDamagedPageInTheMiddleAgreesWithPlainSQLite() throws {
        let damaged = try Self.database(at: directory.file("damaged.db"))
        try expectAgreement("a damaged page", database: damaged)
        let plan = directory.file("android.json")
        try Data("""
            {"name": "android", "runner": "sqliteopenhelper", "steps": [
              {"version": 1, "name": "create", "sql": ["CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT)", "CREATE INDEX idx_title ON notes(title)"]},
              {"version": 2, "name": "tags", "sql": "CREATE TABLE tags(name TEXT)"}]}
            """.utf8).write(to: URL(fileURLWithPath: plan))
        let report = try PreflightProcess.run(["run", "--db", damaged, "--plan", plan]).decodedReport
        let message = report.failure?.message ?? ""
        #expect(report.outcome == .invalidDatabase)
        #expect(
            message.hasPrefix("the database is damaged, as uploaded (before any step ran): PRAGMA quick_check lists Page "),
            "\(message)")
        #expect(message.contains("Android's default DatabaseErrorHandler"), "\(message)")
        #expect(report.final == nil)
    }

    /// A WAL whose last frame a crash tore: SQLite ignores what is torn and reads the rest,
    /// and so does the rehearsal.
    @Test func aWALWithATornLastFrameAgreesWithPlainSQLite() throws {
        let fixtures = directory.file("wal")
        try FileManager.default.createDirectory(atPath: fixtures, withIntermediateDirectories: true)
        let pair = try Fixtures.walDatabase(rows: 50, walRows: 200, in: fixtures)
        let walBytes = try Data(contentsOf: URL(fileURLWithPath: pair.wal))
        let torn = directory.file("torn.db-wal")
        try Data(walBytes.dropLast(100)).write(to: URL(fileURLWithPath: torn))
        let plan = directory.file("notes.json")
        try Fixtures.notesPlan().write(toFile: plan, atomically: true, encoding: .utf8)
        try expectAgreement("a WAL with a torn last frame", database: pair.database, wal: torn, plan: plan)
    }

    /// Over HTTP as over the CLI: a file cut short is answered 200 with the report,
    /// `invalid_database` in SQLite's words, and the upload's bytes are as they came.
    @Test func aTruncatedUploadOverHTTPIsInvalidDatabase() throws {
        let healthy = try Self.database(at: directory.file("healthy.db"), damaged: false)
        let cut = try truncated(healthy, to: 32_767)
        let plain = try plainQuickCheck(cut)
        let server = try ServerProcess(plans: ["damage": try String(contentsOfFile: try Self.plan(
            #""CREATE TABLE tags(name TEXT)""#, at: directory.file("http.json")), encoding: .utf8)])
        let answer = server.curl("/v1/migrations?plan=damage", ["--data-binary", "@" + cut])
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.headers["preflight-outcome"] == "invalid_database")
        let report = try answer.report
        #expect(!plain.sound)
        #expect(report.failure?.message.contains(plain.said) == true, "\(String(describing: report.failure))")
        #expect(report.input.sha256 == FixtureDatabase.sha256(of: cut))
        #expect(report.launches.isEmpty)
    }

    /// On the device clock the check's work is the device's: counted as a launch's is, the
    /// same on every run of the same file, more for a file four times as large; the wall
    /// clock has no device time to give.
    @Test func theCheckIsCountedOnTheDeviceClock() throws {
        let small = try Self.database(at: directory.file("small.db"), damaged: false)
        let large = try Self.database(at: directory.file("large.db"), damaged: false, rows: 8000)
        let plan = try Self.plan(#""CREATE TABLE tags(name TEXT)""#, at: directory.file("plan.json"))
        let phone = try SlowPhone.arguments(in: directory)
        func checkMs(_ database: String, device: [String]) throws -> Int? {
            let report = try PreflightProcess.run(["run", "--db", database, "--plan", plan] + device).decodedReport
            #expect(report.outcome == .completed, "\(String(describing: report.failure))")
            return report.input.quickCheckDeviceMs
        }
        let first = try #require(try checkMs(small, device: phone))
        #expect(first > 0)
        #expect(try checkMs(small, device: phone) == first)
        #expect(try #require(try checkMs(large, device: phone)) > 2 * first)
        #expect(try checkMs(small, device: []) == nil)
    }

    /// The same plans on the same file undamaged: they are not what fails.
    @Test func theSamePlansCompleteOnTheUndamagedFile() throws {
        let healthy = try Self.database(at: directory.file("healthy.db"), damaged: false)
        for sql in [#""UPDATE notes SET body = upper(body)""#, #""CREATE TABLE tags(name TEXT)""#] {
            let plan = try Self.plan(sql, at: directory.file("plan.json"))
            let report = try PreflightProcess.run(["run", "--db", healthy, "--plan", plan]).decodedReport
            #expect(report.outcome == .completed, "\(sql): \(String(describing: report.failure))")
            #expect(report.timings.phases.checkMs != nil)
        }
    }
}
