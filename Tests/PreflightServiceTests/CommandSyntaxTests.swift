import Testing
import PreflightService

/// The one command line parser, in process: what glibc's getopt_long makes of each form.
@Suite struct CommandSyntaxTests {
    let syntax = CommandSyntax(
        command: "preflight test",
        flags: [.init("db", value: "FILE"), .init("devices-dir", value: "DIR"), .init("device", value: "NAME"), .init("final-only", value: nil)],
        operands: 0...2, operandName: "FILE", usage: "usage: preflight test")

    private func arguments(_ words: [String]) throws -> Arguments {
        guard case .run(let arguments) = try syntax.parse(words) else {
            throw UsageError("not a run: \(words)")
        }
        return arguments
    }

    private func error(_ words: [String]) -> String? {
        do {
            _ = try syntax.parse(words)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func valuesSeparateOrJoinedAndOperandsAnywhere() throws {
        let parsed = try arguments(["first", "--db", "a.db", "--device=phone", "second", "--final-only"])
        #expect(parsed.value("db") == "a.db")
        #expect(parsed.value("device") == "phone")
        #expect(parsed.isSet("final-only"))
        #expect(parsed.operands == ["first", "second"])
        // A value may start with dashes: it is the flag's, as getopt takes it.
        #expect(try arguments(["--db", "--device"]).value("db") == "--device")
        #expect(try arguments(["--db="]).value("db") == "")
    }

    @Test func doubleDashEndsTheOptions() throws {
        let parsed = try arguments(["--db", "a", "--", "--device", "x"])
        #expect(parsed.value("device") == nil)
        #expect(parsed.operands == ["--device", "x"])
    }

    @Test func anUnambiguousPrefixNamesItsFlag() throws {
        #expect(try arguments(["--final", "--devices", "d"]).isSet("final-only"))
        #expect(try arguments(["--devices", "d"]).value("devices-dir") == "d")
        // An exact name wins over the longer names it starts.
        #expect(try arguments(["--device", "n"]).value("device") == "n")
        #expect(error(["--dev", "x"]) == "option --dev is ambiguous: it could be --devices-dir, --device")
    }

    @Test func badFlagsAreNamedAsTyped() {
        #expect(error(["--bogus"]) == "unknown option --bogus")
        #expect(error(["--bogus=1"]) == "unknown option --bogus")
        #expect(error(["-x"]) == "unknown option -x")
        #expect(error(["--db"]) == "option --db needs a value")
        #expect(error(["--final-only=yes"]) == "option --final-only takes no value")
        #expect(error(["--db", "a", "--db", "b"]) == "option --db is given twice")
        #expect(error(["a", "b", "c"]) == "unexpected argument \"c\"")
    }

    @Test func helpAndVersionWinOverWhatFollows() throws {
        #expect(try syntax.parse(["--help"]) == .help)
        #expect(try syntax.parse(["-h", "--bogus"]) == .help)
        #expect(try syntax.parse(["--db", "a", "--version", "--db"]) == .version)
        #expect(error(["--bogus", "--help"]) == "unknown option --bogus")
    }

    /// getopt keeps its state in C globals: every parse starts from the beginning.
    @Test func parsesAreIndependent() throws {
        for _ in 0..<3 {
            #expect(error(["--db"]) == "option --db needs a value")
            #expect(try arguments(["x", "--db", "a"]).operands == ["x"])
        }
    }

    @Test func aSubcommandKeepsItsOwnFlags() throws {
        let dispatcher = CommandSyntax(
            command: "preflight", flags: [], operands: 0...Int.max, operandIsSubcommand: true, usage: "usage: preflight")
        guard case .run(let parsed) = try dispatcher.parse(["run", "--db", "a", "--", "x"]) else {
            Issue.record("not a run")
            return
        }
        #expect(parsed.operands == ["run", "--db", "a", "--", "x"])
        #expect(try dispatcher.parse(["--version", "run"]) == .version)
    }
}
