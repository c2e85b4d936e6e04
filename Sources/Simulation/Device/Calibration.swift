import CSpaceVFS
import Foundation
import MigrationCore

/// `preflight calibrate`: this machine, seen as a device. Runs a fixed workload through the
/// shim VFS, times each piece on the wall clock and counts its work as the device clock
/// does, and fits the speed model that explains the times (`SpeedFit`). With the printed
/// profile, a run's modelled `device_ms` can be set against its measured `elapsed_ms`:
/// the check that the model's structure holds, before a phone's constants go in.
public enum Calibration {
    /// What one calibration found: the model, and each piece's measured and modelled time.
    public struct Result: Sendable {
        public var speed: SpeedModel
        public var pieces: [(name: String, measuredMs: Double, modelledMs: Double)]
    }

    /// The connection settings the workload runs under, one file each: a rollback journal
    /// as Android's non-WAL default, and WAL as Room's.
    static let modes = [("delete", "PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL"),
                        ("wal", "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")]

    /// Runs the workload at `rows` and at a quarter of it, in `directory` (which it fills
    /// and leaves), and fits. `executable` is started a few times to time a process start.
    public static func run(directory: String, rows: Int, executable: String) throws -> Result {
        let statsPath = directory + "/calibration.stats"
        guard SpaceStats.create(path: statsPath, quotaBytes: nil) == 0 else {
            throw SQLiteError(code: 14, message: "cannot create \(statsPath)")
        }
        _ = try SpaceVFSMeter(statsPath: statsPath)
        var samples: [SpeedFit.Sample] = []
        for size in [rows / 4, rows] {
            for (mode, pragmas) in modes {
                samples += try workload(path: "\(directory)/calibration-\(mode)-\(size).db", rows: size, pragmas: pragmas)
                    .map { SpeedFit.Sample(name: "\(mode) \(size) \($0.name)", measuredMs: $0.measuredMs, work: $0.work) }
            }
        }
        let speed = SpeedFit.fit(samples, startMs: try processStartMs(executable))
        return Result(speed: speed, pieces: samples.map { ($0.name, $0.measuredMs, speed.time(of: $0.work).totalMs) })
    }

    /// The pieces: each kind of work a migration does (bulk inserts, a commit per row,
    /// batched copies and deletes, an index's sort, a rewrite of every row, a scan, a drop).
    private static func workload(path: String, rows: Int, pragmas: String) throws -> [SpeedFit.Sample] {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let launchWork = LaunchWork()
        launchWork.start()
        let connection = try Connection(path: path, vfs: SPACEVFS_NAME, create: true)
        connection.reportWork(to: launchWork)
        try connection.execute(pragmas + "; PRAGMA secure_delete = ON")
        var samples: [SpeedFit.Sample] = []
        func piece(_ name: String, _ work: () throws -> Void) throws {
            let before = launchWork.counts
            let started = ContinuousClock.now
            try work()
            let elapsed = ContinuousClock.now - started
            let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            samples.append(SpeedFit.Sample(name: name, measuredMs: ms, work: launchWork.counts - before))
        }
        let batch = 1_000
        try piece("insert in one transaction") {
            try connection.execute("""
                CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL);
                CREATE TABLE copy(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL);
                CREATE TABLE single(id INTEGER PRIMARY KEY, b TEXT);
                WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < \(rows))
                INSERT INTO t SELECT i, (i * 7919) % 1000003, printf('%08x-%d-note', (i * 2654435761) % 4294967296, i), i * 0.5 FROM s
                """)
        }
        try piece("a commit per row") {
            let insert = try connection.prepare("INSERT INTO single(b) VALUES (?)")
            for index in 0..<200 { try insert.run([.text("row \(index)")]) }
        }
        try piece("copy in committed batches") {
            let copy = try connection.prepare("INSERT INTO copy SELECT * FROM t WHERE id > ? AND id <= ?")
            for start in stride(from: 0, to: rows, by: batch) {
                try connection.execute("BEGIN")
                try copy.run([.integer(Int64(start)), .integer(Int64(start + batch))])
                try connection.execute("COMMIT")
            }
        }
        try piece("index build") { try connection.execute("CREATE INDEX t_b ON t(b)") }
        try piece("rewrite every row") { try connection.execute("UPDATE t SET c = c + 1, a = a + 1") }
        try piece("scan") { _ = try connection.rows("SELECT count(*), sum(length(b)), max(a) FROM t") }
        try piece("add column and index") {
            try connection.execute("ALTER TABLE t ADD COLUMN d TEXT; CREATE INDEX t_ac ON t(a, c)")
        }
        try piece("delete in committed batches") {
            let delete = try connection.prepare("DELETE FROM copy WHERE id > ? AND id <= ?")
            for start in stride(from: 0, to: rows / 2, by: batch) {
                try connection.execute("BEGIN")
                try delete.run([.integer(Int64(start)), .integer(Int64(start + batch))])
                try connection.execute("COMMIT")
            }
        }
        try piece("drop a table") { try connection.execute("DROP TABLE copy") }
        return samples
    }

    /// The median wall time of starting this binary and seeing it exit: the part of a
    /// launch before the app's code runs.
    private static func processStartMs(_ executable: String) throws -> Double {
        var times: [Double] = []
        for _ in 0..<7 {
            let started = ContinuousClock.now
            let child = try ChildProcess(executable: executable, arguments: ["--version"], environment: [:])
            child.go()
            while child.readLine(deadline: nil, shouldStop: { false }).line != nil {}
            _ = child.wait()
            let elapsed = ContinuousClock.now - started
            times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
        return times.sorted()[times.count / 2]
    }
}
