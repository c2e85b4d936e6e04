@testable import Simulation
import Testing

/// The order a matrix hands out its cells (`MatrixCellOrder`): longest first, as far as
/// the devices' watchdogs and the rows' versions bound a cell before it runs.
@Suite("Matrix cell order")
struct MatrixCellOrderTests {
    static func device(_ name: String, watchdogMs: Int?, launches: Int) -> MatrixDevice {
        MatrixDevice(
            options: RunOptions(device: name, watchdogMs: watchdogMs, launches: launches), profile: DeviceProfile(name: name))
    }

    @Test func noWatchdogFirstThenTheLargestBudgetThenTheOldestVersion() {
        let rows = [
            MatrixRow(fromVersion: 0, source: .freshInstall, file: nil, bytes: 0, tables: [:], sha256: nil),
            MatrixRow(fromVersion: 1, source: .fixture, file: "v1.db", bytes: 1, tables: nil, sha256: nil),
            MatrixRow(fromVersion: 3, source: .synthesized, file: nil, bytes: nil, tables: nil, sha256: nil),
            MatrixRow(fromVersion: nil, source: .fixture, file: "garbage.db", bytes: 1, tables: nil, sha256: nil),
        ]
        // 5 s × 3 launches against 4 s × 5: the second device's launches may last longer.
        let devices = [
            Self.device("short", watchdogMs: 5_000, launches: 3), Self.device("long", watchdogMs: 4_000, launches: 5),
            Self.device("unbounded", watchdogMs: nil, launches: 1),
        ]
        let cells = rows.indices.flatMap { row in devices.indices.map { MatrixWork.Cell(row: row, device: $0) } }
        let order = MatrixCellOrder.longestFirst(cells, rows: rows, devices: devices, target: 4).map { cells[$0] }
        let named = order.map { "\(rows[$0.row].label(unique: true)) on \(devices[$0.device].name)" }
        #expect(named == [
            "from v1 on unbounded", "from v3 on unbounded", "from v0 on unbounded", "from an unknown version (garbage.db) on unbounded",
            "from v1 on long", "from v3 on long", "from v0 on long", "from an unknown version (garbage.db) on long",
            "from v1 on short", "from v3 on short", "from v0 on short", "from an unknown version (garbage.db) on short",
        ])
    }
}
