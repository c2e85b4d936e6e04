import TestSupport

/// The literals inserted into each domain: the awkward values real databases hold (NULL,
/// the empty string, unicode, quotes, blobs, the 64-bit extremes, reals near the limits).
/// Nothing here reads the clock or `random()`: a history is the same on every run.
enum ValuePools {
    /// A literal and what kind of value it is, for the record of constructs.
    struct Value {
        var sql: String
        var kinds: [Construct] = []
    }

    static let integers: [Value] = [
        Value(sql: "0"), Value(sql: "1"), Value(sql: "42"), Value(sql: "-1", kinds: [.seedNegativeInteger]),
        Value(sql: "-77", kinds: [.seedNegativeInteger]),
        Value(sql: "9223372036854775807", kinds: [.seedBigInteger]),
        Value(sql: "-9223372036854775808", kinds: [.seedBigInteger, .seedNegativeInteger]),
        Value(sql: "9007199254740993", kinds: [.seedBigInteger]),
    ]

    static let counts: [Value] = [
        Value(sql: "0"), Value(sql: "3"), Value(sql: "1000000"),
        Value(sql: "9223372036854775807", kinds: [.seedBigInteger]),
    ]

    static let texts: [Value] = [
        Value(sql: "''", kinds: [.seedEmptyString]), Value(sql: "'plain'"), Value(sql: "'café'", kinds: [.seedUnicode]),
        Value(sql: "'日本語のテキスト'", kinds: [.seedUnicode]), Value(sql: "'emoji 🙂🚀'", kinds: [.seedUnicode]),
        Value(sql: "'O''Brien'"), Value(sql: "'line one\nline two'"), Value(sql: "'Ünïcödé façade naïve'", kinds: [.seedUnicode]),
        Value(sql: "'   padded   '"), Value(sql: "'12345'"), Value(sql: "'semi;colon -- and not a comment'"),
        Value(sql: "printf('%.*c', 5000, 'x')", kinds: [.seedLargeValue]),
    ]

    /// At most `SchemaRendering.shortTextLimit` characters each.
    static let shortTexts: [Value] = [
        Value(sql: "''", kinds: [.seedEmptyString]), Value(sql: "'short'"), Value(sql: "'Ωμέγα'", kinds: [.seedUnicode]),
        Value(sql: "'crème brûlée'", kinds: [.seedUnicode]), Value(sql: "'x'"),
    ]

    /// Few on purpose: rows share them. "alpha" and "Alpha" are one value under NOCASE.
    static let groups: [Value] = [
        Value(sql: "'alpha'"), Value(sql: "'Alpha'"), Value(sql: "'βήτα'", kinds: [.seedUnicode]), Value(sql: "'gamma'"),
    ]

    static let reals: [Value] = [
        Value(sql: "0.0", kinds: [.seedReal]), Value(sql: "-0.5", kinds: [.seedReal]),
        Value(sql: "3.14159", kinds: [.seedReal]), Value(sql: "1e300", kinds: [.seedReal]),
        Value(sql: "-2.5e-300", kinds: [.seedReal]), Value(sql: "123456789.125", kinds: [.seedReal]),
        Value(sql: "9e999", kinds: [.seedReal, .infiniteReal]), Value(sql: "-9e999", kinds: [.seedReal, .infiniteReal]),
    ]

    static let blobs: [Value] = [
        Value(sql: "X''", kinds: [.seedBlob]), Value(sql: "X'00'", kinds: [.seedBlob]),
        Value(sql: "X'DEADBEEF'", kinds: [.seedBlob]), Value(sql: "X'00FF00FF00'", kinds: [.seedBlob]),
        Value(sql: "zeroblob(3)", kinds: [.seedBlob]), Value(sql: "zeroblob(70000)", kinds: [.seedBlob, .seedLargeValue]),
    ]

    /// The defaults a column of the domain may declare (never NULL).
    static func defaults(for domain: Domain) -> [String] {
        switch domain {
        case .integer: return ["0", "-1", "42"]
        case .count: return ["0", "1"]
        case .flag: return ["0", "1"]
        case .text: return ["''", "'none'", "'café'"]
        case .shortText: return ["''", "'n/a'"]
        case .group: return ["'alpha'", "'gamma'"]
        case .real: return ["0.0", "1.5", "-2.25"]
        case .blob: return ["X''", "X'00'"]
        case .mixed: return ["0", "''", "X'01'"]
        case .uniqueText, .uniqueInteger, .uniqueBlob, .uniqueReal, .uniqueMixed, .reference: return []
        }
    }
}

/// Hands out values no earlier statement of the history inserted, for keys and UNIQUE
/// columns: every one carries a number drawn once.
struct FreshValues {
    private var next = 1
    /// The 64-bit extremes, each handed out once per history.
    private var extremes = ["9223372036854775807", "-9223372036854775808"]
    private var infinityUsed = false

    mutating func number() -> Int {
        defer { next += 1 }
        return next
    }

    /// A text key: distinct from every other one even under NOCASE (the number differs).
    mutating func text(_ rng: inout SplitMix64) -> String {
        let prefix = rng.pick(["key", "Clé", "ключ", "鍵", "k e y"], or: "key")
        return SQLSyntax.string("\(prefix)-\(number())")
    }

    /// An integer key; `positive` for AUTOINCREMENT tables, whose counter negative ids do
    /// not move. Never below a million when positive: keys SQLite assigned in a table that
    /// later takes given keys (made WITHOUT ROWID) count from 1.
    ///
    /// `extremes`: the largest and smallest integers may come out (once each), where SQLite
    /// never has to assign a key after them (it would pick a random one after the largest).
    mutating func integer(_ rng: inout SplitMix64, positive: Bool, extremes allowed: Bool = false) -> String {
        if allowed, !extremes.isEmpty, rng.chance(8) { return extremes.removeFirst() }
        let n = number()
        switch positive ? rng.int(0...1) : rng.int(0...3) {
        case 0: return String(1_000_000 + n * 10 + 3)
        case 1: return String(4_000_000_000_000_000_000 + n)
        case 2: return String(-(n * 10 + 7))
        default: return String(-4_000_000_000_000_000_000 - n)
        }
    }

    /// A blob key: the number's digits as bytes.
    mutating func blob() -> String {
        "X'" + String(number()).utf8.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined() + "'"
    }

    /// A real key, never equal to an integer (SQLite compares 2 and 2.0 as equal); once
    /// per history perhaps infinity (9e999 overflows to it), the greatest key of all.
    mutating func real(_ rng: inout SplitMix64) -> String {
        if !infinityUsed, rng.chance(10) {
            infinityUsed = true
            return "9e999"
        }
        let n = number()
        return rng.chance(50) ? "\(n).5" : "-\(n).25"
    }

    /// Any of the above, for a key column without a type.
    mutating func mixed(_ rng: inout SplitMix64) -> String {
        switch rng.int(0...3) {
        case 0: return integer(&rng, positive: false)
        case 1: return text(&rng)
        case 2: return blob()
        default: return real(&rng)
        }
    }
}
