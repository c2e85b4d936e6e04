/// A JSON document as written, for inputs that people write by hand (plans, options,
/// device profiles): unlike a `Decodable` struct it lets the reader name every unknown
/// key and every wrong type precisely.
public enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses `data`; nil when it is not JSON.
    public static func parse(_ data: [UInt8]) -> JSONValue? {
        try? JSONValueParser.decode(data)
    }

    /// What a person calls this kind of value in an error message.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as an integer, when it is a number without a fraction.
    public var integerValue: Int64? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) < 9.0e15 else { return nil }
        return Int64(value)
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }
}

extension JSONValue {
    /// The value as JSON text with sorted keys: the same document always gives the same
    /// text, in every process (hashes of plan steps rely on it).
    public var canonicalText: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value):
            return value.rounded() == value && abs(value) < 9.0e15 ? String(Int64(value)) : String(value)
        case .string(let value): return JSONValue.quoted(value)
        case .array(let items): return "[" + items.map(\.canonicalText).joined(separator: ",") + "]"
        case .object(let members):
            let body = members.sorted { $0.key < $1.key }.map { JSONValue.quoted($0.key) + ":" + $0.value.canonicalText }
            return "{" + body.joined(separator: ",") + "}"
        }
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
