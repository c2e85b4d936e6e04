/// A benchmark's `--name value` options and `--flag`s, from its command line. Anything
/// else is refused: a mistyped or unknown option would otherwise run the whole benchmark,
/// minutes of it, on the defaults.
struct BenchmarkOptions {
    private let values: [String: String]
    private let flags: Set<String>

    /// - Parameters:
    ///   - valued: the options that take a value (`--runs`).
    ///   - flags: the options that stand alone (`--scaling`).
    init(arguments: [String], valued: Set<String>, flags knownFlags: Set<String> = []) throws {
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var rest = arguments[...]
        while let name = rest.popFirst() {
            if knownFlags.contains(name) {
                flags.insert(name)
            } else if valued.contains(name) {
                guard let value = rest.popFirst() else { throw BenchError("\(name) needs a value") }
                values[name] = value
            } else {
                let known = (valued.map { $0 + " VALUE" } + knownFlags).sorted().joined(separator: ", ")
                throw BenchError("unknown option \(name); this benchmark takes \(known)")
            }
        }
        self.values = values
        self.flags = flags
    }

    /// The value given for `name`, or nil when it was not given.
    func string(_ name: String) -> String? { values[name] }

    /// The whole number given for `name`, or nil when it was not given.
    func integer(_ name: String) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text) else { throw BenchError("\(name) must be a whole number, got \(text)") }
        return value
    }

    func isSet(_ flag: String) -> Bool { flags.contains(flag) }
}
