import Foundation

/// `preflight-bench decode [--units 100000] [--runs 5] [--preflight PATH]`
///
/// Whether decoding a plan (its statements split, each piece of SQL scanned) stays linear in
/// the plan's length, timed as a user pays it: whole `preflight run --target 1` processes,
/// which decode the plan (the command and its workers) and run only its first step. For each
/// shape of text that a splitter calling `sqlite3_complete` at each `;` scans again and
/// again, three plans are run in turns: a baseline whose long step is empty, one of `units`
/// and one of ten times that. The baseline's time (process start, the first step, the
/// verification) is taken off both, and the ratio of what is left is printed: about 10x
/// where decoding is linear, about 100x where it is quadratic.
func runDecodeBenchmark(arguments: [String]) throws {
    let options = try BenchmarkOptions(arguments: arguments, valued: ["--units", "--runs", "--preflight"])
    let units = try options.integer("--units") ?? 100_000
    let runs = max(1, try options.integer("--runs") ?? 5)
    let executable = try options.string("--preflight") ?? siblingExecutable("preflight")
    let root = NSTemporaryDirectory() + "/preflight-decode-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    // An empty file: a fresh install, at version 0.
    let database = root + "/empty.db"
    guard FileManager.default.createFile(atPath: database, contents: Data()) else { throw BenchError("cannot create \(database)") }

    for shape in DecodedText.allCases {
        let sizes = [0, units, 10 * units]
        let plans = try sizes.map { size in
            let path = root + "/\(shape.rawValue)-\(size).json"
            try JSONSerialization.data(withJSONObject: [
                "name": "long",
                "steps": [["version": 1, "name": "create", "sql": "CREATE TABLE t(x)"], ["version": 2, "name": "long", "sql": shape.sql(size)]],
            ]).write(to: URL(fileURLWithPath: path))
            return path
        }
        var seconds = [[Double]](repeating: [], count: sizes.count)
        for _ in 0..<runs {
            for (index, plan) in plans.enumerated() {
                seconds[index].append(
                    try Program(executable, ["run", "--db", database, "--plan", plan, "--target", "1", "--verify", "off"], quiet: true)
                        .run().seconds)
            }
        }
        let medians = seconds.map { $0.sorted()[runs / 2] }
        let short = max(medians[1] - medians[0], 1e-6), long = medians[2] - medians[0]
        print("\(shape.rawValue): baseline \(String(format: "%.3f", medians[0])) s; beyond it \(units) units "
            + "\(String(format: "%.3f", short)) s, \(10 * units) units \(String(format: "%.3f", long)) s; "
            + "ratio \(String(format: "%.1fx", long / short)) (linear 10x, quadratic 100x), medians of \(runs) runs")
    }
}

/// Text that a splitter calling `sqlite3_complete` at each `;` scans again and again.
private enum DecodedText: String, CaseIterable {
    /// One statement with a string literal full of semicolons.
    case semicolonsInAString = "semicolons-in-a-string"
    /// Semicolons in `--` and `/* */` comments between statements.
    case semicolonsInComments = "semicolons-in-comments"
    /// A trigger whose body holds statement after statement.
    case triggerBody = "trigger-body"

    /// The plan's long `sql` step, growing with `units`.
    func sql(_ units: Int) -> String {
        switch self {
        case .semicolonsInAString:
            return "INSERT INTO t(x) VALUES ('" + String(repeating: "a;", count: units) + "')"
        case .semicolonsInComments:
            return String(repeating: "-- a; b;\n/* c; d; */ ", count: units / 4) + "SELECT 1"
        case .triggerBody:
            return "CREATE TRIGGER tr AFTER INSERT ON t BEGIN "
                + String(repeating: "UPDATE t SET x = ';' WHERE x = new.x; ", count: units / 16) + "END"
        }
    }
}
