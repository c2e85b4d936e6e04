import MigrationCore

/// One CHECK constraint of a table: its expression as written, the columns it names, and
/// what its simple conjuncts say about single columns (`status IN ('a', 'b')`,
/// `rating BETWEEN 1 AND 5`, `n >= 0`, `length(code) <= 8`), so that the generator makes
/// values that meet it from the start. Anything else is still held: a row that violates
/// it is regenerated (`TableFill`).
struct CheckConstraint {
    /// The expression inside `CHECK ( ... )`, as written.
    var expression: String
    /// The table's columns the expression names.
    var columns: [String]
    /// Per column (lowercased): the SQL literals of an `IN` list.
    var allowed: [String: [String]] = [:]
    /// Per column (lowercased): bounds on the value.
    var valueBounds: [String: Bounds] = [:]
    /// Per column (lowercased): bounds on `length(column)`.
    var lengthBounds: [String: Bounds] = [:]

    /// Inclusive numeric bounds; a strict `>`/`<` is kept as a flag for the generator.
    struct Bounds {
        var lower: Double?
        var upper: Double?
        var lowerStrict = false
        var upperStrict = false

        mutating func narrow(_ other: Bounds) {
            if let low = other.lower, lower.map({ low >= $0 }) ?? true { (lower, lowerStrict) = (low, other.lowerStrict) }
            if let high = other.upper, upper.map({ high <= $0 }) ?? true { (upper, upperStrict) = (high, other.upperStrict) }
        }
    }
}

extension CheckConstraint {
    /// The CHECK constraints of `statement`, read against the table's `columns` (as the
    /// pragmas name them).
    static func read(_ statement: CreateTableStatement, columns: [String]) -> [CheckConstraint] {
        let tokenizer = statement.tokenizer
        let columnNames = Dictionary(columns.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        return statement.checks.compactMap { written in
            guard !written.tokens.isEmpty else { return nil }
            let named = written.tokens.compactMap { columnName($0, tokenizer, columnNames) }
            var check = CheckConstraint(
                expression: written.text, columns: named.reduce(into: []) { if !$0.contains($1) { $0.append($1) } })
            readConjuncts(written.tokens, tokenizer, columnNames, into: &check)
            return check
        }
    }

    private static func columnName(_ token: SQLToken, _ tokenizer: SQLTokenizer, _ columns: [String: String]) -> String? {
        guard [.identifier, .quotedIdentifier, .keyword].contains(token.kind) else { return nil }
        return columns[tokenizer.unquoted(token).lowercased()]
    }

    /// Splits the expression at its top-level ANDs (not BETWEEN's) and reads each simple
    /// conjunct; an OR at the top level makes none of them binding on its own.
    private static func readConjuncts(
        _ tokens: [SQLToken], _ tokenizer: SQLTokenizer, _ columns: [String: String], into check: inout CheckConstraint
    ) {
        var conjuncts: [[SQLToken]] = [[]]
        var depth = 0
        var inBetween = false
        for token in tokens {
            if tokenizer.matches(token, "(") { depth += 1 }
            if tokenizer.matches(token, ")") { depth -= 1 }
            if depth == 0, token.kind == .keyword {
                if tokenizer.matches(token, "OR") { return }
                if tokenizer.matches(token, "BETWEEN") { inBetween = true }
                if tokenizer.matches(token, "AND") {
                    if inBetween {
                        inBetween = false
                    } else {
                        conjuncts.append([])
                        continue
                    }
                }
            }
            conjuncts[conjuncts.count - 1].append(token)
        }
        for conjunct in conjuncts {
            ConjunctReader(tokens: conjunct, tokenizer: tokenizer, columns: columns).read(into: &check)
        }
    }
}

/// One conjunct of a CHECK, matched against the simple forms the generator can meet.
private struct ConjunctReader {
    var tokens: [SQLToken]
    var tokenizer: SQLTokenizer
    var columns: [String: String]

    func read(into check: inout CheckConstraint) {
        // length(column) <op> number | length(column) BETWEEN a AND b
        if tokens.count >= 4, tokenizer.matches(tokens[0], "length"), tokenizer.matches(tokens[1], "("),
            let column = column(at: 2), tokenizer.matches(tokens[3], ")"), let bounds = comparison(from: 4)
        {
            check.lengthBounds[column.lowercased(), default: .init()].narrow(bounds)
            return
        }
        guard let column = column(at: 0) else { return }
        let key = column.lowercased()
        if tokens.count >= 4, tokenizer.matches(tokens[1], "IN"), tokenizer.matches(tokens[2], "("),
            let values = literalList(from: 3)
        {
            check.allowed[key] = values
        } else if let bounds = comparison(from: 1) {
            check.valueBounds[key, default: .init()].narrow(bounds)
        }
    }

    private func column(at index: Int) -> String? {
        guard index < tokens.count, [.identifier, .quotedIdentifier, .keyword].contains(tokens[index].kind) else { return nil }
        return columns[tokenizer.unquoted(tokens[index]).lowercased()]
    }

    /// `<op> number` or `BETWEEN a AND b` from `index` to the end of the conjunct.
    private func comparison(from index: Int) -> CheckConstraint.Bounds? {
        guard index < tokens.count else { return nil }
        if tokenizer.matches(tokens[index], "BETWEEN"), let (low, next) = number(at: index + 1), next < tokens.count,
            tokenizer.matches(tokens[next], "AND"), let (high, end) = number(at: next + 1), end == tokens.count
        {
            return .init(lower: low, upper: high)
        }
        guard let (value, end) = number(at: index + 1), end == tokens.count else { return nil }
        switch tokenizer.text(tokens[index]) {
        case ">=": return .init(lower: value)
        case ">": return .init(lower: value, lowerStrict: true)
        case "<=": return .init(upper: value)
        case "<": return .init(upper: value, upperStrict: true)
        case "=", "==": return .init(lower: value, upper: value)
        default: return nil
        }
    }

    /// A number, with its sign, and the index after it.
    private func number(at index: Int) -> (Double, Int)? {
        guard index < tokens.count else { return nil }
        var sign = 1.0
        var at = index
        if tokenizer.matches(tokens[at], "-") || tokenizer.matches(tokens[at], "+") {
            sign = tokenizer.matches(tokens[at], "-") ? -1 : 1
            at += 1
        }
        guard at < tokens.count, tokens[at].kind == .number, let value = Double(tokenizer.text(tokens[at])) else { return nil }
        return (sign * value, at + 1)
    }

    /// `lit, lit, ...)`: the literals as written, or nil when any element is not one.
    private func literalList(from index: Int) -> [String]? {
        var values: [String] = []
        var at = index
        while at < tokens.count {
            var literal = ""
            if tokenizer.matches(tokens[at], "-"), at + 1 < tokens.count, tokens[at + 1].kind == .number {
                literal = "-" + tokenizer.text(tokens[at + 1])
                at += 2
            } else if [.string, .number, .blob].contains(tokens[at].kind) {
                literal = tokenizer.text(tokens[at])
                at += 1
            } else {
                return nil
            }
            values.append(literal)
            guard at < tokens.count else { return nil }
            if tokenizer.matches(tokens[at], ")") { return at + 1 == tokens.count && !values.isEmpty ? values : nil }
            guard tokenizer.matches(tokens[at], ",") else { return nil }
            at += 1
        }
        return nil
    }
}
