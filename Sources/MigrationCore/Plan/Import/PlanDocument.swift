/// A plan as the JSON text an import writes: the keys in the contract's order (name,
/// description, runner, steps, fresh install), one statement per line, so that a person
/// can read it, edit it and review its changes.
struct PlanDocument {
    var name: String
    var description: String
    var runner: String?
    var roomIdentityHash: String?
    /// Versions 1, 2, 3... in order.
    var steps: [(name: String, statements: [String])]
    var freshInstall: [String]?

    var text: String {
        var members: [(String, Value)] = [("name", .string(name)), ("description", .string(description))]
        if let runner { members.append(("runner", .string(runner))) }
        if let roomIdentityHash { members.append(("room_identity_hash", .string(roomIdentityHash))) }
        members.append(("steps", .array(steps.enumerated().map { offset, step in
            .object([("version", .number(offset + 1)), ("name", .string(step.name)), ("sql", .array(step.statements.map(Value.string)))])
        })))
        if let freshInstall {
            members.append(("fresh_install", .object([("version", .number(steps.count)), ("sql", .array(freshInstall.map(Value.string)))])))
        }
        return Value.object(members).rendered(indent: "") + "\n"
    }

    /// JSON whose objects keep the order their keys were written in.
    private indirect enum Value {
        case string(String)
        case number(Int)
        case array([Value])
        case object([(String, Value)])

        func rendered(indent: String) -> String {
            let inner = indent + "  "
            switch self {
            case .string(let text): return JSONValue.quoted(text)
            case .number(let number): return String(number)
            case .array(let items):
                guard !items.isEmpty else { return "[]" }
                return "[\n" + items.map { inner + $0.rendered(indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
            case .object(let members):
                return "{\n" + members.map { inner + JSONValue.quoted($0.0) + ": " + $0.1.rendered(indent: inner) }
                    .joined(separator: ",\n") + "\n\(indent)}"
            }
        }
    }
}
