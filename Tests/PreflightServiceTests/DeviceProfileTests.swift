import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

@testable import PreflightService

/// Device profiles as files (docs/CONTRACT.md §7): what a profile may say, what the shipped ones
/// say (docs/FIDELITY.md), and the options a profile sets.
@Suite struct DeviceProfileTests {
    /// Loads `documents` (file name to JSON) as a devices directory.
    private func catalog(_ documents: [String: String]) throws -> DeviceCatalog {
        let directory = TemporaryDirectory("devices")
        for (name, text) in documents {
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory.file(name)))
        }
        return try DeviceCatalog(directory: directory.path)
    }

    private func profile(_ json: String) throws -> DeviceProfile {
        try catalog(["p.json": json]).profile(named: "p") ?? DeviceProfile(name: "missing")
    }

    private let notes = Array(#"{"name": "n", "steps": [{"version": 1, "name": "a", "sql": "CREATE TABLE a(x)"}]}"#.utf8)

    @Test(arguments: [
        ("main_thread", 5_000), ("application_start", 15_000), ("content_provider", 10_000), ("launch", 20_000),
        ("background_task", 30_000),
    ])
    func theEntryPointSetsTheWatchdog(entryPoint: String, watchdogMs: Int) throws {
        let entered = try profile(#"{"name": "p", "entry_point": "\#(entryPoint)"}"#)
        #expect(entered.watchdogMs == watchdogMs)
        let explicit = try profile(#"{"name": "p", "entry_point": "\#(entryPoint)", "watchdog_ms": 1234}"#)
        #expect(explicit.watchdogMs == 1234)
        let (options, _) = try OptionResolver(devices: DeviceCatalog(profiles: [entered])).resolve(
            ["device": "p"], plan: PlanDecoder.decode(notes))
        #expect(options.watchdogMs == watchdogMs)
    }

    @Test func everyKeyIsRead() throws {
        let read = try profile("""
            {"name": "p", "description": "d", "sqlite_version": "3.31.1", "entry_point": "launch", "free_bytes": 10,
             "memory_limit_bytes": 268435456, "launches": 2, "time_scale": 2.5,
             "connection": {"journal_mode": "truncate", "synchronous": "full", "secure_delete": true,
                            "legacy_alter_table": true, "temp_store": "memory", "journal_size_limit": 524288,
                            "wal_autocheckpoint": 100, "foreign_keys": false}}
            """)
        #expect(read == DeviceProfile(
            name: "p", description: "d", sqliteVersion: SQLiteVersion("3.31.1"), entryPoint: .launch, freeBytes: 10,
            memoryLimitBytes: 268_435_456, launches: 2, timeScale: 2.5,
            connection: ConnectionSettings(
                secureDelete: true, journalMode: "TRUNCATE", synchronous: "FULL", legacyAlterTable: true,
                tempStore: "MEMORY", journalSizeLimit: 524_288, walAutocheckpoint: 100, foreignKeys: false)))
        #expect(read.watchdogMs == 20_000)
        #expect(try profile(#"{"name": "p", "min_sqlite_version": "3.22.0"}"#).sqliteVersion == SQLiteVersion("3.22"))
        #expect(try profile(#"{"name": "p"}"#).timeScale == 1)
    }

    /// A speed model fitted before comparisons or page-cache hits were counted still loads;
    /// each costs what it costs the reference core, against the profile's own instruction.
    @Test func aCPUWithoutACollationOrHitCostTakesTheReferenceRatio() throws {
        let speed = { (extra: String) in
            """
            {"name": "p", "speed": {"cpu": {"vm_step_ns": 48.2, "sort_ns": 0.5, "cache_miss_ns": 900\(extra)},
             "storage": {"read_mb_per_s": 50, "write_mb_per_s": 20, "read_latency_us": 200, "write_latency_us": 20, "flush_ms": 8}}}
            """
        }
        let reference = SpeedModel.referenceCore.cpu
        let older = try #require(try profile(speed("")).speed?.cpu)
        #expect(older.collationNs == 48.2 * reference.collationNs / reference.vmStepNs)
        #expect(older.cacheHitNs == 48.2 * reference.cacheHitNs / reference.vmStepNs)
        #expect(older.vmStepNs == 48.2)
        let fitted = try #require(try profile(speed(#", "collation_ns": 30, "cache_hit_ns": 0"#)).speed?.cpu)
        #expect(fitted.collationNs == 30 && fitted.cacheHitNs == 0)
        #expect(throws: ConfigurationError.self) { try profile(speed(#", "collation_ns": -1"#)) }
        #expect(throws: ConfigurationError.self) { try profile(speed(#", "cache_hit_ns": -1"#)) }
    }

    @Test(arguments: [
        (#"{"name": "p", "colour": "red"}"#, "p.json: colour"),
        (#"{"name": "p", "connection": {"page_size": 4096}}"#, "p.json: connection.page_size"),
        (#"{"name": "p", "sqlite_version": "3.x"}"#, "p.json: sqlite_version"),
        (#"{"name": "p", "sqlite_version": "3.28", "min_sqlite_version": "3.22"}"#, "p.json: min_sqlite_version"),
        (#"{"name": "p", "entry_point": "onCreate"}"#, "p.json: entry_point"),
        (#"{"name": "p", "sqlite_build": "debian"}"#, "p.json: sqlite_build"),
        (#"{"name": "p", "time_scale": 0}"#, "p.json: time_scale"),
        (#"{"name": "p", "memory_limit_bytes": 0}"#, "p.json: memory_limit_bytes"),
        (#"{"name": "p", "connection": {"temp_store": "ram"}}"#, "p.json: connection.temp_store"),
        (#"{"name": "p", "connection": {"legacy_alter_table": "yes"}}"#, "p.json: connection.legacy_alter_table"),
        (#"{"name": "p", "connection": {"wal_autocheckpoint": -1}}"#, "p.json: connection.wal_autocheckpoint"),
    ])
    func aBadProfileNamesItsKey(json: String, key: String) {
        #expect(throws: ConfigurationError.self) { try profile(json) }
        do {
            _ = try profile(json)
        } catch let error as ConfigurationError {
            #expect(error.key.hasSuffix(key), "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    /// The shipped profiles, against docs/FIDELITY.md's facts.
    @Test func theShippedProfilesAreThePlatformsReleases() throws {
        let shipped = try DeviceCatalog(directory: Repository.path("Config/devices"))
        let versions: [String: String] = [
            "android-28": "3.22", "android-30": "3.28", "android-33": "3.32", "android-34": "3.39", "android-35": "3.44",
            "ios-15": "3.36", "ios-16": "3.39", "ios-17": "3.39", "ios-18": "3.43.2",
            "android-anr": "3.22", "android-low-end": "3.22", "ios-launch": "3.36",
        ]
        #expect(Set(shipped.profiles.keys) == Set(versions.keys).union(["default"]))
        for (name, version) in versions {
            let device = try #require(shipped.profile(named: name))
            #expect(device.sqliteVersion == SQLiteVersion(version), "\(name)")
            #expect(device.memoryLimitBytes == nil && device.timeScale == 1, "\(name)")
            #expect(device.sqliteBuild == (name.hasPrefix("android") ? .android : .ios), "\(name)")
            if name.hasPrefix("android") {
                #expect(device.connection.tempStore == "MEMORY", "\(name)")
                #expect(device.connection.secureDelete == true, "\(name)")
                #expect(device.connection.journalSizeLimit == 524_288, "\(name)")
                #expect(device.connection.walAutocheckpoint == 100, "\(name)")
                #expect(device.connection.foreignKeys == false, "\(name)")
                // 3.22 predates the 3.25 rename; from API 30 the build sets it.
                #expect(device.connection.legacyAlterTable == true, "\(name)")
            } else {
                #expect(device.connection.legacyAlterTable == false, "\(name)")
                #expect(device.connection.tempStore == nil, "\(name)")
            }
            if device.connection.journalMode == "WAL" { #expect(device.connection.synchronous == "NORMAL", "\(name)") }
        }
        #expect(shipped.profile(named: "android-30")?.entryPoint == .applicationStart)
        #expect(shipped.profile(named: "ios-17")?.watchdogMs == 20_000)
        #expect(shipped.profile(named: "android-anr")?.watchdogMs == 5_000)
        #expect(shipped.profile(named: "android-low-end")?.connection.journalMode == "TRUNCATE")
        #expect(shipped.profile(named: "android-low-end")?.connection.synchronous == "FULL")
        #expect(shipped.profile(named: "default")?.sqliteVersion == nil)
        #expect(shipped.profile(named: "default")?.watchdogMs == nil)
    }

    /// The Kubernetes manifest's ConfigMap holds the same documents as Config/devices.
    @Test func theKubernetesConfigMapHoldsConfigDevices() throws {
        let manifest = try String(contentsOfFile: Repository.path("Config/kubernetes/preflight.yaml"), encoding: .utf8)
        let lines = manifest.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.contains("Generated from Config/devices") })
        let data = try #require(lines[start...].firstIndex(of: "data:"))
        var documents: [String: String] = [:]
        var current: String?
        for line in lines[(data + 1)...] {
            if line.hasPrefix("    ") || line.isEmpty, let name = current {
                documents[name, default: ""] += line.isEmpty ? "\n" : String(line.dropFirst(4)) + "\n"
            } else if line.hasPrefix("  "), line.hasSuffix(": |") {
                current = String(line.dropFirst(2).dropLast(3))
            } else {
                break
            }
        }
        let directory = Repository.path("Config/devices")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }
        #expect(Set(documents.keys) == Set(files))
        for file in files {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            #expect(documents[file] == text, "\(file) differs from its copy in the ConfigMap")
        }
    }

    @Test func theOptionsTakeSQLiteCheckAndTheProfilesTimeScale() throws {
        let plan = try PlanDecoder.decode(notes)
        let resolver = OptionResolver(devices: DeviceCatalog(profiles: [DeviceProfile(name: "slow", timeScale: 4)]))
        let (defaults, _) = try resolver.resolve(["device": "slow"], plan: plan)
        #expect(defaults.sqliteCheck == .fail)
        #expect(defaults.timeScale == 4)
        #expect(defaults.realDuration(ofDeviceMs: 1000) == .milliseconds(250))
        #expect(try resolver.resolve(["sqlite_check": "warn"], plan: plan).0.sqliteCheck == .warn)
        #expect(throws: OptionError("sqlite_check must be \"fail\" or \"warn\", got \"maybe\"")) {
            try resolver.resolve(["sqlite_check": "maybe"], plan: plan)
        }
    }
}
