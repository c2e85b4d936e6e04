import Foundation
import MigrationCore
import Simulation
import Synchronization

/// Jobs run with `keep=1`: their report and migrated database stay for `keep_seconds`,
/// then their directory is removed.
final class KeptJobs: Sendable {
    struct Entry: Sendable {
        var id: String
        var directory: String
        var report: Report
        var databasePath: String?
        var expires: ContinuousClock.Instant
    }

    private let entries = Mutex([String: Entry]())

    func keep(_ entry: Entry) {
        entries.withLock { $0[entry.id] = entry }
    }

    /// The entry, unless it is unknown or expired (an expired one is removed on the way).
    func entry(_ id: String) -> Entry? {
        let now = ContinuousClock.now
        let (found, expired) = entries.withLock { entries -> (Entry?, Entry?) in
            guard let entry = entries[id] else { return (nil, nil) }
            if entry.expires <= now {
                entries[id] = nil
                return (nil, entry)
            }
            return (entry, nil)
        }
        if let expired { removeDirectory(expired.directory) }
        return found
    }

    /// Removes every expired job; answers how many.
    @discardableResult
    func sweep() -> Int {
        let now = ContinuousClock.now
        let expired = entries.withLock { entries -> [Entry] in
            let gone = entries.values.filter { $0.expires <= now }
            for entry in gone { entries[entry.id] = nil }
            return gone
        }
        for entry in expired { removeDirectory(entry.directory) }
        return expired.count
    }

    /// At shutdown: nothing can reach them any more.
    func removeAll() {
        let all = entries.withLock { entries -> [Entry] in
            defer { entries.removeAll() }
            return Array(entries.values)
        }
        for entry in all { removeDirectory(entry.directory) }
    }

    var count: Int { entries.withLock { $0.count } }
}

/// Removes a job directory and everything in it; a directory already gone is fine.
func removeDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}
