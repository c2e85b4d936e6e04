/// A plan as the JSON text an import writes: the keys in the contract's order (name,
/// description, runner, Room's keys, steps, fresh install), one statement per line, so that
/// a person can read it, edit it and review its changes.
struct PlanDocument {
    /// One step as written: its version, the version it migrates from when that is not
    /// the one before (Room's `Migration(54, 56)`), and what a person must review.
    struct Step {
        var version: Int
        var fromVersion: Int?
        var name: String
        var needsReview: [String] = []
        var statements: [String]
    }

    /// Room's keys (docs/CONTRACT.md §1, runner room).
    struct Room {
        var identityHash: String
        /// Each exported version's identity hash.
        var identityHashes: [Int: String] = [:]
        var destructiveFallback: DestructiveFallback?
        /// The oldest version the plan can build (its step creates that schema).
        var baseVersion: Int?
    }

    /// `fallbackToDestructiveMigration()`, `...OnDowngrade()`, `...From(versions)`.
    enum DestructiveFallback: Equatable {
        case always, onDowngrade
        case from([Int])
    }

    var name: String
    var description: String
    var runner: String?
    var room: Room?
    var steps: [Step]
    var freshInstall: [String]?

    var text: String {
        var members: [(String, Value)] = [("name", .string(name)), ("description", .string(description))]
        if let runner { members.append(("runner", .string(runner))) }
        if let room {
            members.append(("room_identity_hash", .string(room.identityHash)))
            if !room.identityHashes.isEmpty {
                members.append(("room_identity_hashes", .object(room.identityHashes.sorted { $0.key < $1.key }.map { (String($0.key), .string($0.value)) })))
            }
            switch room.destructiveFallback {
            case nil: break
            case .always?: members.append(("room_destructive_fallback", .string("always")))
            case .onDowngrade?: members.append(("room_destructive_fallback", .string("on_downgrade")))
            case .from(let versions)?: members.append(("room_destructive_fallback", .array(versions.map(Value.number))))
            }
            if let base = room.baseVersion { members.append(("base_version", .number(base))) }
        }
        members.append(("steps", .array(steps.map { step in
            var fields: [(String, Value)] = [("version", .number(step.version))]
            if let from = step.fromVersion { fields.append(("from_version", .number(from))) }
            fields.append(("name", .string(step.name)))
            if !step.needsReview.isEmpty { fields.append(("needs_review", .array(step.needsReview.map(Value.string)))) }
            fields.append(("sql", .array(step.statements.map(Value.string))))
            return .object(fields)
        })))
        if let freshInstall {
            let newest = steps.map(\.version).max() ?? 0
            members.append(("fresh_install", .object([("version", .number(newest)), ("sql", .array(freshInstall.map(Value.string)))])))
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
