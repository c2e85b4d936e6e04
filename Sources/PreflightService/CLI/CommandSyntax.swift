import CGetopt
import Glibc
import Synchronization

/// One command's command line, read by glibc's `getopt_long(3)` itself: `--flag value` and
/// `--flag=value`, an unambiguous prefix of a flag for the flag (`--watch` for
/// `--watchdog-ms`), `--` to end the options, operands anywhere among the options, and
/// `-h`/`--help` and `--version` for every command. Every command of `preflight` is read
/// by this one parser; nothing it does not know is ignored.
///
///     let syntax = CommandSyntax(command: "preflight serve", flags: [.init("config", value: "FILE")], usage: "...")
///     switch try syntax.parse(["--config=/etc/p.json"]) { ... }
public struct CommandSyntax: Sendable {
    public struct Flag: Sendable, Equatable {
        /// The flag's name without its `--`.
        public var name: String
        /// What its value is called in the usage (`FILE`); nil for a flag that takes none.
        public var value: String?
        /// Whether it may be given more than once, each value kept (`matrix --db A --db B`).
        public var repeatable: Bool

        public init(_ name: String, value: String?, repeatable: Bool = false) {
            self.name = name
            self.value = value
            self.repeatable = repeatable
        }
    }

    /// What a command line asks for.
    public enum Request: Sendable, Equatable {
        case help
        case version
        case run(Arguments)
    }

    /// `preflight run`: how messages and the usage name the command.
    public var command: String
    public var flags: [Flag]
    /// How many operands the command takes, and what they are called in messages.
    public var operands: ClosedRange<Int>
    public var operandName: String
    /// Whether the options end at the first operand, which is then a subcommand whose own
    /// syntax reads what follows (`preflight plan import ...`).
    public var operandIsSubcommand: Bool
    /// What `--help` prints.
    public var usage: String

    public init(
        command: String, flags: [Flag], operands: ClosedRange<Int> = 0...0, operandName: String = "",
        operandIsSubcommand: Bool = false, usage: String
    ) {
        self.command = command
        self.flags = flags
        self.operands = operands
        self.operandName = operandName
        self.operandIsSubcommand = operandIsSubcommand
        self.usage = usage
    }

    /// getopt's state is process-wide: one parse at a time.
    private static let getoptLock = Mutex(())

    /// Reads `arguments` (without the command's own words). An unknown flag, a flag
    /// without its value, a value given to a flag that takes none, a flag given twice and
    /// an operand too many or too few are errors; `--help` and `--version` win over what
    /// follows them.
    public func parse(_ arguments: [String]) throws(UsageError) -> Request {
        let known = flags + [Flag("help", value: nil), Flag("version", value: nil)]
        // A leading `+`: options end at the first operand (only for subcommands); `:`
        // tells a missing value apart from an unknown option.
        let optionLetters = (operandIsSubcommand ? "+" : "") + ":h"
        let parsed = try Self.getoptLock.withLock { _ throws(UsageError) -> Parsed in
            try Self.getopt(arguments, flags: known, optionLetters: optionLetters)
        }
        var result = Arguments()
        for (flag, value) in parsed.options {
            switch flag.name {
            case "help": return .help
            // A command whose own `--version` takes a value (`synthesize --version V`).
            case "version" where flag.value == nil: return .version
            default: break
            }
            if let value, flag.repeatable {
                result.lists[flag.name, default: []].append(value)
            } else if let value {
                guard result.values.updateValue(value, forKey: flag.name) == nil else {
                    throw UsageError("option --\(flag.name) is given twice")
                }
            } else {
                guard result.switches.insert(flag.name).inserted else { throw UsageError("option --\(flag.name) is given twice") }
            }
        }
        if let error = parsed.error { throw error }
        result.operands = parsed.operands
        if result.operands.count > operands.upperBound {
            let extra = result.operands[operands.upperBound]
            throw UsageError("unexpected argument \"\(extra)\"")
        }
        if result.operands.count < operands.lowerBound {
            throw UsageError("\(operandName) is missing")
        }
        return .run(result)
    }

    /// What getopt read, in order, up to its first error.
    private struct Parsed {
        var options: [(Flag, String?)] = []
        var operands: [String] = []
        var error: UsageError?
    }

    /// Long flags are told apart by their index + 256, above every option letter.
    private static let longFlagBase: Int32 = 256

    private static func getopt(_ arguments: [String], flags: [Flag], optionLetters: String) throws(UsageError) -> Parsed {
        let names = flags.map { strdup($0.name) }
        var argv = (["preflight"] + arguments).map { strdup($0) } + [nil]
        defer {
            names.forEach { free($0) }
            argv.forEach { free($0) }
        }
        let longOptions = flags.indices.map { index in
            option(
                name: names[index], has_arg: flags[index].value == nil ? no_argument : required_argument, flag: nil,
                val: longFlagBase + Int32(index))
        } + [option(name: nil, has_arg: 0, flag: nil, val: 0)]
        let count = Int32(arguments.count + 1)
        var parsed = Parsed()
        preflight_getopt_reset()
        while parsed.error == nil {
            let code = longOptions.withUnsafeBufferPointer { options in
                preflight_getopt_long(count, &argv, optionLetters, options.baseAddress)
            }
            if code == -1 { break }
            switch code {
            case longFlagBase...:
                let flag = flags[Int(code - longFlagBase)]
                parsed.options.append((flag, flag.value == nil ? nil : preflight_getopt_argument().map { String(cString: $0) }))
            case Int32(UInt8(ascii: "h")):
                parsed.options.append((Flag("help", value: nil), nil))
            case Int32(UInt8(ascii: ":")) where preflight_getopt_option() >= longFlagBase
                && flags[Int(preflight_getopt_option() - longFlagBase)].name == "version":
                // `--version` last, without its value: the versions, as every command answers.
                parsed.options.append((Flag("version", value: nil), nil))
            case Int32(UInt8(ascii: ":")):
                parsed.error = UsageError("option \(spelling(of: preflight_getopt_option(), flags: flags)) needs a value")
            default:
                let option = preflight_getopt_option()
                if option >= longFlagBase {
                    parsed.error = UsageError("option --\(flags[Int(option - longFlagBase)].name) takes no value")
                } else if option != 0 {
                    parsed.error = UsageError("unknown option -\(Character(Unicode.Scalar(UInt8(truncatingIfNeeded: option))))")
                } else {
                    // An unknown or ambiguous long option: getopt has stepped past it.
                    let element = argv[Int(preflight_getopt_index()) - 1].map { String(cString: $0) } ?? ""
                    parsed.error = unknownLongOption(element, flags: flags)
                }
            }
        }
        let first = Int(preflight_getopt_index())
        parsed.operands = argv[min(first, Int(count))..<Int(count)].compactMap { $0.map { String(cString: $0) } }
        return parsed
    }

    private static func spelling(of option: Int32, flags: [Flag]) -> String {
        option >= longFlagBase ? "--" + flags[Int(option - longFlagBase)].name : "-" + String(UnicodeScalar(UInt8(truncatingIfNeeded: option)))
    }

    /// `--bogus=1` is "unknown option --bogus"; a prefix of several flags names them.
    private static func unknownLongOption(_ element: String, flags: [Flag]) -> UsageError {
        let name = String(element.dropFirst(2).prefix { $0 != "=" })
        let candidates = flags.map(\.name).filter { $0.hasPrefix(name) }
        if candidates.count > 1 {
            return UsageError("option --\(name) is ambiguous: it could be \(candidates.map { "--" + $0 }.joined(separator: ", "))")
        }
        return UsageError("unknown option --\(name)")
    }
}

/// The flags and operands of a command line, as `CommandSyntax` read them.
public struct Arguments: Sendable, Equatable {
    /// Flags with a value, by name (without `--`).
    public fileprivate(set) var values: [String: String] = [:]
    /// Flags without a value that were given.
    public fileprivate(set) var switches: Set<String> = []
    public fileprivate(set) var operands: [String] = []
    /// Repeatable flags' values, in the order given.
    public fileprivate(set) var lists: [String: [String]] = [:]

    public func value(_ flag: String) -> String? { values[flag] }

    /// Every value of a repeatable flag, in order; none when it was not given.
    public func values(_ flag: String) -> [String] { lists[flag] ?? [] }

    public func isSet(_ flag: String) -> Bool { switches.contains(flag) }
}

/// A command line that cannot be run: exit status 2, with a message naming the flag as
/// the user wrote it.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// Whether `--help` would help: not for a plan or a file that is wrong in itself.
    public var suggestsHelp: Bool

    public init(_ message: String, suggestsHelp: Bool = true) {
        self.message = message
        self.suggestsHelp = suggestsHelp
    }

    public var description: String { message }
}
