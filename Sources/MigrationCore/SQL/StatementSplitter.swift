/// Where a script's statements end, as `sqlite3_complete` decides (SQLite's complete.c):
/// at every `;` outside a trigger body, and in `CREATE [TEMP] TRIGGER ... BEGIN ... END;`
/// only at the `;` of the closing `; END;` (a `CASE ... END` inside the body does not end it).
///
/// complete.c runs an eight-state machine over its own rough scan of the text; here the
/// same machine, transition for transition, reads `SQLTokenizer`'s tokens, in one pass.
/// Calling `sqlite3_complete` at each `;` instead rescans the statement so far every time,
/// which is quadratic in a literal full of semicolons.
///
/// Where complete.c's scan and the tokenizer disagree, this follows the tokenizer, which is
/// what the parser (and so `sqlite3_prepare`'s tail) reads: a vertical tab after other
/// whitespace and a UTF-8 byte order mark are whitespace (complete.c: a word), so
/// `CREATE \u{0B}TRIGGER` and `\u{FEFF}CREATE TRIGGER` start triggers; `@end`, `:end` and
/// `#end` are parameters (complete.c: a mark and the keyword END).
extension SQLTokenizer {
    /// The statements of the text as byte ranges, in order: each without the `;` that ends
    /// it and without the whitespace around it (comments stay); a run of nothing but
    /// whitespace, comments and `;` is no statement. Linear in the length of the text.
    public func statementRanges() -> [Range<Int>] {
        var statements: [Range<Int>] = []
        var state = StatementState.nothing
        // The current statement: where its first token other than whitespace starts, where
        // its last one other than whitespace or `;` ends, and whether it has a token other
        // than a comment or `;`.
        var start: Int?
        var end = 0
        var hasContent = false
        for token in self {
            let input = StatementInput(token, in: self)
            state = state.next(input)
            if input == .semicolon && state == .start {
                if let start, hasContent { statements.append(start..<end) }
                start = nil
                hasContent = false
                continue
            }
            guard token.kind != .whitespace else { continue }
            if start == nil { start = token.range.lowerBound }
            guard input != .semicolon else { continue }
            end = token.range.upperBound
            if token.kind != .comment { hasContent = true }
        }
        if let start, hasContent { statements.append(start..<end) }
        return statements
    }
}

/// complete.c's token classes: tkSEMI, tkWS, tkOTHER and the five words that matter.
private enum StatementInput: Int {
    case semicolon, whitespace, other, explain, create, temp, trigger, end

    init(_ token: SQLToken, in tokenizer: SQLTokenizer) {
        switch token.kind {
        case .whitespace, .comment:
            self = .whitespace
        case .punctuation where tokenizer.matches(token, ";"):
            self = .semicolon
        case .keyword, .identifier:
            if tokenizer.matches(token, "CREATE") {
                self = .create
            } else if tokenizer.matches(token, "TEMP") || tokenizer.matches(token, "TEMPORARY") {
                self = .temp
            } else if tokenizer.matches(token, "TRIGGER") {
                self = .trigger
            } else if tokenizer.matches(token, "END") {
                self = .end
            } else if tokenizer.matches(token, "EXPLAIN") {
                self = .explain
            } else {
                self = .other
            }
        default:
            self = .other
        }
    }
}

/// complete.c's states: (0) nothing seen yet, (1) at the start of a statement, (2) inside
/// one that a `;` ends, (3) after EXPLAIN, (4) after CREATE [TEMP], (5) inside a trigger,
/// (6) after a `;` inside a trigger, (7) after `; END` inside a trigger.
private enum StatementState: Int {
    case nothing, start, normal, explain, create, trigger, semicolon, end

    /// complete.c's `trans[state][token]`, row by row.
    private static let transitions: [[StatementState]] = [
        //            SEMI        WS          OTHER    EXPLAIN   CREATE   TEMP     TRIGGER   END
        /* nothing */ [.start, .nothing, .normal, .explain, .create, .normal, .normal, .normal],
        /* start */ [.start, .start, .normal, .explain, .create, .normal, .normal, .normal],
        /* normal */ [.start, .normal, .normal, .normal, .normal, .normal, .normal, .normal],
        /* explain */ [.start, .explain, .explain, .normal, .create, .normal, .normal, .normal],
        /* create */ [.start, .create, .normal, .normal, .normal, .create, .trigger, .normal],
        /* trigger */ [.semicolon, .trigger, .trigger, .trigger, .trigger, .trigger, .trigger, .trigger],
        /* semicolon */ [.semicolon, .semicolon, .trigger, .trigger, .trigger, .trigger, .trigger, .end],
        /* end */ [.start, .end, .trigger, .trigger, .trigger, .trigger, .trigger, .trigger],
    ]

    func next(_ input: StatementInput) -> StatementState {
        Self.transitions[rawValue][input.rawValue]
    }
}
