/// How full SQLite leaves b-tree pages, by how they were filled: measured with the
/// space VFS and dbstat (page size 4096).
enum PageFill {
    /// Rows appended in key order: `balance_quick` leaves every page full. Measured: a
    /// 100,000-row copy took 2,326 pages for a 2,327-page source.
    static let appended = 0.95
    /// CREATE INDEX (bulk load, in key order). Measured: 1,000,000 keys of 34 bytes in
    /// 8,832 pages, 99% full.
    static let bulkIndex = 0.95
    /// Rows that grow in place split their pages. Measured, UPDATE of every row of 50,000
    /// (95-byte rows) growing by 2 to 300 bytes: final fill 0.87-0.91.
    static let grown = 0.85
    /// Entries inserted out of key order (indexes filled by a copy or an UPDATE, a
    /// WITHOUT ROWID table). Measured: 100,000 random 24-byte keys into an index, 0.91;
    /// into a WITHOUT ROWID table in key order (no append shortcut there), 0.88.
    static let random = 0.8
}
