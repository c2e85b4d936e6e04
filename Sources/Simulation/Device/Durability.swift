/// What a sync guarantees on the device's storage (docs/CONTRACT.md §7 `durability`), for the
/// power-loss sweep: which writes a power cut may still take back, and whether it may tear
/// a sector. Sources are in docs/FIDELITY.md ("Power loss") and in each profile's description.
public struct Durability: Sendable, Equatable {
    /// What `fsync` promises.
    public enum Fsync: String, Sendable, CaseIterable {
        /// The data is on the medium when fsync returns (Android on ext4 or F2FS, Linux).
        case durable
        /// fsync hands the data to the drive, which may keep it in its volatile cache and
        /// write it out in any order; only F_FULLFSYNC (`PRAGMA fullfsync`) flushes that
        /// cache (Apple's fsync(2)).
        case driveCache = "drive_cache"
    }

    public var fsync: Fsync
    /// The app's connection asks for F_FULLFSYNC (`PRAGMA fullfsync`): every sync flushes
    /// the drive's cache, as on storage whose fsync is durable.
    public var fullfsync: Bool
    /// Writing one byte never damages the bytes around it (SQLite's
    /// SQLITE_IOCAP_POWERSAFE_OVERWRITE): without it, a write in flight at the power cut
    /// may leave its sectors torn or filled with garbage.
    public var powersafeOverwrite: Bool

    /// SQLite's own assumptions on unix: fsync durable, powersafe overwrite on.
    public init(fsync: Fsync = .durable, fullfsync: Bool = false, powersafeOverwrite: Bool = true) {
        self.fsync = fsync
        self.fullfsync = fullfsync
        self.powersafeOverwrite = powersafeOverwrite
    }

    /// Whether a sync that asked for `full` (SQLITE_SYNC_FULL) puts the file's writes on the
    /// medium, or only in the drive's cache.
    func reachesMedium(fullSync full: Bool) -> Bool {
        fsync == .durable || fullfsync || full
    }

    /// The keys of a profile's `durability` object.
    public static let keys: Set<String> = ["fsync", "fullfsync", "powersafe_overwrite"]
}
