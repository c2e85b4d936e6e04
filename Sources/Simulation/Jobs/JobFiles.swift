/// Names of the files a job directory holds besides the input and the work copy.
enum JobFiles {
    /// The space VFS's counters (mmapped by workers, read by the parent).
    static let spaceStats = "space.stats"
}
