/// The order in which a matrix hands out its cells: the longest first, so that no core
/// sits idle at the end while one long cell runs on. A cell's length is not known before
/// it runs; what bounds it is known: a launch lasts at most the device's watchdog, and a
/// cell at most its launches' worth of them (a device without a watchdog bounds nothing,
/// and comes first). Among the cells of one bound, a row with more steps still to run
/// comes first; the fresh install's file is empty, its steps cheap, and a row whose
/// version is unknown (a fixture that is not a database) ends at its first read: those
/// come last.
///
/// The order only chooses what starts next: each cell's rehearsal and its result are the
/// same in any order.
enum MatrixCellOrder {
    /// The indices of `cells`, longest first; ties keep the matrix's canonical order.
    static func longestFirst(_ cells: [MatrixWork.Cell], rows: [MatrixRow], devices: [MatrixDevice], target: Int) -> [Int] {
        func key(_ cell: MatrixWork.Cell) -> (budget: Int, stepsAhead: Int) {
            let options = devices[cell.device].options
            let budget = options.watchdogMs.map { watchdog in
                let (product, overflow) = watchdog.multipliedReportingOverflow(by: max(1, options.launches))
                return overflow ? Int.max : product
            } ?? Int.max
            let row = rows[cell.row]
            switch (row.source, row.fromVersion) {
            case (.freshInstall, _): return (budget, -1)
            case (_, nil): return (budget, -2)
            case (_, let version?): return (budget, max(0, target - version))
            }
        }
        return cells.indices.sorted { a, b in
            let (first, second) = (key(cells[a]), key(cells[b]))
            return first > second || (first == second && a < b)
        }
    }
}
