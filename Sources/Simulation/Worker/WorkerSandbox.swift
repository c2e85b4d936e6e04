import CProcess
import Foundation
import Glibc

/// The limits a worker puts on itself before it opens anything: a worker runs SQLite on
/// a file and a plan that came from outside, so it must not outlive its parent, grow
/// without bound, spin forever, or touch any file but its job's.
public enum WorkerSandbox {
    struct Limits {
        var addressSpaceBytes: UInt64 = 4 << 30
        var fileSizeBytes: UInt64 = 64 << 30
        var cpuSeconds: UInt64 = 3600
    }

    /// What confines a worker's file access on this machine.
    public enum FileSandbox: Sendable, Equatable {
        /// Landlock, at the kernel's ABI version.
        case landlock(abi: Int)
        /// Nothing: the kernel has no Landlock (or has it switched off); why, as it said.
        case none(reason: String)

        /// As `/healthz` reports it: `landlock` or `none`.
        public var name: String {
            switch self {
            case .landlock: return "landlock"
            case .none: return "none"
            }
        }
    }

    /// Probed once per process, the way a worker decides: `landlock_create_ruleset(NULL,
    /// 0, LANDLOCK_CREATE_RULESET_VERSION)`. The server and every worker it starts run
    /// on the same kernel, so what the server probes is what its workers do.
    public static let fileSandbox: FileSandbox = {
        let abi = preflight_landlock_abi()
        guard abi >= 1 else { return .none(reason: "Landlock is not available: \(String(cString: strerror(-abi)))") }
        return .landlock(abi: Int(abi))
    }()

    /// Dies with the parent (`PR_SET_PDEATHSIG`), and exits at once when the parent is
    /// already gone (the signal is only armed for a parent that is still there); sets
    /// the resource limits; confines file access to `jobDirectory` and reading the files
    /// `readable` (`confineFiles`).
    static func apply(parentPID: pid_t, jobDirectory: String, readable: [String] = [], limits: Limits = Limits()) {
        _ = preflight_set_parent_death_signal(SIGKILL)
        if getppid() != parentPID { _exit(70) }
        setLimit(Int32(RLIMIT_AS.rawValue), limits.addressSpaceBytes)
        setLimit(Int32(RLIMIT_FSIZE.rawValue), limits.fileSizeBytes)
        setLimit(Int32(RLIMIT_CPU.rawValue), limits.cpuSeconds)
        do {
            try confineFiles(to: jobDirectory, readable: readable)
        } catch {
            // The server says workers are confined (`fileSandbox`); one that cannot be must not run.
            WorkerStderr.say("cannot confine file access: \(error)")
            _exit(71)
        }
    }

    /// Sets soft and hard limit. It fails only when the hard limit is already lower (a
    /// limit may be lowered, not raised), and then the stricter limit stays: nothing to report.
    private static func setLimit(_ resource: Int32, _ value: UInt64) {
        var limit = rlimit(rlim_cur: rlim_t(value), rlim_max: rlim_t(value))
        _ = setrlimit(__rlimit_resource_t(UInt32(resource)), &limit)
    }

    // MARK: - Landlock

    struct ConfinementError: Error, CustomStringConvertible {
        var description: String
    }

    /// With Landlock, this process (and whatever it starts) may from now on only create,
    /// write, truncate and delete regular files in `jobDirectory` (the database, its
    /// journals, SQLite's temp files: the launcher points SQLITE_TMPDIR there, the space
    /// stats, the fresh install), and read and run what the process needs: the files it
    /// has mapped (its binary, its shared libraries) and the system's libraries under
    /// /usr and /lib, its own /proc entries, /dev/null, /dev/urandom, the CPU list and
    /// the local time zone; and reading the files `readable` (an upload that the inspection
    /// reads where it lies). Nothing else can be opened, not even to read. Without Landlock
    /// the worker runs unconfined (`fileSandbox` says so).
    ///
    /// Landlock confines the calling thread and the threads it starts later, so this must
    /// run before the process starts any other thread: it is checked.
    static func confineFiles(to jobDirectory: String, readable files: [String] = []) throws(ConfinementError) {
        guard case .landlock(let abi) = fileSandbox else { return }
        let abiValue = Int32(abi)
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
        guard threads == 1 else {
            throw ConfinementError(description: "the process runs \(threads) threads; Landlock would confine only one")
        }
        let ruleset = preflight_landlock_create_ruleset(abiValue)
        guard ruleset >= 0 else { throw failure("landlock_create_ruleset", ruleset) }
        defer { close(ruleset) }
        func allow(_ path: String, _ access: preflight_landlock_access, required: Bool) throws(ConfinementError) {
            let result = preflight_landlock_allow(ruleset, abiValue, path, access)
            guard result == 0 || (!required && result == -ENOENT) else { throw failure("landlock_add_rule \(path)", result) }
        }
        try allow(jobDirectory, PREFLIGHT_LANDLOCK_FILES, required: true)
        try allow("/dev/null", PREFLIGHT_LANDLOCK_READ_WRITE, required: true)
        for file in files { try allow(file, PREFLIGHT_LANDLOCK_READ, required: true) }
        let readable = ["/usr", "/lib", "/lib64", "/proc/self", "/dev/urandom", "/sys/devices/system/cpu", "/etc/localtime"]
        for path in readable + mappedFiles() {
            try allow(path, PREFLIGHT_LANDLOCK_READ_EXECUTE, required: false)
        }
        let restricted = preflight_landlock_restrict_self(ruleset)
        guard restricted == 0 else { throw failure("landlock_restrict_self", restricted) }
    }

    /// The files this process has mapped (`/proc/self/maps`): its binary and shared
    /// libraries, wherever they are installed (a toolchain under /opt, a build directory).
    private static func mappedFiles() -> [String] {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return [] }
        var files: Set<String> = []
        for line in maps.split(separator: "\n") {
            // address perms offset dev inode path; the path may hold spaces.
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6 else { continue }
            let path = fields[5].trimmingCharacters(in: .whitespaces)
            if path.hasPrefix("/") && !path.hasSuffix(" (deleted)") { files.insert(path) }
        }
        return files.sorted()
    }

    private static func failure(_ call: String, _ result: Int32) -> ConfinementError {
        ConfinementError(description: "\(call): \(String(cString: strerror(-result)))")
    }
}
