import Simulation

/// `--synthesis-cache DIR|off` and `--synthesis-cache-bytes N`, shared by `preflight
/// synthesize`, `matrix` and `capacity`: where synthesized files are kept for reuse and
/// how much they may take (docs/synthesis.md, "The synthesis cache"). Without them, the
/// service's `synthesis_cache_dir` and `synthesis_cache_bytes` (their defaults, or
/// `PREFLIGHT_SYNTHESIS_CACHE_DIR` and `PREFLIGHT_SYNTHESIS_CACHE_BYTES`).
enum SynthesisCacheFlags {
    static let flags: [CommandSyntax.Flag] = [
        .init("synthesis-cache", value: "DIR|off"), .init("synthesis-cache-bytes", value: "N"),
    ]

    /// The flags' lines of a usage, each explanation starting at `column` (after the
    /// two spaces that start a flag's line).
    static func usage(column: Int) -> String {
        let explained: [(flag: String, lines: [String])] = [
            ("--synthesis-cache DIR|off", [
                "keep synthesized files in DIR and reuse them (default: the service's",
                "synthesis_cache_dir, a folder under TMPDIR); off: make every file anew",
            ]),
            ("--synthesis-cache-bytes N", [
                "the most the kept files take together, the least recently used going",
                "first (default: the service's synthesis_cache_bytes, 4 GiB); 0: off",
            ]),
        ]
        let indent = String(repeating: " ", count: column + 2)
        return explained.map { flag, lines in
            let first = flag.count < column ? "  " + flag.padding(toLength: column, withPad: " ", startingAt: 0) + lines[0]
                : "  " + flag + "\n" + indent + lines[0]
            return ([first] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// The cache the command line asks for; nil when it is off.
    static func cache(_ arguments: Arguments) throws(UsageError) -> SynthesisCache? {
        var (directory, bytes): (String, Int)
        do throws(ConfigurationError) {
            (directory, bytes) = try ServiceConfiguration.synthesisCacheSettings()
        } catch {
            throw UsageError(error.description, suggestsHelp: false)
        }
        if let text = arguments.value("synthesis-cache-bytes") {
            guard let value = Int(text), value >= 0 else {
                throw UsageError("--synthesis-cache-bytes must be a whole number of bytes from 0 up, got \"\(text)\"")
            }
            bytes = value
        }
        if let text = arguments.value("synthesis-cache") {
            guard text != "off" else { return nil }
            guard !text.isEmpty else { throw UsageError("--synthesis-cache takes a folder or off, got \"\"") }
            directory = text
        }
        return bytes == 0 ? nil : SynthesisCache(directory: directory, maxBytes: Int64(bytes))
    }
}
