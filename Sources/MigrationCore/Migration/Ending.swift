extension Migrator {
    /// How one call to `migrate` ended: the migrator's own result, which the layers above
    /// turn into theirs.
    public enum Ending: Sendable, Equatable {
        /// The target was reached.
        case reached(version: Int)
        /// The migration stopped short of the target; `Failure` says where and why.
        case stopped(Stop, Failure)
    }

    /// Why a migration stopped short of its target.
    public enum Stop: String, Sendable, Codable, CaseIterable {
        /// Refused before any step touched the data: a newer or foreign file, or not
        /// enough free space for the next step.
        case refused
        /// A step failed and rolled back.
        case failed
        /// The disk filled in the middle of a step; the step rolled back.
        case diskFull = "disk_full"
        /// The file is not an SQLite database SQLite can read.
        case invalidDatabase = "invalid_database"
    }
}
