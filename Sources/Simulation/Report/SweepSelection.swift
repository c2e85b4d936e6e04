/// Which points of a run a sweep replays (the `kill_sweep` option of docs/CONTRACT.md §2, and
/// Preflight's own `disk_full_sweep`): none, every one, or N spread evenly.
public enum SweepSelection: Sendable, Equatable, Codable {
    case off
    case all
    case count(Int)

    /// The most points N may ask for: every one of them is a full replay of the run.
    public static let maxCount = 100_000

    /// Parses `off`, `all` or a whole number from 1; nil for anything else.
    public init?(_ text: String) {
        switch text.lowercased() {
        case "off": self = .off
        case "all": self = .all
        default:
            guard let count = Int(text), (1...Self.maxCount).contains(count) else { return nil }
            self = .count(count)
        }
    }

    /// The points (ordinals from 1) to replay out of `total`: N of them spread evenly from
    /// the first to the last, or all of them when N is at least `total`.
    public func points(outOf total: Int) -> [Int] {
        switch self {
        case .off: return []
        case .all: return total > 0 ? Array(1...total) : []
        case .count(let count):
            guard total > 0 else { return [] }
            if count >= total { return Array(1...total) }
            if count == 1 { return [(total + 1) / 2] }
            return (0..<count).map { 1 + $0 * (total - 1) / (count - 1) }
        }
    }

    /// `"off"`, `"all"` or the number, as the report's `options` show it.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let count = try? container.decode(Int.self) {
            self = .count(count)
            return
        }
        let text = try container.decode(String.self)
        guard let selection = SweepSelection(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not off, all or a number")
        }
        self = selection
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .off: try container.encode("off")
        case .all: try container.encode("all")
        case .count(let count): try container.encode(count)
        }
    }
}
