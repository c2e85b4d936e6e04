/// Which crash states a power-loss sweep opens (docs/CONTRACT.md §2 `power_loss_sweep`): none,
/// every one, N of them spread evenly over the run's points, or one state alone, named
/// `POINT:STATE` as the report names a failure, to replay it.
public enum PowerLossSelection: Sendable, Equatable, Codable {
    case states(SweepSelection)
    case replay(point: Int, state: String)

    public static let off = PowerLossSelection.states(.off)

    /// Parses `off`, `all`, a whole number from 1, or `POINT:STATE`; nil for anything else.
    public init?(_ text: String) {
        if let colon = text.firstIndex(of: ":") {
            guard let point = Int(text[..<colon]), point >= 1 else { return nil }
            let state = String(text[text.index(after: colon)...])
            guard CrashState(id: state) != nil else { return nil }
            self = .replay(point: point, state: state)
            return
        }
        guard let selection = SweepSelection(text) else { return nil }
        self = .states(selection)
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let count = try? container.decode(Int.self) {
            self = .states(.count(count))
            return
        }
        let text = try container.decode(String.self)
        guard let selection = PowerLossSelection(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text)\" is not off, all, a number or POINT:STATE")
        }
        self = selection
    }

    public func encode(to encoder: Encoder) throws {
        switch self {
        case .states(let selection): try selection.encode(to: encoder)
        case .replay(let point, let state):
            var container = encoder.singleValueContainer()
            try container.encode("\(point):\(state)")
        }
    }
}
