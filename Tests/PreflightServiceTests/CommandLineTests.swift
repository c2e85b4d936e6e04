import CSQLite
import Foundation
import Testing
import TestSupport
import PreflightService

/// Every command of the real binary reads its command line the same way: `--help`,
/// `--version`, unknown, incomplete and repeated flags, `--flag=value` and `--`. Each
/// run is bounded, so that a command that wrongly starts a server fails instead of hanging.
@Suite struct CommandLineTests {
    /// Each command, a flag of it that takes a value, and what `--help` starts with.
    static let commands: [(words: [String], valueFlag: String?)] = [
        ([], nil), (["run"], "--db"), (["serve"], "--config"), (["worker"], "--job"), (["plan"], nil),
        (["plan", "import"], "--from"), (["synthesize"], "--plan"),
    ]

    static var commandWords: [[String]] { commands.map(\.words) }

    private func name(_ words: [String]) -> String { (["preflight"] + words).joined(separator: " ") }

    @Test(arguments: commandWords)
    func helpPrintsTheUsageOnStdout(words: [String]) throws {
        for flag in ["--help", "-h"] {
            let result = try PreflightProcess.run(words + [flag])
            #expect(result.status == 0, "\(name(words)) \(flag): \(result.stderr)")
            #expect(result.stdoutText.hasPrefix("usage: preflight"), "\(name(words)) \(flag): \(result.stdoutText)")
            #expect(result.stderr.isEmpty)
        }
    }

    @Test(arguments: commandWords)
    func versionNamesPreflightAndItsSQLite(words: [String]) throws {
        let result = try PreflightProcess.run(words + ["--version"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText == "preflight \(Version.preflight)\nSQLite \(String(cString: sqlite3_libversion()))\n")
    }

    @Test(arguments: commandWords)
    func anUnknownFlagIsNamedAndExitsTwo(words: [String]) throws {
        for form in [["--bogus"], ["--bogus=1"], ["--bogus", "value"]] {
            let result = try PreflightProcess.run(words + form)
            #expect(result.status == 2, "\(name(words)) \(form)")
            #expect(result.stderr.hasPrefix("\(name(words)): unknown option --bogus\n"), "\(result.stderr)")
            #expect(result.stdoutText.isEmpty)
        }
    }

    @Test(arguments: commands.compactMap { command in command.valueFlag.map { [command.words, [$0]] } })
    func aFlagWithoutItsValueIsNamed(pair: [[String]]) throws {
        let (words, flag) = (pair[0], pair[1][0])
        let result = try PreflightProcess.run(words + [flag])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("\(name(words)): option \(flag) needs a value\n"), "\(result.stderr)")
    }

    /// `--flag=value` is the same as `--flag value`, and after `--` nothing is a flag: for
    /// every command, a message that quotes what was read shows it.
    @Test(arguments: [
        (["run", "--db=/nonexistent/v1.db", "--plan=Config/plans/notes.json"], "preflight run: cannot read the database file /nonexistent/v1.db"),
        (["run", "--db", "/nonexistent/v1.db", "--", "--plan", "x"], "preflight run: unexpected argument \"--plan\""),
        (["serve", "--config=/nonexistent/p.json"], "/nonexistent/p.json"),
        (["serve", "--", "--config", "x"], "preflight serve: unexpected argument \"--config\""),
        (["worker", "migrate", "--job=/nonexistent", "--parent=me"], "preflight worker: --parent must be a process id, got \"me\""),
        (["worker", "--", "--job"], "preflight worker: unknown task \"--job\""),
        (["plan", "import", "--from=liquibase", "x"], "preflight plan import: --from must be room, sqldelight, flyway, sql-dir, got \"liquibase\""),
        (["plan", "import", "--from", "flyway", "--", "--name"], "preflight plan import: cannot import --name: "),
        (["--", "--version"], "preflight: unknown command \"--version\""),
    ])
    func joinedValuesAndDoubleDashAreRead(arguments: [String], said: String) throws {
        let result = try PreflightProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(said), "\(arguments): \(result.stderr)")
    }

    @Test func serveIgnoresNothing() throws {
        for arguments in [["serve", "--bogus"], ["serve", "--config"], ["serve", "extra"], ["serve", "--config", "a", "--config", "b"]] {
            let result = try PreflightProcess.run(arguments)
            #expect(result.status == 2, "\(arguments) started or passed: \(result.stdoutText)")
            #expect(!result.stdoutText.contains("listening on"))
        }
        let missing = try PreflightProcess.run(["serve", "--config=/nonexistent/preflight.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("/nonexistent/preflight.json"), "the joined value was not read: \(missing.stderr)")
    }

    @Test func runReadsJoinedValuesAndStopsAtDoubleDash() throws {
        let directory = TemporaryDirectory("cli")
        let database = try NotesHistory.database(version: 5, rows: 10, at: directory.file("v5.db"))
        let text = try PreflightProcess.run(["run", "--db=" + database, "--plan=Config/plans/notes.json", "--format=text"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdoutText.hasPrefix("completed: "))
        let afterDashes = try PreflightProcess.run(["run", "--db", database, "--", "--plan", "Config/plans/notes.json"])
        #expect(afterDashes.status == 2)
        #expect(afterDashes.stderr.hasPrefix("preflight run: unexpected argument \"--plan\"\n"), "\(afterDashes.stderr)")
        let twice = try PreflightProcess.run(["run", "--db", database, "--db", database, "--plan", "Config/plans/notes.json"])
        #expect(twice.stderr.hasPrefix("preflight run: option --db is given twice\n"))
    }

    /// The resolver's options are named as the flags the user typed, not as its keys.
    @Test func runOptionMessagesNameTheFlag() throws {
        let directory = TemporaryDirectory("cli")
        let database = try NotesHistory.database(version: 1, rows: 10, at: directory.file("v1.db"))
        for (flag, value) in [("--watchdog-ms", "soon"), ("--free-bytes", "lots"), ("--space-check", "maybe"), ("--launches", "0")] {
            let result = try PreflightProcess.run(["run", "--db", database, "--plan", "Config/plans/notes.json", flag, value])
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix("preflight run: \(flag) must be"), "\(result.stderr)")
            let key = String(flag.dropFirst(2)).replacingOccurrences(of: "-", with: "_")
            #expect(key == String(flag.dropFirst(2)) || !result.stderr.contains(key), "\(result.stderr)")
        }
    }

    @Test func workerTasksAndNumbersAreChecked() throws {
        let unknown = try PreflightProcess.run(["worker", "frobnicate", "--job", "/nonexistent", "--parent", "1"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("preflight worker: unknown task \"frobnicate\""))
        let parent = try PreflightProcess.run(["worker", "migrate", "--job", "/nonexistent", "--parent", "me"])
        #expect(parent.stderr.hasPrefix("preflight worker: --parent must be a process id, got \"me\""))
        let switchValue = try PreflightProcess.run(["worker", "verify", "--final-only=yes"])
        #expect(switchValue.stderr.hasPrefix("preflight worker: option --final-only takes no value"))
    }

    @Test func unknownCommandsAndSubcommandsAreNamed() throws {
        let command = try PreflightProcess.run(["frobnicate"])
        #expect(command.status == 2)
        #expect(command.stderr.hasPrefix("preflight: unknown command \"frobnicate\""))
        let subcommand = try PreflightProcess.run(["plan", "export"])
        #expect(subcommand.status == 2)
        #expect(subcommand.stderr.hasPrefix("preflight plan: unknown subcommand \"export\""))
        let nothing = try PreflightProcess.run([])
        #expect(nothing.status == 2)
        #expect(nothing.stderr.hasPrefix("preflight: a command"))
    }

    /// `serve --config FILE` and `--config=FILE` both apply the file: its tokens guard `/v1/*`.
    @Test(arguments: [false, true])
    func serveAppliesTheConfigurationItIsGiven(joined: Bool) throws {
        let directory = TemporaryDirectory("serve-config")
        for folder in ["jobs", "plans", "devices"] {
            try FileManager.default.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: true)
        }
        let configuration = directory.file("Config/preflight.json")
        try FileManager.default.createDirectory(atPath: directory.file("Config"), withIntermediateDirectories: true)
        try Data("""
            {"bind": "127.0.0.1", "port": 0, "probe_port": 0, "job_dir": "jobs", "plans_dir": "plans", "devices_dir": "devices",
             "tokens": ["secret-token"]}
            """.utf8).write(to: URL(fileURLWithPath: configuration))
        let server = try TestProcess.preflight(
            ["serve"] + (joined ? ["--config=" + configuration] : ["--config", configuration]), workingDirectory: directory.path)
        defer { server.stop() }
        var port: Int?
        _ = eventually {
            port = server.stdoutText.split(separator: "\n").first { $0.hasPrefix("listening on http://") }
                .flatMap { $0.split(separator: ":").last }.flatMap { Int($0) }
            return port != nil || !server.isRunning
        }
        let listening = try #require(port, "no listening line: \(server.stderr)")
        #expect(curl("http://127.0.0.1:\(listening)/v1/plans", []).status == 401)
        #expect(curl("http://127.0.0.1:\(listening)/v1/plans", ["-H", "Authorization: Bearer secret-token"]).status == 200)
    }
}
