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
        // Not zeroed first: only the bytes read are looked at.
        let bytes = [UInt8](unsafeUninitializedCapacity: 4096) { buffer, initialized in
            while initialized < buffer.count {
                let count = Glibc.read(descriptor, buffer.baseAddress.map { $0 + initialized }, buffer.count - initialized)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                initialized += count
            }
        }
        let text = bytes[...]
        let resident = kilobytes(after: Array("VmRSS:".utf8), in: text)
        let peak = kilobytes(after: Array("VmHWM:".utf8), in: text)
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

    /// The number of kB on the line that starts with `label` ("VmRSS:\t  13584 kB"), in
    /// bytes. Read in place: the low-memory killer reads the file every few milliseconds.
    private static func kilobytes(after label: [UInt8], in text: ArraySlice<UInt8>) -> Int64? {
        var lineStart = text.startIndex
        while lineStart < text.endIndex {
            let lineEnd = text[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? text.endIndex
            if text[lineStart..<lineEnd].starts(with: label) {
                var value: Int64 = 0
                var digits = 0
                for byte in text[(lineStart + label.count)..<lineEnd] {
                    if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                        value = value * 10 + Int64(byte - UInt8(ascii: "0"))
                        digits += 1
                    } else if digits > 0 {
                        break
                    }
                }
                return digits > 0 ? value * 1024 : nil
            }
            lineStart = lineEnd + 1
        }
        return nil
    }
}
