import CProcess
import Glibc

/// The limits a worker puts on itself before it opens anything: a worker runs SQLite on
/// a file that came from outside, so it must not outlive its parent, grow without
/// bound, or spin forever.
enum WorkerSandbox {
    struct Limits {
        var addressSpaceBytes: UInt64 = 4 << 30
        var fileSizeBytes: UInt64 = 64 << 30
        var cpuSeconds: UInt64 = 3600
    }

    /// Dies with the parent (`PR_SET_PDEATHSIG`), and exits at once when the parent is
    /// already gone (the signal is only armed for a parent that is still there).
    static func apply(parentPID: pid_t, limits: Limits = Limits()) {
        _ = preflight_set_parent_death_signal(SIGKILL)
        if getppid() != parentPID { _exit(70) }
        setLimit(Int32(RLIMIT_AS.rawValue), limits.addressSpaceBytes)
        setLimit(Int32(RLIMIT_FSIZE.rawValue), limits.fileSizeBytes)
        setLimit(Int32(RLIMIT_CPU.rawValue), limits.cpuSeconds)
    }

    /// Sets soft and hard limit. It fails only when the hard limit is already lower (a
    /// limit may be lowered, not raised), and then the stricter limit stays: nothing to report.
    private static func setLimit(_ resource: Int32, _ value: UInt64) {
        var limit = rlimit(rlim_cur: rlim_t(value), rlim_max: rlim_t(value))
        _ = setrlimit(__rlimit_resource_t(UInt32(resource)), &limit)
    }
}
