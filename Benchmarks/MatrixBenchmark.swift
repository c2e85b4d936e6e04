import Foundation
import Simulation

/// `preflight-bench matrix [--rows 200000] [--runs 3] [--jobs N] [--devices ios-launch,android-low-end]
///  [--plan Config/plans/notes.json] [--dir DIR] [--preflight PATH]`
///
/// What the matrix's parallelism buys, whole processes each time: `preflight matrix` on the
/// notes plan (rows v0 to v5: the fresh install and five synthesized versions, each made once
/// for both devices) on two devices, against its cells run one at a time as `preflight run`
/// on the same files (made beforehand, untimed, by `preflight synthesize` with the matrix's
/// seed), whose sum is divided by the cores the matrix used (`--jobs`, default this machine's).
/// The matrix's time includes its syntheses; the cells' do not: their time is printed too.
///
/// Protocol: each round runs the matrix twice with a synthesis cache of the round's own,
/// empty at first: the first run makes every file and keeps it, the second (an unchanged
/// plan, as a pipeline's next run) finds them all there; then the cells (ABC), after `sync`.
/// Prints each round's ratios first run ÷ (sum of the cells ÷ cores) and second run ÷ the
/// same, then the median and the range of each. Goals: the second at most 1.05 (it costs
/// only its cells); the first, which makes the files, at most 1.15. Each round also says
/// where the matrix's time went: its cells' own times together (each report's `total_ms`,
/// run beside another cell) against the same cells one at a time, and the time left to the
/// syntheses and to cores waiting.
func runMatrixBenchmark(arguments: [String]) throws {
    let options = try BenchmarkOptions(
        arguments: arguments, valued: ["--rows", "--runs", "--jobs", "--devices", "--plan", "--dir", "--preflight"])
    let rows = try options.integer("--rows") ?? 200_000
    let runs = max(1, try options.integer("--runs") ?? 3)
    let jobs = max(1, try options.integer("--jobs") ?? ProcessInfo.processInfo.activeProcessorCount)
    let devices = (options.string("--devices") ?? "ios-launch,android-low-end").split(separator: ",").map(String.init)
    let plan = options.string("--plan") ?? "Config/plans/notes.json"
    let executable = try options.string("--preflight") ?? siblingExecutable("preflight")
    let root = (options.string("--dir") ?? NSTemporaryDirectory()) + "/preflight-matrix-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }

    // The rows' files, as the matrix makes them: the same seed, version and size.
    let planVersions = try MatrixBench.newestVersion(plan)
    var files = [root + "/v0.db"]
    FileManager.default.createFile(atPath: files[0], contents: Data())
    var synthesisSeconds = 0.0
    for version in 1..<planVersions {
        let path = root + "/v\(version).db"
        synthesisSeconds += try Program(
            executable,
            [
                "synthesize", "--plan", plan, "--version", "\(version)", "--rows", "notes=\(rows)", "--seed",
                "\(SynthesisRequest.rehearsalSeed)", "--out", path, "--synthesis-cache", "off",
            ],
            quiet: true
        ).run().seconds
        files.append(path)
    }
    print("load when started: \(loadAverage()); plan \(plan), rows v0 to v\(planVersions - 1) at \(rows) rows of notes, devices \(devices.joined(separator: ", ")), \(jobs) cores used")
    print(String(format: "the %d syntheses one at a time (the matrix's own, inside its time): %.2f s", planVersions - 1, synthesisSeconds))
    var ratios: (first: [Double], second: [Double]) = ([], [])
    for round in 1...runs {
        let cache = root + "/cache-\(round)"
        let first = try MatrixBench.run(executable, plan: plan, devices: devices, rows: rows, jobs: jobs, cache: cache)
        let second = try MatrixBench.run(executable, plan: plan, devices: devices, rows: rows, jobs: jobs, cache: cache)
        for (answer, cached) in [(first.answer, false), (second.answer, true)] {
            let synthesized = answer.rows.filter { $0.source == .synthesized }
            guard synthesized.count == planVersions - 1, synthesized.allSatisfy({ $0.cached == cached }),
                answer.cells.count == files.count * devices.count
            else {
                throw BenchError(
                    "the matrix answered \(answer.rows.count) rows (\(synthesized.count) synthesized, \(synthesized.filter { $0.cached == true }.count) of them from the cache, \(cached ? "all" : "none") expected) and \(answer.cells.count) cells")
            }
        }
        sync()
        var cells = 0.0
        for file in files {
            for device in devices {
                var run = Program(executable, ["run", "--db", file, "--plan", plan, "--device", device], quiet: true)
                run.acceptsAnyExit = true
                cells += try run.run().seconds
            }
        }
        let perCore = cells / Double(jobs)
        ratios.first.append(first.seconds / perCore)
        ratios.second.append(second.seconds / perCore)
        let outcomes = Set(second.answer.cells.map(\.cell.outcome.rawValue)).sorted().joined(separator: ", ")
        print(String(
            format: "round %d: first run %.2f s, second %.2f s; %d cells one at a time %.2f s, / %d cores = %.2f s; ratios %.2fx, %.2fx (outcomes: %@)",
            round, first.seconds, second.seconds, files.count * devices.count, cells, jobs, perCore, first.seconds / perCore,
            second.seconds / perCore, outcomes))
        for (name, run) in [("first", first), ("second", second)] {
            let inside = Double(run.answer.cells.compactMap { $0.cell.report?.timings.totalMs }.reduce(0, +)) / 1000
            print(String(
                format: "  the %@ run's %.2f core-seconds: its cells %.2f s together (%.2fx their time one at a time), the rest %.2f s (syntheses, idle cores, its own start)",
                name, run.seconds * Double(jobs), inside, inside / cells, run.seconds * Double(jobs) - inside))
        }
    }
    for (name, values, goal) in [("first run (makes the files)", ratios.first, 1.15), ("second run (from the cache)", ratios.second, 1.05)] {
        let sorted = values.sorted()
        print(String(
            format: "%@ / (cells / cores): median %.2fx, range %.2f-%.2fx over %d rounds (goal: at most %.2fx)",
            name, sorted[sorted.count / 2], sorted.first ?? 0, sorted.last ?? 0, runs, goal))
    }
    print("load when done: \(loadAverage())")
}

enum MatrixBench {
    /// One `preflight matrix` run with the synthesis cache at `cache`, after `sync`.
    static func run(
        _ executable: String, plan: String, devices: [String], rows: Int, jobs: Int, cache: String
    ) throws -> (seconds: Double, answer: MatrixAnswer) {
        sync()
        var matrix = Program(
            executable,
            [
                "matrix", "--plan", plan, "--devices", devices.joined(separator: ","), "--rows", "notes=\(rows)", "--jobs", "\(jobs)",
                "--synthesis-cache", cache, "--synthesis-cache-bytes", "\(1 << 40)",
            ],
            capturesOutput: true, quiet: true)
        matrix.acceptsAnyExit = true
        let run = try matrix.run()
        return (run.seconds, try JSONDecoder().decode(MatrixAnswer.self, from: run.output))
    }


    static func newestVersion(_ plan: String) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: plan))
        let steps = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["steps"] as? [[String: Any]] ?? []
        guard let newest = steps.compactMap({ $0["version"] as? Int }).max() else { throw BenchError("\(plan) has no steps") }
        return newest
    }
}
