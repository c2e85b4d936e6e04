import Foundation
import MigrationCore

/// `preflight-bench synthesize [--rows 1000000] [--runs 5] [--preflight PATH]`
///
/// What `preflight synthesize` costs over filling the same table by hand, whole processes
/// each time: `preflight synthesize --like SAMPLE.db` of one table of rows of about 110-120
/// bytes (a title of 20-40 characters, a body of 50-90, three integers) against the
/// `sqlite3` CLI creating the same table and filling it with a hand-written
/// recursive-CTE `INSERT ... SELECT` of the same row size, in one transaction with the
/// same journal and sync settings (`journal_mode=MEMORY`, `synchronous=OFF`).
///
/// Prints the median ratio preflight / sqlite3 with its min-max over the runs (each run
/// measures both sides, one after the other), and both files' mean row payload, so that
/// the sizes are seen to match.
func runSynthesizeBenchmark(arguments: [String]) throws {
    let options = try BenchmarkOptions(arguments: arguments, valued: ["--rows", "--runs", "--preflight"])
    let rows = try options.integer("--rows") ?? 1_000_000
    let runs = max(1, try options.integer("--runs") ?? 5)
    let executable = try options.string("--preflight") ?? siblingExecutable("preflight")
    let root = NSTemporaryDirectory() + "/preflight-synthesize-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    let schema = "CREATE TABLE items(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL, updated_at INTEGER NOT NULL, flags INTEGER NOT NULL)"
    let plan = root + "/plan.json"
    try JSONSerialization.data(withJSONObject: [
        "name": "bench", "steps": [["version": 1, "name": "create", "sql": [schema]]],
    ]).write(to: URL(fileURLWithPath: plan))
    // The sample whose shape preflight follows, made by hand with the same expressions.
    let sample = root + "/sample.db"
    try runSQLiteShell(sample, script: "PRAGMA user_version = 1;\n\(schema);\n" + handFill(rows: 2000))
    var ratios: [Double] = []
    var preflightSeconds: [Double] = []
    var shellSeconds: [Double] = []
    for run in 1...runs {
        let made = root + "/synthesized-\(run).db"
        let byHand = root + "/by-hand-\(run).db"
        sync()
        let preflight = try Program(
            executable, ["synthesize", "--plan", plan, "--version", "1", "--rows", "items=\(rows)", "--like", sample, "--out", made, "--synthesis-cache", "off"]
        ).run().seconds
        sync()
        let shell = try runSQLiteShell(
            byHand, script: ".output /dev/null\nPRAGMA journal_mode = MEMORY;\nPRAGMA synchronous = OFF;\n\(schema);\n" + handFill(rows: rows))
        preflightSeconds.append(preflight)
        shellSeconds.append(shell)
        ratios.append(preflight / shell)
        if run == runs {
            print("rows \(rows): mean payload per row synthesized \(try meanPayload(made)) bytes, by hand \(try meanPayload(byHand)) bytes")
        }
        try? FileManager.default.removeItem(atPath: made)
        try? FileManager.default.removeItem(atPath: byHand)
    }
    ratios.sort()
    print("preflight synthesize \(String(format: "%.2f", preflightSeconds.sorted()[runs / 2])) s, sqlite3 CTE insert "
        + "\(String(format: "%.2f", shellSeconds.sorted()[runs / 2])) s; ratio \(String(format: "%.2fx", ratios[runs / 2])) "
        + "(\(String(format: "%.2f-%.2fx", ratios[0], ratios[runs - 1]))), median of \(runs) runs")
}

/// The hand-written fill: `rows` rows of the benchmark's table in one transaction.
private func handFill(rows: Int) -> String {
    """
    BEGIN;
    WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < \(rows))
    INSERT INTO items SELECT n, printf('%.*c', 20 + abs(random()) % 21, 't'), printf('%.*c', 50 + abs(random()) % 41, 'b'),
        1700000000 + abs(random()) % 100000000, abs(random()) % 256 FROM c;
    COMMIT;
    """
}

/// The mean bytes of a row's values (text lengths and 8 per integer).
private func meanPayload(_ path: String) throws -> String {
    try Connection(path: path).scalar("SELECT printf('%.1f', avg(length(title) + length(body) + 24)) FROM items").textValue ?? "?"
}
