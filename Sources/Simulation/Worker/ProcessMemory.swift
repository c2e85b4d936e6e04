import Glibc
import MigrationCore

/// A process's resident memory, from `/proc/PID/status` (Linux): what a phone's
/// low-memory killer looks at. It counts everything the process holds in RAM, so with
/// `temp_store` memory it counts SQLite's sorts and temp files too.
struct ProcessMemory: Sendable, Equatable {
    /// `VmRSS`: resident now.
    var residentBytes: Int64
    /// `VmHWM`: the most resident since the process started, or since `resetPeak()`.
    var peakResidentBytes: Int64

    /// The memory of process `pid` (nil: this process); nil when it cannot be read, such as
    /// for a process that has ended (a zombie has no memory lines).
    static func read(pid: pid_t? = nil) -> ProcessMemory? {
        let path = pid.map { "/proc/\($0)/status" } ?? "/proc/self/status"
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress.map { $0 + filled }, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        var resident: Int64?
        var peak: Int64?
        for line in bytes[..<filled].split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("VmRSS:") { resident = kilobytes(text) }
            if text.hasPrefix("VmHWM:") { peak = kilobytes(text) }
        }
        guard let resident, let peak else { return nil }
        return ProcessMemory(residentBytes: resident, peakResidentBytes: max(peak, resident))
    }

    /// Starts a new peak at the current resident size (`clear_refs` 5, Linux 4.0). Where
    /// the kernel does not allow it the peak stays the process's, which is at least the
    /// step's: the figure is then an upper bound.
    @discardableResult
    static func resetPeak() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return Glibc.write(descriptor, "5", 1) == 1
    }

    /// In the worker, around each step: a new peak when the step starts, and the step's
    /// peak on the event that settles it.
    static func measureStep(_ event: inout MigrationEvent) {
        guard event.version != nil else { return }
        switch event.event {
        case .stepStarted:
            resetPeak()
        case .stepFinished, .stepFailed:
            event.peakMemoryBytes = read()?.peakResidentBytes
        case .opened, .statementStarted, .phaseStarted, .batchCommitted, .versionCommitted, .finished, .createStarted,
            .databaseErased:
            break
        }
    }

    /// "VmRSS:	  13584 kB" in bytes.
    private static func kilobytes(_ line: String) -> Int64? {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 2, let value = Int64(fields[1]) else { return nil }
        return value * 1024
    }
}
