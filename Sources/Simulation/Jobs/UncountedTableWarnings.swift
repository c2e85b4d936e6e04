import MigrationCore

/// Warnings for virtual tables that a worker could not count (`TableCounts.uncounted`): the
/// report leaves them out of `tables` and `rows_lost` rather than give them a made-up number,
/// and says so here, once per table.
enum UncountedTableWarnings {
    static let code = "table_not_counted"

    /// The warnings for `uncounted`, met `place` ("in the input", "after the run"), that
    /// `warnings` does not hold yet.
    static func add(_ uncounted: [String: String]?, place: String, to warnings: inout [Warning]) {
        for (table, reason) in (uncounted ?? [:]).sorted(by: { $0.key < $1.key }) {
            let prefix = "virtual table \(table) "
            guard !warnings.contains(where: { $0.code == code && $0.message.hasPrefix(prefix) }) else { continue }
            let shadows = reason.hasPrefix("no such module")
                ? "; without its module SQLite cannot tell the table's shadow tables from ordinary ones, so those are listed as tables"
                : ""
            warnings.append(Warning(
                code: code, step: nil,
                message: prefix + "cannot be read \(place) (\(reason)), so it is left out of tables and rows_lost, and a loss of its rows would not be noticed\(shadows)"))
        }
    }
}
