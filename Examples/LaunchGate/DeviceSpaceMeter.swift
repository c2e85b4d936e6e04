import Foundation
import MigrationCore

/// Free space as the device's file system reports it (`statvfs` on the database's
/// directory), so that the migrator refuses a step whose estimate does not fit instead of
/// starting it and filling the disk.
final class DeviceSpaceMeter: SpaceMeter {
    private let files: DatabaseFiles
    private let directory: String
    /// A figure to report instead of the file system's (to try a nearly full disk).
    private let fixedFreeBytes: Int64?
    private var bytesAtStepStart: Int64 = 0

    init(databasePath: String, fixedFreeBytes: Int64?) {
        files = DatabaseFiles(databasePath)
        directory = URL(fileURLWithPath: databasePath).deletingLastPathComponent().path
        self.fixedFreeBytes = fixedFreeBytes
    }

    /// The default VFS: on a device the file system itself is the limit.
    var vfsName: String? { nil }

    /// Bytes an unprivileged process may still write. nil (unknown) when `statvfs` fails:
    /// the step then runs unchecked, and a disk that fills rolls it back (SQLITE_FULL).
    func freeBytes() -> Int64? {
        if let fixedFreeBytes { return fixedFreeBytes }
        var stats = statvfs()
        guard statvfs(directory, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }

    func beginStep(_ version: Int) {
        bytesAtStepStart = filesBytes()
    }

    /// Without a VFS of its own a device sees neither the peak nor the traffic of a step,
    /// only what the files hold when it is asked.
    func stepSpace() -> StepSpace {
        let now = filesBytes()
        return StepSpace(peakBytes: now, peakGrowthBytes: max(0, now - bytesAtStepStart), bytesWritten: 0, syncs: 0)
    }

    /// The database and its journal, WAL and shared-memory files, those that exist.
    private func filesBytes() -> Int64 {
        files.all.reduce(0) { total, path in
            var info = stat()
            return total + (stat(path, &info) == 0 ? Int64(info.st_size) : 0)
        }
    }
}
