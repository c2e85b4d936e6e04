import Foundation
import MigrationCore

/// `preflight-bench clock [--runs 3] [--rows 1000000] [--corpus-rows 100000] [--modes delete,wal]
///  [--cases notes,rebuild,chunked,add-column,backfill,corpus] [--preflight PATH]`
///
/// Whether the device clock's model holds on this machine: for each migration of the benchmark
/// set, `preflight calibrate --rounds 3` (its own fixed workload, each piece's median over three
/// rounds) right before it, then the migration run with the printed profile, as a whole
/// process, in a rollback-journal and a WAL profile of the same speed. The calibration is
/// repeated for each migration because a virtual machine's speed drifts over the minutes the
/// set takes: a profile fitted once at the start describes the machine the first cases ran on,
/// and every later case then errs by the drift, which is the machine's and not the model's.
/// Per case, the run's modelled time (the launches' `device_ms` of a `preflight run --clock
/// device`) against its measured time (the launches' `elapsed_ms` of a `preflight run
/// --clock wall`), and the error. The two are separate runs because on the device clock a
/// sync is counted, not performed, so only a wall-clock run times the real flushes; the
/// modelled time is the same on every run, so it is taken once.
///
/// Cases: `notes`, the notes plan (`Config/plans/notes.json`) on `--rows` rows of notes;
/// `rebuild`, `chunked`, `add-column`, `backfill`, `preflight-bench run`'s cases on
/// `--rows` rows; `corpus`, each app of the differential corpus from its first version to
/// its last, synthesized like its seed with `--corpus-rows` rows in its largest table.
/// The measured time is the median of `--runs` runs, each after `sync` with the file read
/// into the page cache (`PageCache.warm`); the errors' range over the runs is printed beside.
/// The calibration is never fitted on these cases: its workload is its own.
func runClockBenchmark(arguments: [String]) throws {
    let options = try BenchmarkOptions(
        arguments: arguments, valued: ["--runs", "--rows", "--corpus-rows", "--modes", "--cases", "--preflight"])
    let runs = max(1, try options.integer("--runs") ?? 3)
    let rows = try options.integer("--rows") ?? 1_000_000
    let corpusRows = try options.integer("--corpus-rows") ?? 100_000
    let executable = try options.string("--preflight") ?? siblingExecutable("preflight")
    let modes = (options.string("--modes") ?? "delete,wal").split(separator: ",").map(String.init)
    for mode in modes where !["delete", "wal"].contains(mode) { throw BenchError("unknown mode \(mode); use delete or wal") }
    let caseNames = (options.string("--cases") ?? "notes,rebuild,chunked,add-column,backfill,corpus")
        .split(separator: ",").map(String.init)
    let root = NSTemporaryDirectory() + "/preflight-clock-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: root + "/devices", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }

    print("load when started: \(loadAverage())")

    var cases: [ClockBench.Case] = []
    for name in caseNames {
        switch name {
        case "notes":
            cases.append(try ClockBench.notesCase(root: root, rows: rows, executable: executable))
        case "corpus":
            cases += try ClockBench.corpusCases(root: root, rows: corpusRows, executable: executable)
        default:
            guard let change = RunBench.Change(rawValue: name), change != .verify, change != .check else {
                throw BenchError("unknown case \(name); use notes, rebuild, chunked, add-column, backfill or corpus")
            }
            cases.append(try ClockBench.runCase(change, root: root, rows: rows))
        }
    }
    var lines: [String: [String]] = [:]
    var worst: (label: String, error: Double)?
    for testCase in cases {
        let calibration = try Program(executable, ["calibrate", "--rounds", "3"], capturesOutput: true).run()
        print("preflight calibrate before \(testCase.name): \(String(format: "%.1f", calibration.seconds)) s; the profile it printed:")
        print(String(decoding: calibration.output, as: UTF8.self))
        try ClockBench.writeProfiles(calibration.output, modes: modes, in: root + "/devices")
        for mode in modes {
            let base = root + "/\(testCase.slug)-\(mode).db"
            DatabaseFiles(base).remove()
            try FileManager.default.copyItem(atPath: testCase.database, toPath: base)
            // A profile's journal_mode is for a fresh install: an uploaded file keeps its own.
            _ = try Connection(path: base).rows("PRAGMA journal_mode = \(mode)")
            var measured: [Double] = []
            var outcomes: Set<String> = []
            for _ in 0..<runs {
                sync()
                try PageCache.warm(base)
                let timing = try ClockBench.rehearse(base, plan: testCase.plan, mode: mode, clock: .wall, root: root, executable: executable)
                measured.append(timing.ms)
                outcomes.insert(timing.outcome)
            }
            let device = try ClockBench.rehearse(base, plan: testCase.plan, mode: mode, clock: .device, root: root, executable: executable)
            outcomes.insert(device.outcome)
            DatabaseFiles(base).remove()
            let modelled = device.ms
            let errors = measured.map { (modelled - $0) / $0 * 100 }.sorted()
            let median = measured.sorted()[runs / 2]
            let error = (modelled - median) / median * 100
            let label = "\(mode) \(testCase.name)"
            if abs(error) > abs(worst?.error ?? 0) || worst == nil { worst = (label, error) }
            let line = "| \(mode) | \(testCase.name) | \(outcomes.sorted().joined(separator: ", ")) | "
                + String(format: "%.0f ms (%.0f-%.0f) | %.0f ms | %+.1f%% (%+.1f..%+.1f) |",
                    median, measured.min() ?? 0, measured.max() ?? 0, modelled, error, errors.first ?? 0, errors.last ?? 0)
            print(line)
            lines[mode, default: []].append(line)
        }
    }
    print("\nload when done: \(loadAverage()); measured: median of \(runs) wall-clock runs each; modelled: one device-clock run")
    print("\n| mode | case | outcome | measured (min-max) | modelled | error (runs' range) |")
    print("|---|---|---|---|---|---|")
    for mode in modes { lines[mode, default: []].forEach { print($0) } }
    if let worst { print(String(format: "worst: %@ %+.1f%%", worst.label, worst.error)) }
}

enum ClockBench {
    /// One migration of the set: a database at its first version and the plan that migrates it.
    struct Case {
        /// The files' name.
        var slug: String
        var name: String
        var database: String
        var plan: String
    }

    /// The calibrated profile twice, as `this-machine-delete` and `this-machine-wal`: the
    /// same speed, with the connection settings `preflight calibrate` timed each mode in: a
    /// rollback journal with synchronous FULL, WAL with NORMAL.
    static func writeProfiles(_ printed: Data, modes: [String], in directory: String) throws {
        guard var profile = try JSONSerialization.jsonObject(with: printed) as? [String: Any], profile["speed"] != nil else {
            throw BenchError("preflight calibrate printed no profile with a speed")
        }
        for mode in modes {
            profile["name"] = "this-machine-\(mode)"
            profile["connection"] = ["journal_mode": mode.uppercased(), "synchronous": mode == "wal" ? "NORMAL" : "FULL"]
            try JSONSerialization.data(withJSONObject: profile, options: [.prettyPrinted, .sortedKeys])
                .write(to: URL(fileURLWithPath: "\(directory)/this-machine-\(mode).json"))
        }
    }

    /// The notes plan on `rows` notes at its first version.
    static func notesCase(root: String, rows: Int, executable: String) throws -> Case {
        let plan = repositoryFile("Config/plans/notes.json")
        let database = root + "/notes-base.db"
        try Program(executable, ["synthesize", "--plan", plan, "--version", "1", "--rows", "notes=\(rows)", "--out", database, "--synthesis-cache", "off"]).run()
        return Case(slug: "notes", name: "notes plan, \(rows) rows", database: database, plan: plan)
    }

    /// One of `preflight-bench run`'s changes on the notes table of `rows` rows.
    static func runCase(_ change: RunBench.Change, root: String, rows: Int) throws -> Case {
        let database = root + "/\(change.rawValue)-base.db"
        DatabaseFiles(database).remove()
        try BenchmarkNotes.makeDatabase(database, rows: rows, journalMode: "delete")
        let plan = root + "/\(change.rawValue).plan.json"
        try RunBench.planDocument(change).write(to: URL(fileURLWithPath: plan))
        return Case(slug: change.rawValue, name: "\(change.rawValue), \(rows) rows", database: database, plan: plan)
    }

    static let corpusApps = ["antennapod", "k9mail", "wikipedia-android", "duckduckgo-android", "fairemail", "siskin-im"]

    /// Each corpus app at its first version, synthesized as the capacity search does: its
    /// seed's largest table at `rows`, the other tables in the seed's proportions to it,
    /// the values shaped like the seed's.
    static func corpusCases(root: String, rows: Int, executable: String) throws -> [Case] {
        try corpusApps.map { app in
            let folder = repositoryFile("Tests/DifferentialTests/Fixtures/corpus")
            guard var document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(app).plan.json")))
                as? [String: Any], let steps = document["steps"] as? [[String: Any]], let first = steps.first
            else { throw BenchError("\(app).plan.json is not a plan") }
            // `source` and `notes` describe the extraction; they are not plan keys.
            document["source"] = nil
            document["notes"] = nil
            let plan = root + "/\(app).plan.json"
            try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: plan))
            let firstSQL = (first["sql"] as? [String]) ?? [(first["sql"] as? String) ?? ""]
            let sample = root + "/\(app)-seed.db"
            DatabaseFiles(sample).remove()
            try runSQLiteShell(sample, script: firstSQL.map { $0 + ";" }.joined(separator: "\n")
                + "\n" + (try String(contentsOfFile: "\(folder)/\(app).seed.sql", encoding: .utf8)) + "\nPRAGMA user_version = 1;\n")
            let counts = try tableRows(sample)
            guard let largest = counts.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }), largest.value > 0 else {
                throw BenchError("\(app)'s seed fills no table")
            }
            let rowsOption = counts.sorted { $0.key < $1.key }.map { name, count in
                "\(name)=\(Int((Double(count) / Double(largest.value) * Double(rows)).rounded()))"
            }.joined(separator: ",")
            let database = root + "/\(app)-base.db"
            try Program(
                executable, ["synthesize", "--plan", plan, "--version", "1", "--rows", rowsOption, "--like", sample, "--out", database, "--synthesis-cache", "off"],
                quiet: true
            ).run()
            return Case(slug: app, name: "\(app), \(largest.key) \(rows) rows", database: database, plan: plan)
        }
    }

    /// The rows of each ordinary table of the file (no SQLite or full-text shadow tables).
    static func tableRows(_ path: String) throws -> [String: Int] {
        let db = try Connection(path: path)
        let names = try db.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'")
            .compactMap { $0.first?.textValue }
        let shadows = Set(try db.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'")
            .compactMap { $0.first?.textValue }.flatMap { name in ["_content", "_segments", "_segdir", "_docsize", "_stat"].map { name + $0 } })
        var counts: [String: Int] = [:]
        for name in names where !shadows.contains(name) {
            counts[name] = Int(try db.integer("SELECT count(*) FROM \"\(name)\""))
        }
        return counts
    }

    /// Which time a run gives: the launches' `elapsed_ms` on the wall clock (real flushes),
    /// their `device_ms` on the device clock.
    enum Clock: String {
        case wall, device
        var launchKey: String { self == .wall ? "elapsed_ms" : "device_ms" }
    }

    struct Timing {
        var ms: Double
        var outcome: String
    }

    /// `preflight run --clock <clock>` of the plan on the file with the mode's profile: the
    /// launches' time on that clock. Without the space estimate before each step: it reads the
    /// tables the step touches, which the app does not do, so the device clock leaves it out
    /// and the measured time must too (on a small step of a large table it is most of it).
    static func rehearse(_ base: String, plan: String, mode: String, clock: Clock, root: String, executable: String) throws -> Timing {
        var program = Program(
            executable,
            ["run", "--db", base, "--plan", plan, "--verify", "off", "--space-check", "off", "--devices-dir", root + "/devices",
             "--device", "this-machine-\(mode)", "--clock", clock.rawValue],
            capturesOutput: true, quiet: true)
        // A run that reached its target but whose row counts tell of lost rows (the
        // synthesized rows of a corpus app meet its plan's deletes) still timed every step.
        program.acceptsAnyExit = true
        let run = try program.run()
        guard let report = try JSONSerialization.jsonObject(with: run.output) as? [String: Any],
            let outcome = report["outcome"] as? String, let launches = report["launches"] as? [[String: Any]]
        else { throw BenchError("preflight run printed no report") }
        guard ["completed", "verification_failed"].contains(outcome), launches.count == 1 else {
            throw BenchError("preflight run on \(base) ended \(outcome) after \(launches.count) launches: \(report["failure"] ?? "")")
        }
        let ms = launches.compactMap { $0[clock.launchKey] as? Int }.reduce(0, +)
        guard ms > 0 else { throw BenchError("preflight run --clock \(clock.rawValue) reported no \(clock.launchKey)") }
        return Timing(ms: Double(ms), outcome: outcome)
    }

    /// A file of the repository this program was built from (the working directory's).
    static func repositoryFile(_ path: String) -> String {
        FileManager.default.currentDirectoryPath + "/" + path
    }
}
