import Foundation
import MigrationCore
import Simulation

/// The device profiles of a directory (`Config/devices`), by name.
public struct DeviceCatalog: Sendable {
    public var profiles: [String: DeviceProfile]

    public init(profiles: [DeviceProfile]) {
        var byName: [String: DeviceProfile] = ["default": .builtInDefault]
        for profile in profiles { byName[profile.name] = profile }
        self.profiles = byName
    }

    /// Loads every `*.json` in `directory`; a profile that does not parse stops the load.
    public init(directory: String) throws(ConfigurationError) {
        var profiles: [DeviceProfile] = []
        for (file, bytes) in try jsonFiles(in: directory) {
            profiles.append(try DeviceProfileDecoder.decode(bytes, source: file))
        }
        self.init(profiles: profiles)
    }

    public func profile(named name: String) -> DeviceProfile? { profiles[name] }

    public var sorted: [DeviceProfile] { profiles.values.sorted { $0.name < $1.name } }
}

/// The registered plans of a directory (`Config/plans`), by their file name without `.json`.
public struct PlanCatalog: Sendable {
    public var plans: [String: Plan]

    public init(plans: [String: Plan]) { self.plans = plans }

    /// Loads every `*.json` in `directory`; a plan that does not parse stops the load,
    /// since a service that silently lacks a registered plan is worse than one that does not start.
    public init(directory: String) throws(ConfigurationError) {
        var plans: [String: Plan] = [:]
        for (file, bytes) in try jsonFiles(in: directory) {
            do {
                plans[String(file.dropLast(".json".count))] = try PlanDecoder.decode(bytes)
            } catch {
                throw ConfigurationError(key: "plans_dir: \(file)", message: error.message)
            }
        }
        self.plans = plans
    }

    public func plan(named name: String) -> Plan? { plans[name] }

    public var names: [String] { plans.keys.sorted() }
}

private func jsonFiles(in directory: String) throws(ConfigurationError) -> [(String, [UInt8])] {
    let names: [String]
    do {
        names = try FileManager.default.contentsOfDirectory(atPath: directory)
    } catch {
        throw ConfigurationError(key: directory, message: "cannot list the directory: \(error.localizedDescription)")
    }
    return try names.filter { $0.hasSuffix(".json") }.sorted().map { name throws(ConfigurationError) in
        guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
            throw ConfigurationError(key: directory + "/" + name, message: "cannot read the file")
        }
        return (name, [UInt8](data))
    }
}
