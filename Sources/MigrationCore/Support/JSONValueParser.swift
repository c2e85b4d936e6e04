import Foundation

/// Decodes `JSONValue` with Foundation's strict decoder (which keeps `true` apart from `1`).
enum JSONValueParser {
    static func decode(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }
}
