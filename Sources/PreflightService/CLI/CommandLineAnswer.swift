import Foundation
import Simulation

/// How every command answers its command line, so that all of them behave alike: the usage
/// for `--help` (stdout, exit 0), the versions for `--version` (stdout, exit 0), and a
/// usage error as one line naming what was wrong (stderr, exit 2).
enum CommandLineAnswer {
    static let usageStatus: Int32 = 2

    /// Parses `arguments` with `syntax` and runs `body` on what it read.
    static func run(_ syntax: CommandSyntax, _ arguments: [String], body: (Arguments) throws(UsageError) -> Int32) -> Int32 {
        do throws(UsageError) {
            switch try syntax.parse(arguments) {
            case .help:
                printOutput(syntax.usage.hasSuffix("\n") ? syntax.usage : syntax.usage + "\n")
                return 0
            case .version:
                printOutput(Version.text)
                return 0
            case .run(let parsed):
                return try body(parsed)
            }
        } catch {
            let hint = error.suggestsHelp ? "\nTry '\(syntax.command) --help' for more information." : ""
            printError("\(syntax.command): \(error.message)\(hint)")
            return usageStatus
        }
    }

    /// A job directory of its own for `command`'s workers, under the temporary directory;
    /// nil, with the reason on stderr, when none can be made.
    static func workingDirectory(_ command: String) -> JobDirectory? {
        do {
            return try JobDirectory.create(parent: NSTemporaryDirectory())
        } catch {
            printError("\(command): cannot create a working directory: \(error)")
            return nil
        }
    }
}

/// Writes a message on stderr, a line of its own, with its control characters removed
/// (`TerminalText`): messages carry names and SQL from plans and databases.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((TerminalText.message(text) + "\n").utf8))
}

func printOutput(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}
