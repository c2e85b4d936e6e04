import Foundation
import MigrationCore
import Simulation

/// The settings of `preflight serve` (docs/CONTRACT.md §6), read in layers, each over the one
/// before: the embedded default document, the file `--config` names, and the
/// environment, where every key can be overridden by `PREFLIGHT_` + the key in upper case
/// (`PREFLIGHT_PORT=9000`, `PREFLIGHT_TOKENS=a,b`).
///
/// Every default lives in that one document, `Resources/preflight.json` (built into the
/// binary; `ConfigurationTests` keeps it byte for byte the repository's
/// `Config/preflight.json`): the fields below have no values of their own.
///
/// Relative directories in a file resolve against the parent of the file's directory
/// (so `Config/preflight.json` names `Config/plans` as the repository does); in the
/// embedded default and in environment variables they resolve against the current
/// directory.
public struct ServiceConfiguration: Sendable, Equatable {
    /// Listening address: an IPv4 or IPv6 literal (`0.0.0.0`, `127.0.0.1`, `::`).
    public var bind: String
    /// Listening port; 0 picks a free one, which `serve` prints.
    public var port: Int
    /// Uploads larger than this get 413, before their body is read when they declare their length.
    public var maxUploadBytes: Int64
    /// A matrix upload (`POST /v1/matrix`) may hold this many database files, and its
    /// whole body this many times `max_upload_bytes`.
    public var maxMatrixFiles: Int
    /// Jobs running at once.
    public var maxConcurrentJobs: Int
    /// Jobs admitted beyond the running ones, waiting for a slot; beyond both: 503. An
    /// upload in flight takes no place: its job is admitted once its body is complete.
    public var queueLength: Int
    /// Uploads one client (an address, or a token where tokens are configured) may have
    /// arriving at once; past it: 429, while other clients are still admitted.
    public var maxUploadsPerClient: Int
    /// Places one client may hold at once, waiting or running; past it: 429.
    public var maxJobsPerClient: Int
    /// Uploads arriving at once, from every client; past it: 503.
    public var maxUploadsInFlight: Int
    /// Bytes all uploads in flight may have written to disk together; the upload whose
    /// next piece would pass it is cut off with 503.
    public var maxUploadBytesInFlight: Int64
    /// Idle time after which libmicrohttpd closes a connection; 0 for never.
    public var connectionTimeoutS: Int
    /// Connections one client address may hold at once; 0 for no limit.
    public var perIPConnectionLimit: Int
    /// Connections the main port holds at once, all clients together (an idle one costs a
    /// descriptor and a little memory, no thread); past it libmicrohttpd closes new ones at once.
    public var maxConnections: Int
    /// The probe port: `/healthz` and `/metrics` only, on a listener of its own that no
    /// number of connections to `port` can fill; 0 picks a free one, which `serve` prints.
    public var probePort: Int
    /// Where job directories are made (mode 0700); `null` in a document means
    /// `preflight-jobs` under the system's temporary directory.
    public var jobDir: String
    /// How long `keep=1` jobs stay.
    public var keepSeconds: Int
    /// Bearer tokens for `/v1/*`; empty means no auth.
    public var tokens: [String]
    /// Registered plans, `NAME.json` each.
    public var plansDir: String
    /// Device profiles, `NAME.json` each.
    public var devicesDir: String
    /// After SIGTERM, how long running jobs may go on before they are cancelled.
    public var shutdownGraceS: Int
    /// What the server writes on stderr; `debug` adds each job's progress.
    public var logLevel: LogLevel
    /// Wall-clock limit of a whole job, every worker included; past it the job ends
    /// `failed` with kind `time_limit`.
    public var maxJobSeconds: Int
    /// Uploads slower than this, after their first `uploadGraceS` seconds, are cut off with 408.
    public var minUploadBytesPerS: Int
    /// How long an upload may start slowly (a TCP connection's slow start, a phone that
    /// wakes up) before `minUploadBytesPerS` applies.
    public var uploadGraceS: Int
    /// Where synthesized files are kept for reuse (docs/synthesis.md); `null` in a document
    /// means `preflight-synthesis-cache` under the system's temporary directory.
    public var synthesisCacheDir: String
    /// The most the kept files take together; 0 turns the cache off.
    public var synthesisCacheBytes: Int
    /// Whether the plan and device directories may be missing (read as empty): true
    /// only when neither a file nor the environment named them, so that `preflight
    /// serve` starts anywhere.
    public var allowsMissingCatalogs: Bool

    /// Every key of the document, in the order the documentation lists them, with what it holds.
    static let keys: KeyValuePairs<String, SettingKind> = [
        "bind": .address, "port": .integer(0...65535), "max_upload_bytes": .bytes, "max_matrix_files": .integer(1...4096),
        "max_concurrent_jobs": .integer(1...1024), "queue_length": .integer(0...65536),
        "max_uploads_per_client": .integer(1...65536), "max_jobs_per_client": .integer(1...65536),
        "max_uploads_in_flight": .integer(1...1_000_000), "max_upload_bytes_in_flight": .bytes,
        "connection_timeout_s": .integer(0...86_400), "per_ip_connection_limit": .integer(0...65536),
        "max_connections": .integer(1...1_000_000), "probe_port": .integer(0...65535),
        "job_dir": .directory, "keep_seconds": .integer(0...30 * 86_400), "tokens": .tokens,
        "plans_dir": .directory, "devices_dir": .directory, "shutdown_grace_s": .integer(0...86_400),
        "log_level": .logLevel,
        "max_job_seconds": .integer(1...7 * 86_400), "min_upload_bytes_per_s": .integer(0...1 << 30),
        "upload_grace_s": .integer(0...3_600),
        "synthesis_cache_dir": .directory, "synthesis_cache_bytes": .integer(0...1 << 50),
    ]

    /// The embedded default document, as built into the binary.
    static var defaultDocument: [UInt8] { PackageResources.preflight_json }

    /// Reads the embedded default, then `path` over it (when given), then the
    /// `PREFLIGHT_*` variables over both.
    public static func load(
        path: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) throws(ConfigurationError) -> ServiceConfiguration {
        var settings = Settings()
        try settings.read(document: defaultDocument, base: currentDirectory)
        if let path {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(key: path, message: "cannot read the configuration file")
            }
            let absolute = path.hasPrefix("/") ? path : currentDirectory + "/" + path
            let base = ((absolute as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
            try settings.read(document: [UInt8](data), base: base)
        }
        try settings.read(environment: environment, base: currentDirectory)
        var configuration = try ServiceConfiguration(settings)
        configuration.allowsMissingCatalogs =
            path == nil && ["plans_dir", "devices_dir"].allSatisfy { environment[Settings.variable($0)] == nil }
        try configuration.validate()
        return configuration
    }

    /// Every field from the layers read; the embedded default names every key, so only
    /// `job_dir` (null there) can be unset.
    private init(_ settings: Settings) throws(ConfigurationError) {
        bind = try settings.value("bind")
        port = try settings.value("port")
        maxUploadBytes = try settings.value("max_upload_bytes")
        maxMatrixFiles = try settings.value("max_matrix_files")
        maxConcurrentJobs = try settings.value("max_concurrent_jobs")
        queueLength = try settings.value("queue_length")
        maxUploadsPerClient = try settings.value("max_uploads_per_client")
        maxJobsPerClient = try settings.value("max_jobs_per_client")
        maxUploadsInFlight = try settings.value("max_uploads_in_flight")
        maxUploadBytesInFlight = try settings.value("max_upload_bytes_in_flight")
        connectionTimeoutS = try settings.value("connection_timeout_s")
        perIPConnectionLimit = try settings.value("per_ip_connection_limit")
        maxConnections = try settings.value("max_connections")
        probePort = try settings.value("probe_port")
        jobDir = settings.valueIfSet("job_dir") ?? Self.temporaryDirectory("preflight-jobs")
        keepSeconds = try settings.value("keep_seconds")
        tokens = try settings.value("tokens")
        plansDir = try settings.value("plans_dir")
        devicesDir = try settings.value("devices_dir")
        shutdownGraceS = try settings.value("shutdown_grace_s")
        logLevel = try settings.value("log_level")
        maxJobSeconds = try settings.value("max_job_seconds")
        minUploadBytesPerS = try settings.value("min_upload_bytes_per_s")
        uploadGraceS = try settings.value("upload_grace_s")
        synthesisCacheDir = settings.valueIfSet("synthesis_cache_dir") ?? Self.temporaryDirectory("preflight-synthesis-cache")
        synthesisCacheBytes = try settings.value("synthesis_cache_bytes")
        allowsMissingCatalogs = false
    }

    /// `max_job_seconds` for a job outside the service (`preflight run`): the embedded
    /// default, or `PREFLIGHT_MAX_JOB_SECONDS`.
    public static func maxJobSeconds(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> Int {
        var settings = Settings()
        try settings.read(document: defaultDocument, base: "/")
        try settings.read(environment: environment.filter { $0.key == Settings.variable("max_job_seconds") }, base: "/")
        return try settings.value("max_job_seconds")
    }

    /// Where the synthesis cache of a command outside the service (`preflight matrix`,
    /// `capacity`, `synthesize`) lives and its size (0: off): the embedded default's, or
    /// `PREFLIGHT_SYNTHESIS_CACHE_DIR` and `PREFLIGHT_SYNTHESIS_CACHE_BYTES`.
    public static func synthesisCacheSettings(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) throws(ConfigurationError) -> (directory: String, bytes: Int) {
        var settings = Settings()
        try settings.read(document: defaultDocument, base: currentDirectory)
        let keys = ["synthesis_cache_dir", "synthesis_cache_bytes"].map(Settings.variable)
        try settings.read(environment: environment.filter { keys.contains($0.key) }, base: currentDirectory)
        return (settings.valueIfSet("synthesis_cache_dir") ?? temporaryDirectory("preflight-synthesis-cache"), try settings.value("synthesis_cache_bytes"))
    }

    /// The service's synthesis cache; nil when it is off.
    public var synthesisCache: SynthesisCache? {
        synthesisCacheBytes == 0 ? nil : SynthesisCache(directory: synthesisCacheDir, maxBytes: Int64(synthesisCacheBytes))
    }

    /// `name` under the system's temporary directory: what `"job_dir": null` and
    /// `"synthesis_cache_dir": null` mean. It depends on `TMPDIR`, so no document can hold it.
    private static func temporaryDirectory(_ name: String) -> String {
        let temporary = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return (temporary.hasSuffix("/") ? String(temporary.dropLast()) : temporary) + "/" + name
    }

    /// Checks that need the final values, whichever layer they came from.
    private func validate() throws(ConfigurationError) {
        var v4 = in_addr()
        var v6 = in6_addr()
        guard inet_pton(AF_INET, bind, &v4) == 1 || inet_pton(AF_INET6, bind, &v6) == 1 else {
            throw ConfigurationError(key: "bind", message: "must be an IPv4 or IPv6 address such as 0.0.0.0, got \"\(bind)\"")
        }
        if probePort != 0, probePort == port {
            throw ConfigurationError(
                key: "probe_port", message: "must differ from port (\(port)): the probes need a listener of their own")
        }
        if tokens.contains(where: { $0.isEmpty || $0.contains(where: \.isWhitespace) }) {
            throw ConfigurationError(key: "tokens", message: "a token must be a non-empty string without spaces")
        }
    }
}
