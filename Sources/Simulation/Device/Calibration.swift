import CSpaceVFS
import Foundation
import MigrationCore

/// `preflight calibrate`: this machine, seen as a device. Runs a fixed workload through the
/// shim VFS, times each piece on the wall clock and counts its work as the device clock
/// does, and fits the speed model that explains the times (`SpeedFit`). With the printed
/// profile, a run's modelled `device_ms` can be set against its measured `elapsed_ms`:
/// the check that the model's structure holds, before a phone's constants go in.
public enum Calibration {
    /// What one calibration found: the model, each piece's measured and modelled time, and
    /// the costs the timings did not pin, kept at the reference machine's
    /// (`SpeedModel.referenceMachine`).
    public struct Result: Sendable {
        public var speed: SpeedModel
        public var pieces: [(name: String, measuredMs: Double, modelledMs: Double)]
        public var held: [String]

        /// The root mean square of the pieces' relative errors: how well the model explains
        /// the timings it was fitted to.
        public var rmsError: Double {
            let squares = pieces.map { (($0.modelledMs - $0.measuredMs) / $0.measuredMs) * (($0.modelledMs - $0.measuredMs) / $0.measuredMs) }
            return (squares.reduce(0, +) / Double(max(1, squares.count))).squareRoot()
        }
    }

    /// The connection settings the workload runs under, one file each: a rollback journal
    /// as Android's non-WAL default, and WAL as Room's.
    static let modes = [("delete", "PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL"),
                        ("wal", "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")]

    /// Runs the workload at `rows` and at a quarter of it, `rounds` times, in `directory`
    /// (which it fills and leaves), and fits each piece's median time. `executable` is this
    /// binary: a few rehearsals of a plan with next to nothing to do time a launch's own
    /// cost, the part of a launch that is not the migration's work.
    public static func run(directory: String, rows: Int, rounds: Int, executable: String) throws -> Result {
        let statsPath = directory + "/calibration.stats"
        guard SpaceStats.create(path: statsPath, quotaBytes: nil) == 0 else {
            throw CalibrationError("cannot create \(statsPath)")
        }
        _ = try SpaceVFSMeter(statsPath: statsPath)
        var timings: [[SpeedFit.Sample]] = []
        for _ in 0..<max(1, rounds) {
            var round: [SpeedFit.Sample] = []
            for size in [rows / 4, rows] {
                for (mode, pragmas) in modes {
                    round += try workload(path: "\(directory)/calibration-\(mode)-\(size).db", rows: size, pragmas: pragmas)
                        .map { SpeedFit.Sample(name: "\(mode) \(size) \($0.name)", measuredMs: $0.measuredMs, work: $0.work) }
                }
            }
            timings.append(round)
        }
        // The same file and statements do the same work every round: only the times vary.
        let samples = timings[0].indices.map { index in
            var sample = timings[0][index]
            sample.measuredMs = median(timings.map { $0[index].measuredMs })
            return sample
        }
        let fit = SpeedFit.fit(
            samples, startMs: try launchOverheadMs(executable, directory: directory), reference: SpeedModel.referenceMachine)
        let speed = fit.speed
        return Result(
            speed: speed, pieces: samples.map { ($0.name, $0.measuredMs, speed.time(of: $0.work).totalMs) }, held: fit.held)
    }

    /// The pieces: each kind of work a migration does, on a narrow table (an integer key, a
    /// text of 20-40 characters, numbers) with an index and a trigger: bulk inserts, a
    /// commit per row, a copy in committed key ranges, an index's sort on text, on text
    /// without case (`NOCASE`: a collation's call per comparison) and on numbers, SQLite's
    /// 12-step rebuild in one transaction, a backfill in committed key ranges whose trigger
    /// writes a log, a rewrite of every row, a scan, batched deletes, a
    /// drop; and on a wide table of long texts, as apps' main tables are (where the work of
    /// a row grows with its bytes, which the pages it spans count): its fill, rewrites that
    /// change nothing, an update from a lookup in another table, a rebuild.
    private static func workload(path: String, rows: Int, pragmas: String) throws -> [SpeedFit.Sample] {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let launchWork = LaunchWork()
        launchWork.start()
        let connection = try Connection(path: path, vfs: SPACEVFS_NAME, create: true)
        try connection.reportWork(to: launchWork)
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
        /// Runs `sql` (one statement, two key bounds) in a committed transaction per key range.
        func inCommittedRanges(_ sql: String, upTo last: Int) throws {
            let statement = try connection.prepare(sql)
            for start in stride(from: 0, to: last, by: batch) {
                try connection.execute("BEGIN IMMEDIATE")
                try statement.run([.integer(Int64(start)), .integer(Int64(min(last, start + batch)))])
                try connection.execute("COMMIT")
            }
        }
        let columns = "id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL"
        try piece("insert in one transaction") {
            try connection.execute("""
                CREATE TABLE t(\(columns));
                CREATE TABLE copy(\(columns));
                CREATE TABLE single(id INTEGER PRIMARY KEY, b TEXT);
                CREATE TABLE log(id INTEGER PRIMARY KEY AUTOINCREMENT, row INTEGER NOT NULL, at INTEGER NOT NULL);
                CREATE INDEX copy_a ON copy(a);
                CREATE TABLE named(id INTEGER PRIMARY KEY, b TEXT COLLATE NOCASE);
                WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < \(rows))
                INSERT INTO t SELECT i, (i * 7919) % 1000003,
                    substr(printf('%08x-%d-note-of-some-length', (i * 2654435761) % 4294967296, i), 1, 20 + i % 21), i * 0.5
                FROM s;
                INSERT INTO named SELECT id, b FROM t
                """)
        }
        try piece("wide: insert in one transaction") {
            try connection.execute("""
                CREATE TABLE wide(id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT, link TEXT, description TEXT,
                    author TEXT, language TEXT, hide TEXT, ref INTEGER, ref_text TEXT, state INTEGER DEFAULT 0,
                    size INTEGER, updated TEXT);
                WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < \(rows / 2))
                INSERT INTO wide(title, link, description, author, language, hide, ref, state, size, updated)
                SELECT printf('Item %d of a list with a longer title', i),
                    printf('https://example.org/feeds/%d/items/%x.mp3', i % 977, i * 2654435761 % 4294967296),
                    substr(printf('%.*c', 40 + i % 161, 'd') || i, 1, 200), CASE i % 5 WHEN 0 THEN NULL ELSE 'An Author ' || (i % 300) END,
                    'en', CASE i % 3 WHEN 0 THEN NULL ELSE 'played,downloaded' END, 1 + (i * 7919) % \(rows), i % 4, i * 1013,
                    printf('2024-%02d-%02dT10:00:00Z', 1 + i % 12, 1 + i % 28)
                FROM s
                """)
        }
        try piece("a commit per row") {
            let insert = try connection.prepare("INSERT INTO single(b) VALUES (?)")
            for index in 0..<500 { try insert.run([.text("row \(index)")]) }
        }
        try piece("statements prepared and run once") {
            for index in 0..<2_000 { _ = try connection.rows("SELECT a, b FROM t WHERE id = \(index * 37 % rows + 1)") }
        }
        try piece("a prepared lookup run many times") {
            let lookup = try connection.prepare("SELECT a, b FROM t WHERE id = ?")
            for index in 0..<20_000 { _ = try lookup.rows([.integer(Int64(index * 37 % rows + 1))]) }
        }
        try piece("copy in committed key ranges") {
            try inCommittedRanges("INSERT INTO copy SELECT * FROM t WHERE id > ? AND id <= ?", upTo: rows)
        }
        try piece("index on text") { try connection.execute("CREATE INDEX t_b ON t(b)") }
        // The collation's cost comes from a sort alone: a copy into a table whose NOCASE
        // index exists outgrows the page cache and rewrites the index's pages over and over,
        // writes this machine's own page cache absorbs, which would skew the storage's fit.
        try piece("index on text without case") { try connection.execute("CREATE INDEX named_b ON named(b)") }
        try piece("rebuild in one transaction") {
            try connection.execute("""
                BEGIN;
                CREATE TABLE t_new(id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b TEXT NOT NULL, c REAL, kind TEXT NOT NULL DEFAULT 'none');
                INSERT INTO t_new SELECT id, coalesce(a, 0), coalesce(b, ''), c, 'plain' FROM t;
                DROP TABLE t;
                ALTER TABLE t_new RENAME TO t;
                CREATE INDEX t_b ON t(b);
                CREATE TRIGGER t_logged AFTER UPDATE OF b ON t BEGIN INSERT INTO log(row, at) VALUES (new.id, new.a); END;
                COMMIT
                """)
        }
        try piece("backfill in committed key ranges, with a trigger") {
            try inCommittedRanges("UPDATE t SET b = upper(b) WHERE id > ? AND id <= ?", upTo: rows / 2)
        }
        try piece("wide: rewrites that change nothing") {
            try connection.execute("""
                BEGIN;
                UPDATE wide SET hide = replace(hide, 'unplayed', 'noplay');
                UPDATE wide SET hide = replace(hide, 'queued', 'not_queued');
                UPDATE wide SET hide = replace(hide, 'paused', 'unplayed');
                COMMIT
                """)
        }
        try piece("wide: update from a lookup") {
            try connection.execute("UPDATE wide SET ref_text = (SELECT b FROM t WHERE t.id = wide.ref)")
        }
        try piece("wide: rebuild in one transaction") {
            try connection.execute("""
                BEGIN;
                CREATE TABLE wide_new(id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, link TEXT, description TEXT,
                    author TEXT, language TEXT, hide TEXT, ref INTEGER, ref_text TEXT, state INTEGER NOT NULL DEFAULT 0,
                    size INTEGER, updated TEXT, keep INTEGER DEFAULT 1);
                INSERT INTO wide_new SELECT id, coalesce(title, ''), link, description, author, language, hide, ref, ref_text,
                    coalesce(state, 0), size, updated, 1 FROM wide;
                DROP TABLE wide;
                ALTER TABLE wide_new RENAME TO wide;
                CREATE INDEX wide_ref ON wide(ref);
                COMMIT
                """)
        }
        try piece("rewrite every row") { try connection.execute("UPDATE t SET c = c + 1, a = a + 1") }
        try piece("scan") { _ = try connection.rows("SELECT count(*), sum(length(b)), max(a) FROM t") }
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try evictFromPageCache(connection.fileName)
        try piece("scan, the file out of the page cache") {
            let cold = try Connection(path: path, vfs: SPACEVFS_NAME)
            try cold.reportWork(to: launchWork)
            _ = try cold.rows("SELECT count(*), sum(length(description)), max(ref) FROM wide")
        }
        try piece("add column and index on numbers") {
            try connection.execute("ALTER TABLE t ADD COLUMN d TEXT; CREATE INDEX t_ac ON t(a, c)")
        }
        try piece("delete in committed key ranges") {
            try inCommittedRanges("DELETE FROM copy WHERE id > ? AND id <= ?", upTo: rows / 2)
        }
        try piece("drop a table") { try connection.execute("DROP TABLE copy") }
        return samples
    }

    /// Takes the file at `path` (as SQLite names it to the shim) out of this machine's page
    /// cache (written out first, then dropped: Linux's `POSIX_FADV_DONTNEED`), and out of the
    /// shim's, so that the next read of each page is a read of the disk, and counted as one.
    private static func evictFromPageCache(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw CalibrationError("cannot open \(path) to evict it from the page cache") }
        defer { close(descriptor) }
        fsync(descriptor)
        guard posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED) == 0, spacevfs_forget_pages(path) == 0 else {
            throw CalibrationError("cannot evict \(path) from the page cache")
        }
    }

    /// The rows of one committed batch, as plans commonly set `batch_rows`.
    private static let batch = 2_000

    /// What a launch costs beyond its steps: the median over a few `preflight run`s of a
    /// one-step plan on a tiny file of each launch's `elapsed_ms` less its step's: the
    /// worker's start, its opening of the file, its close and exit, as the watchdog counts
    /// them.
    private static func launchOverheadMs(_ executable: String, directory: String) throws -> Double {
        let database = directory + "/launch.db", plan = directory + "/launch.plan.json"
        let create = "CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT)"
        try Connection(path: database, create: true).execute("\(create); INSERT INTO items(name) VALUES ('a'); PRAGMA user_version = 1")
        try Data("""
            {"name": "launch", "steps": [{"version": 1, "name": "create", "sql": "\(create)"},
              {"version": 2, "name": "index", "sql": "CREATE INDEX items_name ON items(name)"}]}
            """.utf8).write(to: URL(fileURLWithPath: plan))
        var overheads: [Double] = []
        for _ in 0..<5 {
            let child = try ChildProcess(
                executable: executable, arguments: ["run", "--db", database, "--plan", plan, "--verify", "off"],
                environment: ["TMPDIR": directory])
            child.go()
            var output: [UInt8] = []
            while let line = child.readLine(deadline: nil, shouldStop: { false }).line { output += line + [10] }
            _ = child.wait()
            guard let report = try? JSONDecoder().decode(LaunchTimes.self, from: Data(output)), report.launches.count == 1 else {
                throw CalibrationError("the rehearsal of the launch's own cost printed no report of one launch")
            }
            overheads.append(Double(report.launches[0].elapsedMs - report.steps.reduce(0) { $0 + $1.elapsedMs }))
        }
        return median(overheads)
    }

    /// What `launchOverheadMs` reads of a report.
    private struct LaunchTimes: Decodable {
        struct Timed: Decodable {
            var elapsedMs: Int
            enum CodingKeys: String, CodingKey { case elapsedMs = "elapsed_ms" }
        }
        var launches: [Timed]
        var steps: [Timed]
    }

    private static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}
