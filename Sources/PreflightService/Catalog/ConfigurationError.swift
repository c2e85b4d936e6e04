/// A configuration problem that stops the start, naming the key (or file) at fault.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var key: String
    public var message: String

    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { "configuration: \(key): \(message)" }
}
