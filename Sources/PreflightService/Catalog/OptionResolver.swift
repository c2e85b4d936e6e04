import Foundation
import MigrationCore
import Simulation

/// A run option that cannot be used, with a message naming the option and what it accepts.
public struct OptionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code = "invalid_option"
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// Turns the options a user wrote (`--watchdog-ms 5000`, `?free_bytes=50MB`, an
/// `options` JSON part) into the effective options of docs/CONTRACT.md §2: the device profile
/// sets the defaults, explicit values override it.
public struct OptionResolver: Sendable {
    public static let names = [
        "target", "device", "watchdog_ms", "free_bytes", "launches", "space_check", "verify", "sqlite_check",
        // disk_full_sweep is Preflight's own: docs/CONTRACT.md §2 names only kill_sweep.
        "kill_sweep", "disk_full_sweep", "power_loss_sweep", "clock",
    ]

    public var devices: DeviceCatalog

    public init(devices: DeviceCatalog) { self.devices = devices }

    /// `values` maps option names (snake_case) to the text the user wrote.
    public func resolve(_ values: [String: String], plan: Plan) throws(OptionError) -> (RunOptions, DeviceProfile) {
        if let unknown = values.keys.filter({ !Self.names.contains($0) }).sorted().first {
            throw OptionError("unknown option \"\(unknown)\"; options are \(Self.names.joined(separator: ", "))")
        }
        let deviceName = values["device"] ?? "default"
        guard let device = devices.profile(named: deviceName) else {
            throw OptionError(
                "device \"\(deviceName)\" is not a known device profile; known: \(devices.sorted.map(\.name).joined(separator: ", "))")
        }
        var options = RunOptions(
            device: device.name, watchdogMs: device.watchdogMs, freeBytes: device.freeBytes, launches: device.launches,
            timeScale: device.timeScale, clock: device.speed == nil ? .wall : .device, speed: device.speed)
        if let text = values["target"] {
            let target = try integer(text, option: "target", range: 0...plan.newestVersion)
            options.target = target
        }
        if let text = values["watchdog_ms"] {
            options.watchdogMs = isUnlimited(text) ? nil : try integer(text, option: "watchdog_ms", range: 1...86_400_000)
        }
        if let text = values["free_bytes"] {
            options.freeBytes = isUnlimited(text) ? nil : try byteCount(text)
        }
        if let text = values["launches"] {
            options.launches = try integer(text, option: "launches", range: 1...100)
        }
        if let text = values["space_check"] {
            guard let value = MigrationSettings.SpaceCheck(rawValue: text) else {
                throw OptionError("space_check must be \"estimate\" or \"off\", got \"\(text)\"")
            }
            options.spaceCheck = value
        }
        if let text = values["verify"] {
            guard let value = Verifier.Mode(rawValue: text) else {
                throw OptionError("verify must be \"full\", \"quick\" or \"off\", got \"\(text)\"")
            }
            options.verify = value
        }
        if let text = values["sqlite_check"] {
            guard let value = RunOptions.SQLiteCheck(rawValue: text) else {
                throw OptionError("sqlite_check must be \"fail\" or \"warn\", got \"\(text)\"")
            }
            options.sqliteCheck = value
        }
        if let text = values["clock"] {
            guard let clock = RunOptions.Clock(rawValue: text) else {
                throw OptionError("clock must be \"device\" or \"wall\", got \"\(text)\"")
            }
            if clock == .device && device.speed == nil {
                throw OptionError(
                    "clock \"device\" needs a device profile with a speed model, and \"\(device.name)\" has none (it means this machine); choose a device such as android-low-end or ios-launch, or run `preflight calibrate` to make a profile of this machine")
            }
            options.clock = clock
        }
        if let text = values["kill_sweep"] { options.killSweep = try sweep(text, option: "kill_sweep") }
        if let text = values["disk_full_sweep"] { options.diskFullSweep = try sweep(text, option: "disk_full_sweep") }
        if let text = values["power_loss_sweep"] {
            guard let selection = PowerLossSelection(text) else {
                throw OptionError(
                    "power_loss_sweep must be \"off\", \"all\", a number of states from 1 to \(SweepSelection.maxCount), or POINT:STATE as a report's power_loss_sweep failure names one (e.g. 12:lost-journal), got \"\(text)\"")
            }
            options.powerLossSweep = selection
        }
        return (options, device)
    }

    private func sweep(_ text: String, option: String) throws(OptionError) -> SweepSelection {
        guard let selection = SweepSelection(text) else {
            throw OptionError(
                "\(option) must be \"off\", \"all\" or a number of points from 1 to \(SweepSelection.maxCount), got \"\(text)\"")
        }
        return selection
    }

    private func isUnlimited(_ text: String) -> Bool { ["unlimited", "none", "off"].contains(text.lowercased()) }

    private func integer(_ text: String, option: String, range: ClosedRange<Int>) throws(OptionError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw OptionError("\(option) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
        }
        return value
    }

    /// Bytes, with an optional unit: `52428800`, `50MB` (10^6), `50MiB` (2^20).
    private func byteCount(_ text: String) throws(OptionError) -> Int64 {
        let units: [(String, Int64)] = [
            ("KIB", 1 << 10), ("MIB", 1 << 20), ("GIB", 1 << 30),
            ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("B", 1),
        ]
        let upper = text.uppercased().trimmingCharacters(in: .whitespaces)
        let (digits, multiplier) = units.first { upper.hasSuffix($0.0) }
            .map { (String(upper.dropLast($0.0.count)).trimmingCharacters(in: .whitespaces), $0.1) } ?? (upper, 1)
        guard let number = Int64(digits), number >= 0, number <= Int64.max / multiplier else {
            throw OptionError("free_bytes must be a number of bytes such as 52428800, 50MB or 50MiB, or \"unlimited\"; got \"\(text)\"")
        }
        return number * multiplier
    }
}
