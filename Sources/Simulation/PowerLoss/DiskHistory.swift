/// The run's disk, operation by operation, as a power cut would find it: what has
/// reached the medium for good (`durable`) and what has not yet (`pending`), at every
/// crash point of the run.
///
/// After test6.c, SQLite's crash VFS, and ALICE: a write is pending until its file is
/// synced; a sync of one file settles that file alone; a creation or deletion is pending
/// until the directory is synced (the unix VFS syncs it at the first sync of a journal or
/// WAL it created, and after deleting a journal only with `synchronous=EXTRA`). Where
/// the drive keeps a volatile cache (`Durability.Fsync.driveCache`), a sync that does not
/// ask for F_FULLFSYNC only moves the file's writes into that cache, and they stay at risk
/// until the next sync: the drive is taken to write its cache out by then.
struct DiskHistory {
    let log: OperationLog
    /// The files before the first launch.
    let initial: DiskImage
    let durability: Durability

    /// One operation not yet on the medium, numbered by its place in the log.
    struct PendingOperation: Sendable {
        var sequence: Int
        var operation: OperationLog.Operation
    }

    /// A moment at which the power can go: every sync of the main file, journal or WAL
    /// (cut while it runs, so nothing it would settle is settled), and every commit that
    /// raised the version the app believes it has (cut just after it returned).
    struct CrashPoint: Sendable {
        enum Moment: Sendable, Equatable {
            case sync(DatabaseFile)
            case commit(version: Int)
        }

        /// From 1, in the order of the run.
        var ordinal: Int
        var moment: Moment
        /// The highest version the app had committed by then: what it may count on.
        var committedVersion: Int
        var durable: DiskImage
        /// In the order they were made.
        var pending: [PendingOperation]

        /// The plan step at stake: the one that just committed (a commit), or the one under
        /// way (a sync); nil after the last.
        func step(target: Int) -> Int? {
            if case .commit(let version) = moment { return version }
            return committedVersion < target ? committedVersion + 1 : nil
        }

        /// `journal`, `wal`, `main` (the file being synced), or `commit`.
        var phase: String {
            switch moment {
            case .sync(let file): return file.name
            case .commit: return "commit"
            }
        }
    }

    /// Calls `body` at each crash point, in order.
    func forEachPoint(_ body: (CrashPoint) throws -> Void) rethrows {
        var durable = initial
        var pending: [PendingOperation] = []
        var cached: [PendingOperation] = []
        var awaitingDirectorySync: Set<DatabaseFile> = []
        var committed: Int?
        var ordinal = 0
        for (sequence, operation) in log.operations.enumerated() {
            switch operation.kind {
            case .write, .truncate, .create, .delete:
                pending.append(PendingOperation(sequence: sequence, operation: operation))
                if case .create = operation.kind { awaitingDirectorySync.insert(operation.file) }
                if case .delete(directorySynced: true) = operation.kind {
                    settleDirectory(&durable, &pending, &cached)
                }
            case .sync(let full):
                ordinal += 1
                try body(CrashPoint(
                    ordinal: ordinal, moment: .sync(operation.file), committedVersion: committed ?? 0, durable: durable,
                    pending: (cached + pending).sorted { $0.sequence < $1.sequence }))
                if awaitingDirectorySync.remove(operation.file) != nil { settleDirectory(&durable, &pending, &cached) }
                // The drive has written out what an earlier sync left in its cache.
                for entry in cached { durable.apply(entry.operation, from: log) }
                cached = []
                let synced = pending.filter { $0.operation.file == operation.file && !$0.operation.changesDirectory }
                pending.removeAll { $0.operation.file == operation.file && !$0.operation.changesDirectory }
                if durability.reachesMedium(fullSync: full) {
                    for entry in synced { durable.apply(entry.operation, from: log) }
                } else {
                    cached = synced
                }
            case .commit(let version):
                // The first mark is where the first launch found the file: no commit.
                guard let last = committed else { committed = version; continue }
                guard version > last else { continue }
                committed = version
                ordinal += 1
                try body(CrashPoint(
                    ordinal: ordinal, moment: .commit(version: version), committedVersion: version, durable: durable,
                    pending: (cached + pending).sorted { $0.sequence < $1.sequence }))
            }
        }
    }

    /// A directory sync: every pending creation and deletion reaches the medium; a
    /// deletion takes the pending writes of the file it deleted, made before it, with it.
    private func settleDirectory(
        _ durable: inout DiskImage, _ pending: inout [PendingOperation], _ cached: inout [PendingOperation]
    ) {
        let changes = pending.filter { $0.operation.changesDirectory }
        for entry in changes { durable.apply(entry.operation, from: log) }
        let deletions = changes.filter { if case .delete = $0.operation.kind { return true } else { return false } }
        let settled = { (entry: PendingOperation) in
            entry.operation.changesDirectory
                || deletions.contains { $0.operation.file == entry.operation.file && entry.sequence < $0.sequence }
        }
        pending.removeAll(where: settled)
        cached.removeAll(where: settled)
    }
}
