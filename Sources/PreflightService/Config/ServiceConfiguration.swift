import Foundation
import MigrationCore

/// The settings of `preflight serve` (CONTRACT §6): `Config/preflight.json`, or the
/// embedded copy of it, with every key overridable by `PREFLIGHT_` + the key in upper
/// case (`PREFLIGHT_PORT=9000`, `PREFLIGHT_TOKENS=a,b`).
///
/// Relative directories in a file resolve against the parent of the file's directory
/// (so `Config/preflight.json` names `Config/plans` as the repository does); in the
/// embedded default and in environment variables they resolve against the current
/// directory.
public struct ServiceConfiguration: Sendable, Equatable {
    /// Listening address: an IPv4 or IPv6 literal (`0.0.0.0`, `127.0.0.1`, `::`).
    public var bind = "0.0.0.0"
    /// Listening port; 0 picks a free one, which `serve` prints.
    public var port = 8080
    /// Uploads larger than this get 413, before their body is read when they declare their length.
    public var maxUploadBytes: Int64 = 2 << 30
    /// Jobs running at once.
    public var maxConcurrentJobs = 2
    /// Jobs admitted beyond the running ones (uploading or waiting for a slot); beyond both: 503.
    public var queueLength = 8
    /// Idle time after which libmicrohttpd closes a connection; 0 for never.
    public var connectionTimeoutS = 60
    /// Connections one client address may hold at once; 0 for no limit.
    public var perIPConnectionLimit = 32
    /// Where job directories are made (mode 0700).
    public var jobDir = ServiceConfiguration.defaultJobDir
    /// How long `keep=1` jobs stay.
    public var keepSeconds = 600
    /// Bearer tokens for `/v1/*`; empty means no auth.
    public var tokens: [String] = []
    /// Registered plans, `NAME.json` each.
    public var plansDir = "Config/plans"
    /// Device profiles, `NAME.json` each.
    public var devicesDir = "Config/devices"
    /// After SIGTERM, how long running jobs may go on before they are cancelled.
    public var shutdownGraceS = 30
    /// Whether the plan and device directories may be missing (read as empty): true
    /// only for the embedded default, so that `preflight serve` starts anywhere.
    public var allowsMissingCatalogs = false

    public init() {}

    /// The keys of the file, in the order the documentation lists them.
    public static let keys = [
        "bind", "port", "max_upload_bytes", "max_concurrent_jobs", "queue_length", "connection_timeout_s",
        "per_ip_connection_limit", "job_dir", "keep_seconds", "tokens", "plans_dir", "devices_dir", "shutdown_grace_s",
    ]

    /// `preflight-jobs` under the system's temporary directory.
    public static var defaultJobDir: String {
        let temporary = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return (temporary.hasSuffix("/") ? String(temporary.dropLast()) : temporary) + "/preflight-jobs"
    }

    /// The same document as `Config/preflight.json`, for a server started without a file.
    public static let embeddedDefault = """
        {
          "bind": "0.0.0.0",
          "port": 8080,
          "max_upload_bytes": 2147483648,
          "max_concurrent_jobs": 2,
          "queue_length": 8,
          "connection_timeout_s": 60,
          "per_ip_connection_limit": 32,
          "job_dir": null,
          "keep_seconds": 600,
          "tokens": [],
          "plans_dir": "Config/plans",
          "devices_dir": "Config/devices",
          "shutdown_grace_s": 30
        }
        """

    // MARK: - Loading

    /// Reads `path` (or the embedded default when nil), then applies `PREFLIGHT_*` overrides.
    public static func load(
        path: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) throws(ConfigurationError) -> ServiceConfiguration {
        let bytes: [UInt8]
        let base: String
        if let path {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(key: path, message: "cannot read the configuration file")
            }
            bytes = [UInt8](data)
            let absolute = path.hasPrefix("/") ? path : currentDirectory + "/" + path
            base = ((absolute as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
        } else {
            bytes = Array(embeddedDefault.utf8)
            base = currentDirectory
        }
        var configuration = try parse(bytes, base: base)
        configuration.allowsMissingCatalogs = path == nil
        try configuration.applyEnvironment(environment, currentDirectory: currentDirectory)
        try configuration.validate()
        return configuration
    }

    /// Reads a configuration document; relative directories resolve against `base`.
    static func parse(_ bytes: [UInt8], base: String) throws(ConfigurationError) -> ServiceConfiguration {
        guard let object = JSONValue.parse(bytes)?.objectValue else {
            throw ConfigurationError(key: "configuration", message: "must be a JSON object")
        }
        if let unknown = object.keys.filter({ !keys.contains($0) }).sorted().first {
            throw ConfigurationError(key: unknown, message: "unknown key; keys are \(keys.joined(separator: ", "))")
        }
        var configuration = ServiceConfiguration()
        for (key, value) in object where value != .null {
            try configuration.set(key, from: value, base: base)
        }
        return configuration
    }

    private mutating func set(_ key: String, from value: JSONValue, base: String) throws(ConfigurationError) {
        switch value {
        case .string(let text):
            try set(key, text: text, base: base)
        case .number:
            guard let number = value.integerValue else {
                throw ConfigurationError(key: key, message: "must be a whole number")
            }
            try set(key, text: String(number), base: base)
        case .array(let items):
            guard key == "tokens" else { throw ConfigurationError(key: key, message: "must not be an array") }
            var tokens: [String] = []
            for item in items {
                guard let token = item.stringValue else {
                    throw ConfigurationError(key: key, message: "must be an array of strings")
                }
                tokens.append(token)
            }
            self.tokens = tokens
        default:
            throw ConfigurationError(key: key, message: "must not be \(value.typeName)")
        }
    }

    /// Applies one value written as text (a file's string or number, or an environment variable).
    private mutating func set(_ key: String, text: String, base: String) throws(ConfigurationError) {
        func integer(minimum: Int, maximum: Int = Int(Int32.max)) throws(ConfigurationError) -> Int {
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= minimum, value <= maximum else {
                throw ConfigurationError(
                    key: key, message: "must be a whole number from \(minimum) to \(maximum), got \"\(text)\"")
            }
            return value
        }
        func directory() throws(ConfigurationError) -> String {
            guard !text.isEmpty else { throw ConfigurationError(key: key, message: "must not be empty") }
            return text.hasPrefix("/") ? text : base + "/" + text
        }
        switch key {
        case "bind": bind = text.trimmingCharacters(in: .whitespaces)
        case "port": port = try integer(minimum: 0, maximum: 65535)
        case "max_upload_bytes":
            guard let value = Int64(text.trimmingCharacters(in: .whitespaces)), value >= 1 else {
                throw ConfigurationError(key: key, message: "must be a positive number of bytes, got \"\(text)\"")
            }
            maxUploadBytes = value
        case "max_concurrent_jobs": maxConcurrentJobs = try integer(minimum: 1, maximum: 1024)
        case "queue_length": queueLength = try integer(minimum: 0, maximum: 65536)
        case "connection_timeout_s": connectionTimeoutS = try integer(minimum: 0, maximum: 86_400)
        case "per_ip_connection_limit": perIPConnectionLimit = try integer(minimum: 0, maximum: 65536)
        case "job_dir": jobDir = try directory()
        case "keep_seconds": keepSeconds = try integer(minimum: 0, maximum: 30 * 86_400)
        case "tokens":
            tokens = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        case "plans_dir": plansDir = try directory()
        case "devices_dir": devicesDir = try directory()
        case "shutdown_grace_s": shutdownGraceS = try integer(minimum: 0, maximum: 86_400)
        default: throw ConfigurationError(key: key, message: "unknown key")
        }
    }

    private mutating func applyEnvironment(
        _ environment: [String: String], currentDirectory: String
    ) throws(ConfigurationError) {
        for key in Self.keys {
            let variable = "PREFLIGHT_" + key.uppercased()
            guard let text = environment[variable] else { continue }
            do {
                try set(key, text: text, base: currentDirectory)
            } catch {
                throw ConfigurationError(key: "\(key) (\(variable))", message: error.message)
            }
            if ["plans_dir", "devices_dir"].contains(key) { allowsMissingCatalogs = false }
        }
    }

    private func validate() throws(ConfigurationError) {
        var v4 = in_addr()
        var v6 = in6_addr()
        guard inet_pton(AF_INET, bind, &v4) == 1 || inet_pton(AF_INET6, bind, &v6) == 1 else {
            throw ConfigurationError(key: "bind", message: "must be an IPv4 or IPv6 address such as 0.0.0.0, got \"\(bind)\"")
        }
        if tokens.contains(where: { $0.isEmpty || $0.contains(where: \.isWhitespace) }) {
            throw ConfigurationError(key: "tokens", message: "a token must be a non-empty string without spaces")
        }
    }
}
