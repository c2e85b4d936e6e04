/// The value of a Kotlin or Java expression that is known without running the app: string
/// literals, raw strings with `trimIndent()`/`trimMargin()`, `+` of those, Kotlin templates
/// over them, integers, and the names of constants (`const val`, `static final`) that hold
/// such values. Anything else (a call, a value known only at run time) has no static
/// value: `value` is nil, and the importer says so instead of guessing.
///
///     let constants = StaticStrings.constants(in: tokens)       // ["TABLE": "notes"]
///     StaticStrings(tokens: tokens, constants: constants).value(of: 3..<8)
struct StaticStrings {
    let tokens: SourceTokens
    let constants: [String: String]

    /// The value of the expression that is exactly `range`, or nil.
    func value(of range: Range<Int>) -> String? {
        guard let (value, next) = sum(range.lowerBound, end: range.upperBound), next == range.upperBound else { return nil }
        return value
    }

    /// The longest expression that starts at `start`: its value and the index after it.
    func sum(_ start: Int, end: Int) -> (String, Int)? {
        guard var (value, index) = postfix(start, end: end) else { return nil }
        while index < end, tokens.is(index, "+") {
            guard let (next, after) = postfix(index + 1, end: end) else { return nil }
            value += next
            index = after
        }
        return (value, index)
    }

    /// A primary and the calls after it that keep it static (`.trimIndent()`, ...).
    private func postfix(_ start: Int, end: Int) -> (String, Int)? {
        guard var (value, index) = primary(start, end: end) else { return nil }
        while index + 2 < end, tokens.is(index, "."), tokens[index + 1].kind == .identifier, tokens.is(index + 2, "(") {
            guard let close = tokens.closing(index + 2), close < end else { return nil }
            let arguments = (index + 3)..<close
            switch tokens[index + 1].text {
            case "trimIndent" where arguments.isEmpty: value = KotlinText.trimIndent(value)
            case "trimMargin":
                if arguments.isEmpty {
                    value = KotlinText.trimMargin(value)
                } else if let prefix = self.value(of: arguments) {
                    value = KotlinText.trimMargin(value, prefix: prefix)
                } else {
                    return nil
                }
            case "toString" where arguments.isEmpty: break
            default: return nil
            }
            index = close + 1
        }
        return (value, index)
    }

    private func primary(_ start: Int, end: Int) -> (String, Int)? {
        guard start < end else { return nil }
        let token = tokens[start]
        switch token.kind {
        case .string:
            var text = ""
            for part in token.parts {
                switch part {
                case .text(let piece): text += piece
                case .template(let source):
                    let inner = SourceTokens(source, language: .kotlin)
                    guard let piece = StaticStrings(tokens: inner, constants: constants).value(of: 0..<inner.count) else { return nil }
                    text += piece
                }
            }
            return (text, start + 1)
        case .number:
            return Self.integer(token.text).map { (String($0), start + 1) }
        case .identifier:
            // A constant, perhaps qualified (`Tables.NOTES`, `Companion.NOTES`): its own name decides.
            var index = start
            while index + 2 < end, tokens.is(index + 1, "."), tokens[index + 2].kind == .identifier, !tokens.is(index + 3, "(") {
                index += 2
            }
            return constants[tokens[index].text].map { ($0, index + 1) }
        case .symbol:
            if token.text == "(", let close = tokens.closing(start), close < end, let inner = value(of: (start + 1)..<close) {
                return (inner, close + 1)
            }
            if token.text == "-", start + 1 < end, tokens[start + 1].kind == .number, let number = Self.integer(tokens[start + 1].text) {
                return (String(-number), start + 2)
            }
            return nil
        case .character:
            return nil
        }
    }

    /// An integer literal as Kotlin and Java write it (`12`, `1_000`, `12L`, `0x1F`).
    static func integer(_ text: String) -> Int? {
        var digits = text.replacingOccurrences(of: "_", with: "")
        if digits.hasSuffix("L") || digits.hasSuffix("l") { digits.removeLast() }
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { return Int(digits.dropFirst(2), radix: 16) }
        return Int(digits)
    }

    // MARK: - Constants

    /// Every name in the files that is given a static value once: Kotlin `const val` and
    /// `val` (a `var` can change), Java `final` fields and locals. A name given two
    /// different values is left out: which one a use means is not known without scopes.
    static func constants(in files: [SourceTokens]) -> [String: String] {
        var found: [String: String] = [:]
        var ambiguous: Set<String> = []
        // Constants may name others, in any order: read until nothing new is found.
        var changed = true
        while changed {
            changed = false
            for tokens in files {
                for (name, value) in declarations(in: tokens, known: found) where !ambiguous.contains(name) {
                    if let earlier = found[name] {
                        if earlier != value {
                            found[name] = nil
                            ambiguous.insert(name)
                            changed = true
                        }
                    } else {
                        found[name] = value
                        changed = true
                    }
                }
            }
        }
        return found
    }

    /// `val NAME [: Type] = expr` (Kotlin) and `final Type NAME = expr;` (Java) whose value
    /// is static given `known`.
    static func declarations(in tokens: SourceTokens, known: [String: String]) -> [(String, String)] {
        let reader = StaticStrings(tokens: tokens, constants: known)
        var declarations: [(String, String)] = []
        for index in 2..<max(2, tokens.count) where tokens.is(index, "=") {
            let name: String?
            switch tokens.language {
            case .kotlin:
                // `val NAME =` or `val NAME: Type =`
                if tokens.is(index - 2, "val") {
                    name = tokens[index - 1].text
                } else if index >= 4, tokens.is(index - 2, ":"), tokens.is(index - 4, "val") {
                    name = tokens[index - 3].text
                } else {
                    name = nil
                }
            case .java:
                // `[static] final Type NAME =`
                let isFinal = (max(0, index - 6)..<(index - 1)).contains { tokens.is($0, "final") }
                name = isFinal && tokens[index - 2].kind == .identifier ? tokens[index - 1].text : nil
            }
            let isDeclaration = name != nil && tokens[index - 1].kind == .identifier
            guard isDeclaration, let (value, next) = reader.sum(index + 1, end: tokens.count) else { continue }
            // The expression must end the declaration: `"a" + f()` is no constant.
            if tokens.language == .java, !tokens.is(next, ";") { continue }
            if tokens.language == .kotlin, next < tokens.count, tokens[next].line == tokens[next - 1].line,
                !tokens.is(next, ";"), !tokens.is(next, "}"), !tokens.is(next, ")")
            {
                continue
            }
            if let name { declarations.append((name, value)) }
        }
        return declarations
    }
}
