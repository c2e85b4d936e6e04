import MigrationCore
import Simulation

/// Reads a device profile document, naming the file and the key of every problem.
enum DeviceProfileDecoder {
    static let keys: Set<String> = [
        "name", "description", "watchdog_ms", "free_bytes", "launches", "min_sqlite_version", "connection",
    ]
    static let connectionKeys: Set<String> = ["secure_delete", "journal_mode", "synchronous"]

    static func decode(_ bytes: [UInt8], source: String) throws(ConfigurationError) -> DeviceProfile {
        guard let object = JSONValue.parse(bytes)?.objectValue else {
            throw ConfigurationError(key: source, message: "a device profile must be a JSON object")
        }
        if let unknown = object.keys.filter({ !keys.contains($0) }).sorted().first {
            throw ConfigurationError(key: "\(source): \(unknown)", message: "unknown key")
        }
        func string(_ key: String, in object: [String: JSONValue]) throws(ConfigurationError) -> String? {
            guard let value = object[key], value != .null else { return nil }
            guard let text = value.stringValue else {
                throw ConfigurationError(key: "\(source): \(key)", message: "must be a string")
            }
            return text
        }
        func integer(_ key: String, minimum: Int64) throws(ConfigurationError) -> Int64? {
            guard let value = object[key], value != .null else { return nil }
            guard let number = value.integerValue, number >= minimum else {
                throw ConfigurationError(key: "\(source): \(key)", message: "must be an integer of at least \(minimum)")
            }
            return number
        }
        guard let name = try string("name", in: object), !name.isEmpty else {
            throw ConfigurationError(key: "\(source): name", message: "is missing")
        }
        var connection = ConnectionSettings()
        if let value = object["connection"], value != .null {
            guard let settings = value.objectValue else {
                throw ConfigurationError(key: "\(source): connection", message: "must be an object")
            }
            if let unknown = settings.keys.filter({ !connectionKeys.contains($0) }).sorted().first {
                throw ConfigurationError(key: "\(source): connection.\(unknown)", message: "unknown key")
            }
            if let secureDelete = settings["secure_delete"], secureDelete != .null {
                guard case .bool(let flag) = secureDelete else {
                    throw ConfigurationError(key: "\(source): connection.secure_delete", message: "must be true or false")
                }
                connection.secureDelete = flag
            }
            connection.journalMode = try string("journal_mode", in: settings)?.uppercased()
            connection.synchronous = try string("synchronous", in: settings)?.uppercased()
            if let mode = connection.journalMode, !["DELETE", "TRUNCATE", "PERSIST", "WAL"].contains(mode) {
                throw ConfigurationError(key: "\(source): connection.journal_mode", message: "must be DELETE, TRUNCATE, PERSIST or WAL")
            }
            if let mode = connection.synchronous, !["OFF", "NORMAL", "FULL", "EXTRA"].contains(mode) {
                throw ConfigurationError(key: "\(source): connection.synchronous", message: "must be OFF, NORMAL, FULL or EXTRA")
            }
        }
        return DeviceProfile(
            name: name, description: try string("description", in: object) ?? "",
            watchdogMs: try integer("watchdog_ms", minimum: 1).map { Int($0) },
            freeBytes: try integer("free_bytes", minimum: 0),
            launches: Int(try integer("launches", minimum: 1) ?? 5),
            minSQLiteVersion: try string("min_sqlite_version", in: object), connection: connection)
    }
}
