/// What one Room migration's code runs, read without running it: the SQL of its `execSQL`
/// calls in order, and for everything that cannot be read so (SQL built at run time, a call
/// inside a loop or a condition, a helper that is handed the database), a note naming the
/// file and line that a person must review. Nothing is dropped without a note.
///
/// Android's `execSQL` (and androidx.sqlite's) prepares only the first statement of the
/// text it is given and ignores the rest, so only that one is kept, with a note.
struct MigrationBody: Equatable {
    var statements: [String] = []
    /// What a person must check by hand: `file:line: what and why`.
    var reviews: [String] = []
    /// What a person should know but that the plan follows exactly.
    var notes: [String] = []

    /// The body between the braces at `open` and its closing one; `file` names it in notes.
    /// Where it declares `fun migrate(...)` (or Java's `void migrate(...)`, or a spec's
    /// `onPostMigrate`), only that function is read.
    static func read(_ tokens: SourceTokens, open: Int, close: Int, constants: [String: String], file: String) -> MigrationBody {
        var reader = Reader(tokens: tokens, constants: constants, file: file)
        var range = (open + 1)..<close
        for name in ["migrate", "onPostMigrate"] {
            if let function = reader.function(named: name, in: range) {
                range = function
                break
            }
        }
        reader.databaseNames = reader.parameterNames(open: open, close: close)
        reader.read(range)
        return reader.body
    }
}

private struct Reader {
    let tokens: SourceTokens
    var constants: [String: String]
    let file: String
    var body = MigrationBody()
    /// The names the database goes by in the body (`db`, `database`, a lambda's `it`).
    var databaseNames: Set<String> = []

    init(tokens: SourceTokens, constants: [String: String], file: String) {
        self.tokens = tokens
        self.constants = constants
        self.file = file
    }

    /// The body of `fun NAME(...) {` or `void NAME(...) {` inside `range`.
    func function(named name: String, in range: Range<Int>) -> Range<Int>? {
        for index in range where tokens.is(index, name) && tokens.is(index + 1, "(") && (tokens.is(index - 1, "fun") || tokens.is(index - 1, "void")) {
            guard let parameters = tokens.closing(index + 1) else { return nil }
            var open = parameters + 1
            // `: Unit`, Java's `throws X`: up to the brace.
            while open < range.upperBound, !tokens.is(open, "{"), !tokens.is(open, "=") { open += 1 }
            if tokens.is(open, "="), open + 1 < range.upperBound {
                // `fun migrate(db) = db.run { ... }`: one expression, to the end of its line
                // or of the brackets it opens there.
                var end = open + 1
                while end < range.upperBound, tokens[end].line == tokens[open].line {
                    if tokens.is(end, "{") || tokens.is(end, "("), let close = tokens.closing(end), close < range.upperBound {
                        end = close + 1
                    } else {
                        end += 1
                    }
                }
                return (open + 1)..<end
            }
            guard open < range.upperBound, let close = tokens.closing(open) else { return nil }
            return (open + 1)..<close
        }
        return nil
    }

    /// The database parameter's names: `migrate(db: ...)`, Java's `migrate(... database)`,
    /// a lambda's `{ db ->` (or `it`).
    func parameterNames(open: Int, close: Int) -> Set<String> {
        var names: Set<String> = []
        if tokens[open + 1].kind == .identifier, tokens.is(open + 2, "->") {
            names.insert(tokens[open + 1].text)
        } else if !(open + 1..<close).contains(where: { tokens.is($0, "fun") || tokens.is($0, "void") }) {
            names.insert("it")
        }
        for index in open..<close where (tokens.is(index, "migrate") || tokens.is(index, "onPostMigrate")) && tokens.is(index + 1, "(") {
            guard let end = tokens.closing(index + 1), end - 1 > index + 1 else { continue }
            if tokens.language == .java {
                if tokens[end - 1].kind == .identifier { names.insert(tokens[end - 1].text) }
            } else if tokens[index + 2].kind == .identifier, tokens.is(index + 3, ":") {
                names.insert(tokens[index + 2].text)
            }
        }
        return names
    }

    private func place(_ index: Int) -> String { "\(file):\(tokens[index].line)" }

    private func source(_ range: Range<Int>) -> String {
        var text = ""
        for index in range {
            let token = tokens[index]
            if !text.isEmpty, token.kind == .identifier || token.kind == .number, let last = text.last, last.isLetter || last.isNumber {
                text += " "
            }
            switch token.kind {
            case .string:
                let quote = token.isRaw ? "\"\"\"" : "\""
                text += quote + token.parts.map { part -> String in
                    switch part {
                    case .text(let piece): return piece.replacingOccurrences(of: "\n", with: " ")
                    case .template(let source): return "${\(source)}"
                    }
                }.joined() + quote
            case .character: text += "'\(token.text)'"
            default: text += token.text
            }
        }
        return text.count > 100 ? String(text.prefix(97)) + "..." : text
    }

    /// How a block changes whether what is inside it runs.
    enum Block { case plain, loop, condition, guarded, deferred }

    mutating func read(_ range: Range<Int>) {
        var blocks: [(close: Int, kind: Block, what: String)] = []
        var index = range.lowerBound
        while index < range.upperBound {
            blocks.removeAll { $0.close < index }
            let token = tokens[index]
            if tokens.is(index, "{"), let close = tokens.closing(index) {
                let (kind, what) = blockKind(open: index)
                blocks.append((close, kind, what))
                index += 1
                continue
            }
            if token.kind == .identifier, tokens.is(index + 1, "=") || (tokens.is(index + 1, ":") && tokens.is(index + 3, "=")) {
                declareLocal(at: index)
            }
            if token.kind == .identifier, token.text == "execSQL", tokens.is(index + 1, "("), let close = tokens.closing(index + 1) {
                execSQL(at: index, arguments: (index + 2)..<close, blocks: blocks.map { ($0.kind, $0.what) })
                index = close + 1
                continue
            }
            if token.kind == .identifier, databaseNames.contains(token.text), tokens.is(index + 1, "."),
                index + 2 < range.upperBound, tokens[index + 2].kind == .identifier, tokens.is(index + 3, "(")
            {
                let method = tokens[index + 2].text
                if method != "execSQL", !Self.harmlessCalls.contains(method) {
                    body.reviews.append("\(place(index)): calls \(token.text).\(method)(...), whose effect on the database is not read")
                }
            } else if token.kind == .identifier, tokens.is(index + 1, "("), !Self.harmlessCalls.contains(token.text),
                !tokens.is(index - 1, "."), let close = tokens.closing(index + 1),
                ((index + 2)..<close).contains(where: { tokens[$0].kind == .identifier && databaseNames.contains(tokens[$0].text) && !tokens.is($0 + 1, ".") })
            {
                body.reviews.append("\(place(index)): hands the database to \(token.text)(...), whose SQL is not read")
            }
            index += 1
        }
    }

    /// Calls on the database that change nothing, and blocks that run their body once.
    static let harmlessCalls: Set<String> = [
        "query", "rawQuery", "isOpen", "getVersion", "inTransaction", "isDbLockedByCurrentThread", "getPath", "use", "run",
        "with", "apply", "also", "let", "synchronized", "requireNotNull", "checkNotNull", "d", "i", "w", "e", "v",
    ]

    private func blockKind(open: Int) -> (Block, String) {
        let before = open - 1
        if tokens.is(before, ")"), let start = opening(before) {
            let keyword = tokens[start - 1].text
            switch keyword {
            case "if", "when", "switch": return (.condition, keyword)
            case "catch": return (.condition, "catch")
            case "for", "while": return (.loop, keyword)
            case "forEach", "forEachIndexed", "repeat", "map", "onEach": return (.loop, keyword)
            case "use", "let", "also", "run", "apply", "with", "synchronized": return (.plain, keyword)
            default: return (.deferred, keyword)
            }
        }
        switch tokens[before].text {
        case "else": return (.condition, "else")
        case "try": return (.guarded, "try")
        case "do", "forEach", "forEachIndexed", "repeat", "map", "onEach": return (.loop, tokens[before].text)
        case "->": return (.condition, "when")
        case "finally", "use", "let", "also", "run", "apply", "{", "}", ";", "init": return (.plain, tokens[before].text)
        case "=", "(", ",": return (.deferred, "a lambda")
        default: return (tokens[before].kind == .identifier ? .deferred : .plain, tokens[before].text)
        }
    }

    /// The `(` that the `)` at `close` closes.
    private func opening(_ close: Int) -> Int? {
        var depth = 0
        var index = close
        while index >= 0 {
            if tokens[index].kind == .symbol {
                switch tokens[index].text {
                case ")", "]", "}": depth += 1
                case "(", "[", "{":
                    depth -= 1
                    if depth == 0 { return index > 0 ? index : nil }
                default: break
                }
            }
            index -= 1
        }
        return nil
    }

    /// `val sql = "..."` (Kotlin) or `String sql = "...";` (Java) in the body: a local the
    /// `execSQL` calls after it may name.
    private mutating func declareLocal(at index: Int) {
        if tokens.is(index - 1, "var") {
            constants[tokens[index].text] = nil  // a variable can change: its value is not static
            return
        }
        let isKotlin = tokens.is(index - 1, "val")
        let isJava = tokens.language == .java && index > 0 && tokens[index - 1].kind == .identifier && tokens.is(index + 1, "=")
        guard isKotlin || isJava else { return }
        let equals = tokens.is(index + 1, "=") ? index + 1 : index + 3
        let reader = StaticStrings(tokens: tokens, constants: constants)
        if let (value, _) = reader.sum(equals + 1, end: tokens.count) {
            constants[tokens[index].text] = value
        } else {
            constants[tokens[index].text] = nil
        }
    }

    private mutating func execSQL(at index: Int, arguments: Range<Int>, blocks: [(Block, String)]) {
        // The SQL is the first argument; a second (bind arguments) is known only at run time.
        let parts = tokens.arguments(in: arguments)
        let sqlRange = parts.first ?? arguments
        let condition = blocks.reversed().first { $0.0 != .plain }
        let inlineCondition = inlineIf(before: index)
        if let (kind, what) = condition {
            let why: String
            switch kind {
            case .loop: why = "runs inside a loop (\(what)), as many times as it goes round"
            case .condition: why = "runs only when a condition holds (\(what))"
            case .guarded: why = "runs inside try, and the app carries on when it fails"
            case .deferred, .plain: why = "runs inside \(what) { ... }, whose effect is not read"
            }
            body.reviews.append("\(place(index)): execSQL(\(source(sqlRange))) \(why)")
        } else if let inlineCondition {
            body.reviews.append("\(place(index)): execSQL(\(source(sqlRange))) runs only when a condition holds (\(inlineCondition))")
        }
        if parts.count > 1 {
            body.reviews.append("\(place(index)): execSQL(\(source(sqlRange)), ...) binds arguments known only at run time")
        }
        guard let sql = StaticStrings(tokens: tokens, constants: constants).value(of: sqlRange) else {
            let unknown = unknownParts(sqlRange)
            let what = unknown.isEmpty ? "" : " (\(unknown.joined(separator: ", ")))"
            body.reviews.append("\(place(index)): the SQL handed to execSQL is known only when the app runs\(what): \(source(sqlRange))")
            return
        }
        let statements = SQLText.statements(in: sql)
        guard let first = statements.first else { return }
        if statements.count > 1 {
            body.notes.append(
                "\(place(index)): execSQL is handed \(statements.count) statements; Android runs only the first and ignores the rest, and so does the plan")
        }
        if let problem = StatementRules.problem(in: first) {
            body.reviews.append("\(place(index)): \(first) is left out: \(problem); inside Room's migration transaction the phone does not do what it says")
            return
        }
        body.statements.append(first)
    }

    /// What in `range` has no static value: templates and names that are no constants, calls.
    private func unknownParts(_ range: Range<Int>) -> [String] {
        var parts: [String] = []
        for index in range {
            let token = tokens[index]
            if token.kind == .string {
                for case .template(let source) in token.parts {
                    let inner = SourceTokens(source, language: .kotlin)
                    if StaticStrings(tokens: inner, constants: constants).value(of: 0..<inner.count) == nil { parts.append("${\(source)}") }
                }
            } else if token.kind == .identifier, !tokens.is(index - 1, "."), !tokens.is(index + 1, "."), constants[token.text] == nil {
                parts.append(tokens.is(index + 1, "(") ? "\(token.text)(...)" : token.text)
            }
        }
        return parts
    }

    /// `if (...) db.execSQL(...)` without braces: the keyword, or nil.
    private func inlineIf(before index: Int) -> String? {
        var start = index
        if tokens.is(start - 1, "."), start >= 2, tokens[start - 2].kind == .identifier { start -= 2 }
        if tokens.is(start - 1, "else") { return "else" }
        guard tokens.is(start - 1, ")"), let open = opening(start - 1), ["if", "for", "while"].contains(tokens[open - 1].text) else { return nil }
        return tokens[open - 1].text
    }
}
