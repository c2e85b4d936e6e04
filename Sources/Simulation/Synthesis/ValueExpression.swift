import MigrationCore

/// The SQL that computes one column's value for row `n` inside SQLite. Every expression
/// reads only the counter's two columns: `preflight_counter.n`, the row number 1...N, and `preflight_counter.h`, the state of
/// a seeded MINSTD stream (h' = h * 48271 mod 2^31-1, which never overflows 64-bit
/// integers), and the text pool bound as `?1` (a blob). Integer arithmetic, and texts cut
/// from the pool by one function (`PoolText`): the same seed gives the same values on any
/// machine.
enum ValueExpression {
    static let modulus: Int64 = 2_147_483_647
    /// The stream's multiplier (Park and Miller's MINSTD).
    static let streamMultiplier: Int64 = 48271
    /// Text and blobs start anywhere in the pool's first `poolWindow` bytes.
    static let poolWindow = 4096
    /// The longest text or blob made (a longer sample length is cut to it).
    static let maxLength = 1_000_000

    /// A value in 0..<modulus for `salt` (each column draws with salts of its own): a
    /// fixed multiple of the row's stream state, so columns differ while staying one
    /// function of (seed, row).
    static func draw(_ salt: Int) -> String { "(preflight_counter.h * \(multiplier(salt)) % \(modulus))" }

    /// A constant in 1..<modulus for `salt` (SplitMix64 of it).
    static func multiplier(_ salt: Int) -> Int64 {
        Int64(splitMix(UInt64(truncatingIfNeeded: salt) &+ 0x5EED) % UInt64(modulus - 1)) + 1
    }

    /// The stream's state `steps` rows after `state`: state * multiplier^steps mod modulus.
    static func advanced(_ state: Int64, by steps: Int) -> Int64 {
        var result = state % modulus
        var factor = streamMultiplier
        var remaining = steps
        while remaining > 0 {
            // Both factors stay below 2^31: their product fits in 64 bits.
            if remaining & 1 == 1 { result = result * factor % modulus }
            factor = factor * factor % modulus
            remaining >>= 1
        }
        return result
    }

    static func splitMix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The pool texts are cut from: lowercase words and spaces, the same for every seed
    /// (the seed moves where each value starts), `length` bytes.
    static func pool(length: Int) -> [UInt8] {
        let letters = Array("abcdefghijklmnopqrstuvwxyz    ".utf8)
        var state: UInt64 = 0x0123_4567
        return (0..<length).map { _ in
            state = splitMix(state)
            return letters[Int(state % UInt64(letters.count))]
        }
    }

    // MARK: - Values

    /// A value that differs for every row, computed from `row` (SQL) alone, so that a
    /// child's foreign key can name the same value from the parent's row number.
    static func distinct(_ shape: ColumnShape, bounds: CheckConstraint.Bounds?, row: String) -> String {
        switch shape.kind {
        case .integer:
            let low = bounds.flatMap { bounds in
                bounds.lower.map { Int64(bounds.lowerStrict ? $0.rounded(.down) + 1 : $0.rounded(.up)) }
            } ?? 1
            return low == 1 ? row : "(\(row) + \(low - 1))"
        case .real:
            return "(\(row) + 0.5)"
        case .text:
            return "(\(PoolText.call(draw: "(\(row) * 7919)", lengths: lengthRange(shape, nil))) || '#' || \(row))"
        case .blob:
            return "CAST(\(PoolText.call(draw: "(\(row) * 7919)", lengths: lengthRange(shape, nil))) || '#' || \(row) AS BLOB)"
        }
    }

    /// A value drawn for the row: one of the CHECK's `IN` list, or of the sample's few
    /// values, or within the shape's range or lengths narrowed by the CHECKs' bounds.
    /// `distinctValues`: how many different values the column may take (its sample's
    /// share of distinct values times the rows), nil for no limit.
    static func drawn(
        _ shape: ColumnShape, facts: ColumnFacts, salt: Int, distinctValues: Int?
    ) -> String {
        var source = draw(salt)
        if let distinctValues, distinctValues > 0 {
            // Row n takes value n mod D: each of the D values is used (a random pick of D
            // would leave about a third of them out), and the multiplier scatters them.
            source = "((preflight_counter.n % \(distinctValues) + 1) * \(multiplier(salt + 1)) % \(modulus))"
        }
        if let allowed = facts.allowed, !allowed.isEmpty {
            return choice(allowed.map { ($0, 1) }, source: source)
        }
        if !shape.commonValues.isEmpty {
            return choice(shape.commonValues.map { ($0.literal, $0.count) }, source: source)
        }
        let kind: ColumnShape.Kind = facts.valueBounds != nil && (shape.kind == .text || shape.kind == .blob) ? .integer : shape.kind
        switch kind {
        case .integer:
            let (low, high) = integerRange(shape, facts.valueBounds)
            let span = high - low + 1
            if span <= modulus { return "(\(low) + \(source) % \(span))" }
            return "min(\(high), \(low) + CAST(\(source) / \(Double(modulus)) * \(Double(span)) AS INTEGER))"
        case .real:
            let (low, high) = realRange(shape, facts.valueBounds)
            return "(\(low) + \(source) * \(high - low) / \(Double(modulus)))"
        case .text:
            return PoolText.call(draw: source, lengths: lengthRange(shape, facts.lengthBounds))
        case .blob:
            return "CAST(\(PoolText.call(draw: source, lengths: lengthRange(shape, facts.lengthBounds))) AS BLOB)"
        }
    }

    /// `value`, or NULL for the shape's share of rows.
    static func nullable(_ value: String, fraction: Double, salt: Int) -> String {
        let threshold = Int((fraction * 1_000_000).rounded())
        guard threshold > 0 else { return value }
        return "CASE WHEN \(draw(salt)) % 1000000 < \(threshold) THEN NULL ELSE \(value) END"
    }

    /// One of `options` (SQL literals with weights), chosen by `source`.
    private static func choice(_ options: [(String, Int)], source: String) -> String {
        let total = options.reduce(0) { $0 + max(1, $1.1) }
        guard options.count > 1 else { return options[0].0 }
        var cumulative = 0
        var cases = ""
        for (literal, weight) in options.dropLast() {
            cumulative += max(1, weight)
            cases += " WHEN \(source) % \(total) < \(cumulative) THEN \(literal)"
        }
        return "CASE\(cases) ELSE \(options[options.count - 1].0) END"
    }

    /// Lengths whose mean is the shape's, inside its smallest and largest (uniform over a
    /// range centred on the mean), then narrowed by a CHECK's bounds on `length()`.
    static func lengthRange(_ shape: ColumnShape, _ bounds: CheckConstraint.Bounds?) -> ClosedRange<Int> {
        let low = max(0, shape.minLength), high = min(maxLength, max(shape.maxLength, low))
        let mean = min(Double(high), max(Double(low), shape.meanLength))
        var range = 2 * mean - Double(low) <= Double(high)
            ? low...Int((2 * mean - Double(low)).rounded()) : Int((2 * mean - Double(high)).rounded())...high
        if let bounds {
            let checkLow = max(0, bounds.lower.map { Int(bounds.lowerStrict ? $0.rounded(.down) + 1 : $0.rounded(.up)) } ?? 0)
            let checkHigh = bounds.upper.map { Int(bounds.upperStrict ? $0.rounded(.up) - 1 : $0.rounded(.down)) } ?? maxLength
            let low = max(range.lowerBound, checkLow), high = min(range.upperBound, checkHigh)
            // The shape's lengths miss the check's: the check's own lengths win.
            range = low <= high ? low...high : checkLow...max(checkLow, min(checkHigh, checkLow + 32))
        }
        return max(0, range.lowerBound)...min(maxLength, max(0, range.upperBound))
    }

    private static func integerRange(_ shape: ColumnShape, _ bounds: CheckConstraint.Bounds?) -> (Int64, Int64) {
        var low = Int64(shape.minValue.rounded(.down)), high = Int64(shape.maxValue.rounded(.up))
        guard let bounds else { return (low, max(low, high)) }
        let checkLow = bounds.lower.map { Int64(bounds.lowerStrict ? $0.rounded(.down) + 1 : $0.rounded(.up)) }
        let checkHigh = bounds.upper.map { Int64(bounds.upperStrict ? $0.rounded(.up) - 1 : $0.rounded(.down)) }
        if let checkLow { low = max(low, checkLow) }
        if let checkHigh { high = min(high, checkHigh) }
        if low > high {
            // The shape's range misses the check's: the check's own range wins.
            low = checkLow ?? ((checkHigh ?? 0) - 1000)
            high = checkHigh ?? (low + 1000)
        }
        return (low, high)
    }

    private static func realRange(_ shape: ColumnShape, _ bounds: CheckConstraint.Bounds?) -> (Double, Double) {
        var low = shape.minValue, high = shape.maxValue
        guard let bounds else { return (low, max(low, high)) }
        let margin = 1e-6
        if let lower = bounds.lower { low = max(low, lower + (bounds.lowerStrict ? margin : 0)) }
        if let upper = bounds.upper { high = min(high, upper - (bounds.upperStrict ? margin : 0)) }
        if low > high {
            low = bounds.lower.map { $0 + margin } ?? ((bounds.upper ?? 0) - 1000)
            high = bounds.upper.map { $0 - margin } ?? (low + 1000)
        }
        return (low, high)
    }
}

/// What a table's CHECKs say about one column, merged over all of them.
struct ColumnFacts {
    var allowed: [String]?
    var valueBounds: CheckConstraint.Bounds?
    var lengthBounds: CheckConstraint.Bounds?

    init(column: String, checks: [CheckConstraint]) {
        let key = column.lowercased()
        for check in checks {
            if let list = check.allowed[key] { allowed = allowed.map { $0.filter(list.contains) } ?? list }
            if let bounds = check.valueBounds[key] {
                var merged = valueBounds ?? .init()
                merged.narrow(bounds)
                valueBounds = merged
            }
            if let bounds = check.lengthBounds[key] {
                var merged = lengthBounds ?? .init()
                merged.narrow(bounds)
                lengthBounds = merged
            }
        }
    }
}
