import Foundation
import Simulation

/// `preflight-bench capacity [--runs 1] [--accuracy] [--case NAME] [--preflight PATH] [--plans DIR] [--corpus DIR]`
///
/// What a capacity answer costs against what it is about, whole processes each time: the
/// whole `preflight capacity` process (predict, then confirm) against one `preflight run`
/// of the same plan on the same device on the file at the boundary it found (the smallest
/// size that did not complete in one launch, synthesized as the search made it, the file
/// the user would otherwise rehearse by hand). That run does the bounded work the
/// prediction must at least do once: rehearse the boundary's file through its launches.
///
/// Cases: the notes plan on android-30, android-low-end and ios-launch; two corpus apps whose
/// chains rewrite a table (wikipedia-android's history table on android-low-end, k9mail's
/// folders on android-34, whose SQLite its later steps need); an index
/// build (a sort, not linear in the rows). Prints each run's ratio, each case's median and
/// range over its runs (the goal holds per case), then the same over every run. With `--accuracy`, also the exhaustive reference (`--bisect 1`) for
/// each case on the same device clock: the predicted boundary, the exhaustive one, the error
/// in percent, and the method.
func runCapacityBenchmark(arguments: [String]) throws {
    let options = try BenchmarkOptions(
        arguments: arguments, valued: ["--runs", "--preflight", "--plans", "--corpus", "--case"], flags: ["--accuracy"])
    let runs = max(1, try options.integer("--runs") ?? 1)
    let executable = try options.string("--preflight") ?? siblingExecutable("preflight")
    let plans = options.string("--plans") ?? "Config/plans"
    let corpus = options.string("--corpus") ?? "Tests/DifferentialTests/Fixtures/corpus"
    let root = NSTemporaryDirectory() + "/preflight-capacity-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    let index = root + "/index.json"
    try Data(
        """
        {"name": "index", "steps": [
          {"version": 1, "name": "create items", "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, label TEXT NOT NULL)"},
          {"version": 2, "name": "index labels", "sql": "CREATE INDEX idx_items_label ON items(label)"}]}
        """.utf8
    ).write(to: URL(fileURLWithPath: index))
    let notes = plans + "/notes.json"
    var cases: [CapacityCase] = [
        CapacityCase(name: "notes android-30", plan: notes, device: "android-30", from: 1, table: "notes"),
        CapacityCase(name: "notes android-low-end", plan: notes, device: "android-low-end", from: 1, table: "notes"),
        CapacityCase(name: "notes ios-launch", plan: notes, device: "ios-launch", from: 1, table: "notes"),
        CapacityCase(
            name: "wikipedia-android history", plan: try corpusPlan(corpus, "wikipedia-android", in: root),
            device: "android-low-end", from: 4, table: "HistoryEntry"),
        CapacityCase(
            name: "k9mail folders", plan: try corpusPlan(corpus, "k9mail", in: root), device: "android-34", from: 7,
            table: "folders"),
        CapacityCase(name: "index build (n log n)", plan: index, device: "android-low-end", from: 1, table: "items"),
    ]
    if let only = options.string("--case") { cases = cases.filter { $0.name.hasPrefix(only) } }
    var ratios: [Double] = []
    var accuracy: [String] = []
    for item in cases {
        var caseRatios: [Double] = []
        defer { printMedian(of: caseRatios, label: item.name) }
        for run in 1...runs {
            let arguments = [
                "--plan", item.plan, "--device", item.device, "--from", String(item.from), "--table", item.table,
                // Every size made within the search's time, as a first search makes them.
                "--synthesis-cache", "off",
            ]
            let capacity = try Program(executable, ["capacity"] + arguments, capturesOutput: true, quiet: true).run()
            let answer = try CapacitySummary(capacity.output)
            guard let rows = answer.limitRows else {
                print("\(item.name): no boundary up to the max rows (\(answer.method)); no ratio")
                continue
            }
            let file = root + "/boundary-\(run).db"
            _ = try Program(executable, [
                "synthesize", "--plan", item.plan, "--version", String(item.from), "--rows", "\(item.table)=\(rows)", "--seed", "\(SynthesisRequest.rehearsalSeed)",
                "--out", file, "--synthesis-cache", "off",
            ], quiet: true).run()
            var single = Program(executable, ["run", "--db", file, "--plan", item.plan, "--device", item.device], quiet: true)
            single.acceptsAnyExit = true
            let baseline = try single.run().seconds
            try? FileManager.default.removeItem(atPath: file)
            let ratio = capacity.seconds / baseline
            ratios.append(ratio)
            caseRatios.append(ratio)
            print(
                "\(item.name): capacity \(format(capacity.seconds)) s (\(answer.method), \(answer.points) sizes), one run at "
                    + "\(rows) rows \(format(baseline)) s; ratio \(String(format: "%.2fx", ratio))")
            if options.isSet("--accuracy"), run == 1 {
                let reference = try CapacitySummary(
                    try Program(executable, ["capacity"] + arguments + ["--bisect", "1"], capturesOutput: true, quiet: true).run()
                        .output)
                let error = reference.limitRows.map { 100 * Double(rows - $0) / Double($0) }
                accuracy.append(
                    "| \(item.name) | \(rows) | \(reference.limitRows.map(String.init) ?? "-") | "
                        + "\(error.map { String(format: "%+.1f", $0) } ?? "-") | \(answer.method) |")
            }
        }
    }
    printMedian(of: ratios, label: "all cases")
    if !accuracy.isEmpty {
        print("| case | predicted boundary (rows) | exhaustive, 1% (rows) | error % | method |")
        print("|---|---|---|---|---|")
        accuracy.forEach { print($0) }
    }
}

/// One benchmark case: a plan growing one table from a version on a device.
private struct CapacityCase {
    var name: String
    var plan: String
    var device: String
    var from: Int
    var table: String
}

/// What the benchmark reads of a capacity answer.
private struct CapacitySummary {
    var limitRows: Int?
    var method: String
    var points: Int

    init(_ output: Data) throws {
        guard let json = try JSONSerialization.jsonObject(with: output) as? [String: Any] else {
            throw BenchError("preflight capacity answered no JSON object")
        }
        limitRows = (json["limit"] as? [String: Any])?["rows"] as? Int
        method = json["method"] as? String ?? "?"
        points = (json["points"] as? [Any])?.count ?? 0
    }
}

/// A corpus app's plan as a plan file: the corpus entry without its `source` and `notes`,
/// which are the corpus's, not a plan's.
private func corpusPlan(_ corpus: String, _ app: String, in root: String) throws -> String {
    let data = try Data(contentsOf: URL(fileURLWithPath: "\(corpus)/\(app).plan.json"))
    guard var plan = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw BenchError("\(app).plan.json is not a JSON object")
    }
    plan["source"] = nil
    plan["notes"] = nil
    let path = "\(root)/\(app).plan.json"
    try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: path))
    return path
}

private func format(_ seconds: Double) -> String { String(format: "%.1f", seconds) }

/// "LABEL: capacity / one run at the boundary: median M (min-max) over N", the goal being
/// each case's median.
private func printMedian(of ratios: [Double], label: String) {
    guard !ratios.isEmpty else { return }
    let sorted = ratios.sorted()
    print("\(label): capacity / one run at the boundary: median \(String(format: "%.2fx", sorted[sorted.count / 2])) "
        + "(\(String(format: "%.2f-%.2fx", sorted[0], sorted[sorted.count - 1]))) over \(sorted.count) measurements")
}
