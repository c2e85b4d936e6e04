/// A benchmark's `--name value` options, from its command line.
struct BenchmarkOptions {
    let arguments: [String]

    /// The value after `name`, or nil when `name` is absent or last.
    func string(_ name: String) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    func integer(_ name: String) -> Int? {
        string(name).flatMap { Int($0) }
    }
}
