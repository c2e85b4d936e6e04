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
/// Protocol: each round runs the matrix, then the cells (AB), after `sync`. Prints each
/// round's ratio matrix ÷ (sum of the cells ÷ cores), then the median and the range of the
/// ratios. Goal: at most 1.15. Each round also says where the matrix's time went: its
/// cells' own times together (each report's `total_ms`, run beside another cell) against
/// the same cells one at a time, and the time left to the syntheses and to cores waiting.
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
            ["synthesize", "--plan", plan, "--version", "\(version)", "--rows", "notes=\(rows)", "--seed", "\(SynthesisRequest.rehearsalSeed)", "--out", path],
            quiet: true
        ).run().seconds
        files.append(path)
    }
    print("load when started: \(loadAverage()); plan \(plan), rows v0 to v\(planVersions - 1) at \(rows) rows of notes, devices \(devices.joined(separator: ", ")), \(jobs) cores used")
    print(String(format: "the %d syntheses one at a time (the matrix's own, inside its time): %.2f s", planVersions - 1, synthesisSeconds))
    var ratios: [Double] = []
    for round in 1...runs {
        sync()
        var matrix = Program(
            executable,
            ["matrix", "--plan", plan, "--devices", devices.joined(separator: ","), "--rows", "notes=\(rows)", "--jobs", "\(jobs)"],
            capturesOutput: true, quiet: true)
        matrix.acceptsAnyExit = true
        let matrixRun = try matrix.run()
        let answer = try JSONDecoder().decode(MatrixAnswer.self, from: matrixRun.output)
        let synthesized = answer.rows.filter { $0.source == .synthesized }.count
        guard synthesized == planVersions - 1, answer.cells.count == files.count * devices.count else {
            throw BenchError("the matrix answered \(answer.rows.count) rows (\(synthesized) synthesized) and \(answer.cells.count) cells")
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
        let ratio = matrixRun.seconds / (cells / Double(jobs))
        ratios.append(ratio)
        let outcomes = Set(answer.cells.map(\.cell.outcome.rawValue)).sorted().joined(separator: ", ")
        print(String(
            format: "round %d: matrix %.2f s; %d cells one at a time %.2f s, / %d cores = %.2f s; ratio %.2fx (outcomes: %@)",
            round, matrixRun.seconds, files.count * devices.count, cells, jobs, cells / Double(jobs), ratio, outcomes))
        let inside = Double(answer.cells.compactMap { $0.cell.report?.timings.totalMs }.reduce(0, +)) / 1000
        print(String(
            format: "  the matrix's %.2f core-seconds: its cells %.2f s together (%.2fx their time one at a time), the rest %.2f s (syntheses, idle cores, its own start)",
            matrixRun.seconds * Double(jobs), inside, inside / cells, matrixRun.seconds * Double(jobs) - inside))
    }
    let sorted = ratios.sorted()
    print(String(
        format: "\nmatrix / (cells / cores): median %.2fx, range %.2f-%.2fx over %d rounds (goal: at most 1.15x)",
        sorted[sorted.count / 2], sorted.first ?? 0, sorted.last ?? 0, runs))
    print("load when done: \(loadAverage())")
}

enum MatrixBench {
    static func newestVersion(_ plan: String) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: plan))
        let steps = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["steps"] as? [[String: Any]] ?? []
        guard let newest = steps.compactMap({ $0["version"] as? Int }).max() else { throw BenchError("\(plan) has no steps") }
        return newest
    }
}
