import Foundation

/// The processes still running that a command started, found in /proc: how a test checks
/// that no worker is left behind.
public enum WorkerProcesses {
    /// The processes whose command line names a path under `directory` (a worker's `--job`).
    public static func under(_ directory: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: line, as: UTF8.self).contains(directory + "/")
        }
    }
}
