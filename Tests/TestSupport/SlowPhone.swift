import Foundation

/// The test device: a phone far slower than any machine that runs the suite, with a speed
/// model, so that a run on it is on `clock device`. Its watchdog counts the work done, not
/// this machine's time: a watchdog set in its milliseconds kills at the same point of the
/// work on any machine under any load, and a few thousand rows outlast it.
public enum SlowPhone {
    /// The profile's name, for `--device` (or the `device` option over HTTP).
    public static let name = "slow-phone"

    /// The profile, as a file in a devices directory holds it. It has no watchdog of its
    /// own: each test sets one in the device's milliseconds.
    public static let profile = """
        {"name": "slow-phone", "description": "a test phone",
         "speed": {"cpu": {"geekbench5_single_core": 40},
                   "storage": {"read_mb_per_s": 50, "write_mb_per_s": 20, "read_latency_us": 200,
                               "write_latency_us": 20, "flush_ms": 8},
                   "start_ms": 50}}
        """

    /// A devices directory inside `directory` holding the profile.
    public static func devicesDirectory(in directory: TemporaryDirectory) throws -> String {
        let devices = directory.file("devices")
        try FileManager.default.createDirectory(atPath: devices, withIntermediateDirectories: true)
        try Data(profile.utf8).write(to: URL(fileURLWithPath: devices + "/\(name).json"))
        return devices
    }

    /// `--devices-dir DIR --device slow-phone`, for `preflight run` and `preflight capacity`.
    public static func arguments(in directory: TemporaryDirectory) throws -> [String] {
        ["--devices-dir", try devicesDirectory(in: directory), "--device", name]
    }
}
