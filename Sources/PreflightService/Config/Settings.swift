import MigrationCore

/// What one key of the configuration holds, and how its value is read from a
/// document's JSON or from an environment variable's text.
enum SettingKind: Sendable {
    /// Text, trimmed; checked as an address once every layer is read.
    case address
    /// A whole number in the range.
    case integer(ClosedRange<Int>)
    /// A positive number of bytes.
    case bytes
    /// A directory; a relative one resolves against the layer's base.
    case directory
    /// Bearer tokens: a JSON array of strings, or text separated by commas.
    case tokens
    /// One of `LogLevel`'s names.
    case logLevel

    /// A document's value; `key` names the key in errors.
    func read(_ value: JSONValue, key: String, base: String) throws(ConfigurationError) -> any Sendable {
        switch value {
        case .string(let text):
            return try read(text: text, key: key, base: base)
        case .number:
            guard let number = value.integerValue else {
                throw ConfigurationError(key: key, message: "must be a whole number")
            }
            return try read(text: String(number), key: key, base: base)
        case .array(let items):
            guard case .tokens = self else { throw ConfigurationError(key: key, message: "must not be an array") }
            var tokens: [String] = []
            for item in items {
                guard let token = item.stringValue else {
                    throw ConfigurationError(key: key, message: "must be an array of strings")
                }
                tokens.append(token)
            }
            return tokens
        default:
            throw ConfigurationError(key: key, message: "must not be \(value.typeName)")
        }
    }

    /// A value written as text (a document's string or number, or an environment variable).
    func read(text: String, key: String, base: String) throws(ConfigurationError) -> any Sendable {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch self {
        case .address:
            return trimmed
        case .integer(let range):
            guard let value = Int(trimmed), range.contains(value) else {
                throw ConfigurationError(
                    key: key, message: "must be a whole number from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
            }
            return value
        case .bytes:
            guard let value = Int64(trimmed), value >= 1 else {
                throw ConfigurationError(key: key, message: "must be a positive number of bytes, got \"\(text)\"")
            }
            return value
        case .directory:
            guard !text.isEmpty else { throw ConfigurationError(key: key, message: "must not be empty") }
            return text.hasPrefix("/") ? text : base + "/" + text
        case .tokens:
            return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        case .logLevel:
            guard let level = LogLevel(rawValue: trimmed.lowercased()) else {
                throw ConfigurationError(
                    key: key, message: "must be \(LogLevel.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(text)\"")
            }
            return level
        }
    }
}

/// The configuration's keys as the layers read so far leave them: each one's value,
/// read and checked by its kind, the last layer's winning.
struct Settings {
    private var values: [String: any Sendable] = [:]

    /// The environment variable that overrides `key`.
    static func variable(_ key: String) -> String { "PREFLIGHT_" + key.uppercased() }

    /// A JSON object of keys; `null` leaves a key as the layers before set it.
    mutating func read(document bytes: [UInt8], base: String) throws(ConfigurationError) {
        guard let object = JSONValue.parse(bytes)?.objectValue else {
            throw ConfigurationError(key: "configuration", message: "must be a JSON object")
        }
        let kinds = ServiceConfiguration.keys
        if let unknown = object.keys.filter({ key in !kinds.contains { $0.key == key } }).sorted().first {
            throw ConfigurationError(
                key: unknown, message: "unknown key; keys are \(kinds.map(\.key).joined(separator: ", "))")
        }
        for (key, kind) in kinds {
            guard let value = object[key], value != .null else { continue }
            values[key] = try kind.read(value, key: key, base: base)
        }
    }

    /// The `PREFLIGHT_*` variables; an error names the key and the variable.
    mutating func read(environment: [String: String], base: String) throws(ConfigurationError) {
        for (key, kind) in ServiceConfiguration.keys {
            let variable = Settings.variable(key)
            guard let text = environment[variable] else { continue }
            values[key] = try kind.read(text: text, key: "\(key) (\(variable))", base: base)
        }
    }

    /// The value of a key that every configuration has.
    func value<Value>(_ key: String) throws(ConfigurationError) -> Value {
        guard let value: Value = valueIfSet(key) else {
            throw ConfigurationError(key: key, message: "has no value: the embedded default document must name it")
        }
        return value
    }

    func valueIfSet<Value>(_ key: String) -> Value? { values[key] as? Value }
}
