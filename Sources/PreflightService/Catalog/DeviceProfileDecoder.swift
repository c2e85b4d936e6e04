import MigrationCore
import Simulation

/// Reads a device profile document (docs/CONTRACT.md §7), naming the file and the key of every problem.
enum DeviceProfileDecoder {
    static let keys: Set<String> = [
        "name", "description", "sqlite_version", "min_sqlite_version", "sqlite_build", "entry_point", "watchdog_ms", "free_bytes",
        "memory_limit_bytes", "launches", "time_scale", "speed", "connection",
        "durability",
    ]

    static func decode(_ bytes: [UInt8], source: String) throws(ConfigurationError) -> DeviceProfile {
        guard let object = JSONValue.parse(bytes)?.objectValue else {
            throw ConfigurationError(key: source, message: "a device profile must be a JSON object")
        }
        let fields = Fields(object: object, source: source, prefix: "")
        try fields.rejectUnknown(keys)
        guard let name = try fields.string("name"), !name.isEmpty else {
            throw ConfigurationError(key: "\(source): name", message: "is missing")
        }
        // `min_sqlite_version` is the older name of the same key.
        if object["sqlite_version"] != nil && object["min_sqlite_version"] != nil {
            throw ConfigurationError(
                key: "\(source): min_sqlite_version", message: "is another name for sqlite_version; give only one of them")
        }
        let versionKey = object["sqlite_version"] != nil ? "sqlite_version" : "min_sqlite_version"
        var sqliteVersion: SQLiteVersion?
        if let text = try fields.string(versionKey) {
            guard let version = SQLiteVersion(text) else {
                throw ConfigurationError(
                    key: "\(source): \(versionKey)", message: "must be an SQLite version such as \"3.28\" or \"3.43.2\", got \"\(text)\"")
            }
            sqliteVersion = version
        }
        var sqliteBuild = SQLiteBuild.host
        if let text = try fields.string("sqlite_build") {
            guard let build = SQLiteBuild(rawValue: text) else {
                throw ConfigurationError(
                    key: "\(source): sqlite_build",
                    message: "must be one of \(SQLiteBuild.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(text)\"")
            }
            sqliteBuild = build
        }
        var entryPoint: DeviceProfile.EntryPoint?
        if let text = try fields.string("entry_point") {
            guard let value = DeviceProfile.EntryPoint(rawValue: text) else {
                throw ConfigurationError(
                    key: "\(source): entry_point",
                    message: "must be one of \(DeviceProfile.EntryPoint.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(text)\"")
            }
            entryPoint = value
        }
        var timeScale = 1.0
        if let value = object["time_scale"], value != .null {
            guard case .number(let number) = value, number > 0, number <= 1000 else {
                throw ConfigurationError(key: "\(source): time_scale", message: "must be a number above 0 and at most 1000, such as 2.5")
            }
            timeScale = number
        }
        return DeviceProfile(
            name: name, description: try fields.string("description") ?? "", sqliteVersion: sqliteVersion,
            sqliteBuild: sqliteBuild, entryPoint: entryPoint, watchdogMs: try fields.integer("watchdog_ms", minimum: 1).map { Int($0) },
            freeBytes: try fields.integer("free_bytes", minimum: 0),
            memoryLimitBytes: try fields.integer("memory_limit_bytes", minimum: 1),
            launches: Int(try fields.integer("launches", minimum: 1) ?? 5), timeScale: timeScale,
            speed: try speed(object["speed"], source: source),
            connection: try connection(object["connection"], source: source),
            durability: try durability(object["durability"], source: source))
    }

    /// `durability`: `fsync` (`durable` or `drive_cache`), `fullfsync`, `powersafe_overwrite`.
    private static func durability(_ value: JSONValue?, source: String) throws(ConfigurationError) -> Durability {
        var durability = Durability()
        guard let fields = try section(value, "durability", keys: Durability.keys, source: source) else { return durability }
        if let text = try fields.string("fsync") {
            guard let fsync = Durability.Fsync(rawValue: text) else {
                throw fields.problem("fsync", "must be durable or drive_cache, got \"\(text)\"")
            }
            durability.fsync = fsync
        }
        durability.fullfsync = try fields.bool("fullfsync") ?? durability.fullfsync
        durability.powersafeOverwrite = try fields.bool("powersafe_overwrite") ?? durability.powersafeOverwrite
        return durability
    }

    /// `speed`: `cpu` as a Geekbench 5 single-core score (the reference core's costs scaled
    /// to it) or as the costs themselves (what `preflight calibrate` prints), `storage`'s
    /// five rates, the app's `start_ms` and the `first_launch_cache`.
    private static func speed(_ value: JSONValue?, source: String) throws(ConfigurationError) -> SpeedModel? {
        guard let value, value != .null else { return nil }
        guard let object = value.objectValue else {
            throw ConfigurationError(key: "\(source): speed", message: "must be an object with cpu, storage and start_ms")
        }
        let fields = Fields(object: object, source: source, prefix: "speed.")
        try fields.rejectUnknown(["cpu", "storage", "start_ms", "first_launch_cache"])
        guard let cpuObject = object["cpu"]?.objectValue, let storageObject = object["storage"]?.objectValue else {
            throw fields.problem("cpu", "and speed.storage are both required objects")
        }
        let cpuFields = Fields(object: cpuObject, source: source, prefix: "speed.cpu.")
        let cpu: SpeedModel.CPU
        if cpuObject["geekbench5_single_core"] != nil {
            try cpuFields.rejectUnknown(["geekbench5_single_core"])
            cpu = SpeedModel.cpu(geekbench5SingleCore: try cpuFields.positive("geekbench5_single_core"))
        } else {
            try cpuFields.rejectUnknown([
                "vm_step_ns", "sort_ns", "cache_miss_ns", "cache_hit_ns", "collation_ns", "page_copy_ns", "prepare_ns",
                "statement_ns", "transaction_ns",
            ])
            let vmStepNs = try cpuFields.positive("vm_step_ns")
            // A profile fitted before comparisons, page-cache hits, page copies, statements or
            // transactions were counted lacks their cost: each costs what it costs the
            // reference core, against its instruction.
            let reference = SpeedModel.referenceCore.cpu
            func againstInstruction(_ key: String, reference cost: Double) throws(ConfigurationError) -> Double {
                cpuObject[key] == nil ? vmStepNs * cost / reference.vmStepNs : try cpuFields.positive(key, allowZero: true)
            }
            cpu = SpeedModel.CPU(
                vmStepNs: vmStepNs, sortNs: try cpuFields.positive("sort_ns", allowZero: true),
                cacheMissNs: try cpuFields.positive("cache_miss_ns", allowZero: true),
                cacheHitNs: try againstInstruction("cache_hit_ns", reference: reference.cacheHitNs),
                collationNs: try againstInstruction("collation_ns", reference: reference.collationNs),
                pageCopyNs: try againstInstruction("page_copy_ns", reference: reference.pageCopyNs),
                prepareNs: try againstInstruction("prepare_ns", reference: reference.prepareNs),
                statementNs: try againstInstruction("statement_ns", reference: reference.statementNs),
                transactionNs: try againstInstruction("transaction_ns", reference: reference.transactionNs))
        }
        let storageFields = Fields(object: storageObject, source: source, prefix: "speed.storage.")
        try storageFields.rejectUnknown(["read_mb_per_s", "write_mb_per_s", "read_latency_us", "write_latency_us", "flush_ms"])
        let storage = SpeedModel.Storage(
            readMBPerS: try storageFields.positive("read_mb_per_s"), writeMBPerS: try storageFields.positive("write_mb_per_s"),
            readLatencyUs: try storageFields.positive("read_latency_us", allowZero: true),
            writeLatencyUs: try storageFields.positive("write_latency_us", allowZero: true),
            flushMs: try storageFields.positive("flush_ms", allowZero: true))
        let startMs = object["start_ms"] == nil ? 0 : try fields.positive("start_ms", allowZero: true)
        var firstLaunchCache = SpeedModel.LaunchCache.cold
        if let text = try fields.string("first_launch_cache") {
            guard let cache = SpeedModel.LaunchCache(rawValue: text) else {
                throw fields.problem("first_launch_cache", "must be cold or warm, got \"\(text)\"")
            }
            firstLaunchCache = cache
        }
        return SpeedModel(cpu: cpu, storage: storage, startMs: startMs, firstLaunchCache: firstLaunchCache)
    }

    private static func connection(_ value: JSONValue?, source: String) throws(ConfigurationError) -> ConnectionSettings {
        var connection = ConnectionSettings()
        guard let fields = try section(value, "connection", keys: ConnectionSettings.keys, source: source) else { return connection }
        connection.secureDelete = try fields.bool("secure_delete")
        connection.legacyAlterTable = try fields.bool("legacy_alter_table")
        connection.foreignKeys = try fields.bool("foreign_keys")
        connection.journalMode = try fields.choice("journal_mode", ConnectionSettings.journalModes, "DELETE, TRUNCATE, PERSIST or WAL")
        connection.synchronous = try fields.choice("synchronous", ConnectionSettings.synchronousModes, "OFF, NORMAL, FULL or EXTRA")
        connection.tempStore = try fields.choice("temp_store", ConnectionSettings.tempStores, "DEFAULT, FILE or MEMORY")
        connection.journalSizeLimit = try fields.integer("journal_size_limit", minimum: -1)
        connection.walAutocheckpoint = try fields.integer("wal_autocheckpoint", minimum: 0).map { Int($0) }
        connection.androidFunctions = try fields.bool("android_functions")
        if let locale = try fields.string("locale") {
            // An ICU locale ID: language, then script, region or variant parts.
            let parts = locale.split(separator: "_", omittingEmptySubsequences: false)
            guard (1...4).contains(parts.count), parts.allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
            else { throw fields.problem("locale", "must be a locale such as en_US or tr_TR, got \"\(locale)\"") }
            connection.locale = locale
        }
        return connection
    }

    /// The members of the object `value` under `key`, which may hold only `keys`; nil when
    /// the profile does not have it.
    private static func section(
        _ value: JSONValue?, _ key: String, keys: Set<String>, source: String
    ) throws(ConfigurationError) -> Fields? {
        guard let value, value != .null else { return nil }
        guard let object = value.objectValue else {
            throw ConfigurationError(key: "\(source): \(key)", message: "must be an object")
        }
        let fields = Fields(object: object, source: source, prefix: key + ".")
        try fields.rejectUnknown(keys)
        return fields
    }

    /// The members of one JSON object, read with errors that name `source: prefix+key`.
    private struct Fields {
        let object: [String: JSONValue]
        let source: String
        let prefix: String

        func problem(_ key: String, _ message: String) -> ConfigurationError {
            ConfigurationError(key: "\(source): \(prefix)\(key)", message: message)
        }

        func rejectUnknown(_ known: Set<String>) throws(ConfigurationError) {
            if let unknown = object.keys.filter({ !known.contains($0) }).sorted().first {
                throw problem(unknown, "unknown key; keys are \(known.sorted().joined(separator: ", "))")
            }
        }

        func value(_ key: String) -> JSONValue? {
            guard let value = object[key], value != .null else { return nil }
            return value
        }

        func string(_ key: String) throws(ConfigurationError) -> String? {
            guard let value = value(key) else { return nil }
            guard let text = value.stringValue else { throw problem(key, "must be a string") }
            return text
        }

        func bool(_ key: String) throws(ConfigurationError) -> Bool? {
            guard let value = value(key) else { return nil }
            guard case .bool(let flag) = value else { throw problem(key, "must be true or false") }
            return flag
        }

        func integer(_ key: String, minimum: Int64) throws(ConfigurationError) -> Int64? {
            guard let value = value(key) else { return nil }
            guard let number = value.integerValue, number >= minimum else {
                throw problem(key, "must be an integer of at least \(minimum)")
            }
            return number
        }

        /// A number above zero (or zero, with `allowZero`).
        func positive(_ key: String, allowZero: Bool = false) throws(ConfigurationError) -> Double {
            guard case .number(let number)? = value(key), number.isFinite, allowZero ? number >= 0 : number > 0 else {
                throw problem(key, allowZero ? "must be a number of at least 0" : "must be a number above 0")
            }
            return number
        }

        /// One of `choices` (any case), in upper case.
        func choice(_ key: String, _ choices: Set<String>, _ described: String) throws(ConfigurationError) -> String? {
            guard let text = try string(key)?.uppercased() else { return nil }
            guard choices.contains(text) else { throw problem(key, "must be \(described)") }
            return text
        }
    }
}
