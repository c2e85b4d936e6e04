import Foundation
import Glibc
import MigrationCore
import Synchronization

/// Synthesized files kept by their `SynthesisKey` (docs/synthesis.md, "The synthesis
/// cache"), so that a matrix, a capacity search or `preflight synthesize` that asks for a
/// file made before gets it without a synthesis.
///
/// In `directory`, one entry per key: `KEY/database` and `KEY/summary.json` (what the
/// synthesis answered and the database's SHA-256), and `KEY.lock`, the key's `CacheLock`.
/// Under that lock a job finds the entry, or makes the file and stores it; a second job
/// wanting the same key waits for the first and then finds it. An entry is written under
/// a temporary name in the directory (`KEY.tmp-...`) and renamed into place complete, so
/// that a store cut short (a kill) leaves no entry; a database whose hash is not the one
/// its summary holds is never used. Past `maxBytes`, the least recently used entries go.
///
/// The plan's SQL never runs here: the files are made by sandboxed workers in job
/// directories, and this process only copies them in and out.
public struct SynthesisCache: Sendable {
    public let directory: String
    /// The most the entries may take together.
    public let maxBytes: Int64

    public init(directory: String, maxBytes: Int64) {
        self.directory = directory
        self.maxBytes = maxBytes
    }

    /// How a cached file is put where it is wanted.
    public enum Placement: Sendable {
        /// A hard link (a copy across filesystems): for a reader that never writes the file
        /// (a matrix's row, which each cell copies).
        case link
        /// A copy of its own, for a file that will be written (grown, or handed to the user).
        case copy
    }

    /// The file a request got.
    public struct Provided: Sendable {
        public var summary: SynthesisSummary
        /// The database's SHA-256, when known without reading it again.
        public var sha256: String?
        /// Whether it came from the cache rather than a synthesis.
        public var cached: Bool
    }

    /// Puts the file `key` names at `path`: the cached one, else the one `make` writes
    /// there, which is then stored. A failure of the cache itself (a full disk, an
    /// unwritable directory) is told to `note` and costs only the reuse; `make`'s errors
    /// are the request's. `note` also hears when another job is making the same file.
    public func provide(
        _ key: SynthesisKey, at path: String, placement: Placement, deadline: ContinuousClock.Instant,
        cancellation: JobCancellation, note: (String) -> Void, make: () throws(SynthesisError) -> SynthesisSummary
    ) throws(SynthesisError) -> Provided {
        let lock: CacheLock
        do throws(CacheLock.Waited) {
            try createDirectory()
            lock = try CacheLock.acquire(
                directory + "/" + key.hex + ".lock", deadline: deadline, cancellation: cancellation,
                waiting: { note("synthesis cache: waiting for another job that makes the same file") })
        } catch {
            switch error {
            case .cancelled:
                throw SynthesisError(code: "cancelled", message: "stopped while waiting for another job's synthesis of the same file")
            case .timeLimit:
                throw SynthesisError(code: "time_limit", message: "the time ran out while another job made the same file")
            case .cannotOpen(let reason):
                note("synthesis cache: \(reason); synthesizing without it")
                return Provided(summary: try make(), sha256: nil, cached: false)
            }
        }
        defer {
            // A key left with no entry (its file not kept) keeps no lock file either.
            if !FileManager.default.fileExists(atPath: directory + "/" + key.hex) { lock.removeFile() }
        }
        if let found = entry(key) {
            do throws(FileError) {
                try place(found.database, at: path, placement)
                return Provided(summary: found.summary, sha256: found.sha256, cached: true)
            } catch {
                note("synthesis cache: cannot use the cached file (\(error)); synthesizing it again")
            }
        }
        let summary = try make()
        let sha256 = store(key, from: path, placement, summary: summary, note: note)
        evict(note: note)
        return Provided(summary: summary, sha256: sha256, cached: false)
    }

    // MARK: - Entries

    private struct Found {
        var database: String
        var summary: SynthesisSummary
        var sha256: String
    }

    /// What `summary.json` holds.
    private struct StoredSummary: Codable {
        var tables: [String: Int]
        var bytes: Int64
        var journalMode: String
        var sha256: String

        enum CodingKeys: String, CodingKey {
            case tables, bytes, journalMode = "journal_mode", sha256
        }
    }

    private static let databaseName = "database"
    private static let summaryName = "summary.json"

    /// The entry of `key`, checked against its hash and marked used now; nil when there is
    /// none or it is damaged (then it is removed). The caller holds the key's lock.
    private func entry(_ key: SynthesisKey) -> Found? {
        let place = directory + "/" + key.hex
        let database = place + "/" + Self.databaseName
        guard FileManager.default.fileExists(atPath: place) else { return nil }
        guard let data = FileManager.default.contents(atPath: place + "/" + Self.summaryName),
            let stored = try? JSONDecoder().decode(StoredSummary.self, from: data),
            fileSize(database) == stored.bytes, (try? sha256OfFile(database)) == stored.sha256
        else {
            Self.removeEntry(place)
            return nil
        }
        // Its last use, for eviction: the summary's modification time.
        utimensat(AT_FDCWD, place + "/" + Self.summaryName, nil, 0)
        return Found(
            database: database, summary: SynthesisSummary(tables: stored.tables, bytes: stored.bytes, journalMode: stored.journalMode),
            sha256: stored.sha256)
    }

    private func place(_ database: String, at path: String, _ placement: Placement) throws(FileError) {
        DatabaseFiles(path).remove()
        if placement == .link, link(database, path) == 0 { return }
        try copyFile(database, to: path)
    }

    private static let temporaryNames = Atomic<Int>(0)

    /// Stores the file at `path` as `key`'s entry (a hard link where `placement` says the
    /// file is only read, else a copy); answers its hash, nil when it was not stored. The
    /// caller holds the key's lock.
    ///
    /// Nothing is synced: a file that a crash left short or damaged fails its hash when it
    /// is next asked for, and is made again.
    private func store(
        _ key: SynthesisKey, from path: String, _ placement: Placement, summary: SynthesisSummary, note: (String) -> Void
    ) -> String? {
        // A WAL beside it would be part of the file; a synthesis leaves none.
        guard summary.bytes <= maxBytes, !FileManager.default.fileExists(atPath: DatabaseFiles(path).wal) else { return nil }
        removeTemporaries(of: key.hex)
        let number = Self.temporaryNames.add(1, ordering: .relaxed).newValue
        let temporary = directory + "/\(key.hex).tmp-\(getpid())-\(number)"
        do throws(FileError) {
            guard mkdir(temporary, 0o700) == 0 else { throw FileError("cannot create", temporary) }
            if placement != .link || link(path, temporary + "/" + Self.databaseName) != 0 {
                try copyFile(path, to: temporary + "/" + Self.databaseName)
            }
            let sha256 = try sha256OfFile(temporary + "/" + Self.databaseName)
            if Self.holdsStore { StepHold.hold(in: temporary) }
            let stored = StoredSummary(tables: summary.tables, bytes: summary.bytes, journalMode: summary.journalMode, sha256: sha256)
            let summaryPath = temporary + "/" + Self.summaryName
            guard let data = try? JSONEncoder().encode(stored), FileManager.default.createFile(atPath: summaryPath, contents: data)
            else { throw FileError("cannot write", summaryPath) }
            Self.removeEntry(directory + "/" + key.hex)
            guard rename(temporary, directory + "/" + key.hex) == 0 else { throw FileError("cannot rename", temporary) }
            return sha256
        } catch {
            note("synthesis cache: cannot store the file (\(error)); it is used but not kept")
            Self.removeEntry(temporary)
            return nil
        }
    }

    /// Test-only (`PREFLIGHT_TEST_FAULT=hold_cache_store=on`, `FaultInjection`).
    private static var holdsStore: Bool {
        FaultInjection.inEnvironment?.holdsCacheStore == true
    }

    // MARK: - Eviction

    /// Removes the least recently used entries until the rest fit in `maxBytes`, and what
    /// stores cut short left. An entry another job holds now is kept.
    private func evict(note: (String) -> Void) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        var entries: [(key: String, used: Int, bytes: Int64)] = []
        for name in names {
            if let dot = name.firstIndex(of: "."), name[dot...].hasPrefix(".tmp-") {
                removeTemporaries(of: String(name[..<dot]), onlyWhenFree: true)
            } else if name.count == 64, !name.contains(".") {
                var info = stat()
                let used = stat(directory + "/" + name + "/" + Self.summaryName, &info) == 0 ? info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec : 0
                entries.append((name, used, (fileSize(directory + "/" + name + "/" + Self.databaseName) ?? 0)))
            }
        }
        var total = entries.reduce(0) { $0 + $1.bytes }
        for entry in entries.sorted(by: { $0.used < $1.used }) where total > maxBytes {
            guard let lock = try? CacheLock.attempt(directory + "/" + entry.key + ".lock") else { continue }
            Self.removeEntry(directory + "/" + entry.key)
            lock.removeFile()
            total -= entry.bytes
        }
    }

    /// Removes the temporaries of stores of `key` cut short; with `onlyWhenFree`, only when
    /// no job holds the key (else the caller holds it).
    private func removeTemporaries(of key: String, onlyWhenFree: Bool = false) {
        let lock = onlyWhenFree ? (try? CacheLock.attempt(directory + "/" + key + ".lock")) : nil
        if onlyWhenFree, lock == nil { return }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(key + ".tmp-") { Self.removeEntry(directory + "/" + name) }
        // A key left with no entry keeps no lock file either.
        if let lock, !FileManager.default.fileExists(atPath: directory + "/" + key) { lock.removeFile() }
    }

    /// The summary first: an entry without one is no entry, whatever else a crash leaves.
    private static func removeEntry(_ place: String) {
        unlink(place + "/" + summaryName)
        // Best effort: what is left is removed by the next store or eviction of the key.
        try? FileManager.default.removeItem(atPath: place)
    }

    private func createDirectory() throws(CacheLock.Waited) {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotOpen("cannot create \(directory): \(error.localizedDescription)")
        }
    }
}
