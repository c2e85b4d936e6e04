import Foundation
import MigrationCore
import Simulation
import Testing
import TestSupport

/// `preflight capacity` and `POST /v1/capacity` on real synthesized databases, real
/// workers and real watchdog kills, on the slow phone's device clock: the search finds the
/// same sizes on any machine under any load. Nothing here asserts a time: the boundaries
/// found are checked by the search's own rule and confirmed by direct `preflight run`s.
@Suite(.serialized)
struct CapacityTests {
    private let directory = TemporaryDirectory("capacity")
    /// `--devices-dir DIR --device slow-phone`, for every search and run that has a watchdog.
    private let onSlowPhone: [String]
    /// Half a second of the slow phone, which a rewrite of some thousands of rows outlasts.
    private let watchdog = ["--watchdog-ms", "500"]

    init() throws {
        onSlowPhone = try SlowPhone.arguments(in: directory)
    }

    /// A rewrite whose cost is linear in the rows and the same in every step: each turns
    /// every row's label by one character, which rewrites the row in place at its size. (A
    /// rewrite that changed the rows' size would cost the first step more than the others;
    /// one that wrote back what was there, far less.)
    static func rewritePlan(name: String = "rewrite", steps: Int = 1, runner: String = "per_step") -> String {
        let rewrites = (2..<(2 + steps)).map { version in
            """
            {"version": \(version), "name": "rewrite labels \(version - 1)",
             "sql": "UPDATE items SET label = substr(label, 2) || substr(label, 1, 1)"}
            """
        }
        return """
            {"name": "\(name)", "runner": "\(runner)",
             "steps": [
              {"version": 1, "name": "create items", "sql": "CREATE TABLE items(id INTEGER PRIMARY KEY, label TEXT NOT NULL)"},
              \(rewrites.joined(separator: ",\n"))
             ]}
            """
    }

    private func writePlan(_ text: String, _ name: String) throws -> String {
        let path = directory.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `preflight capacity` on the slow phone.
    private func capacity(_ arguments: [String]) throws -> (answer: CapacityAnswer, json: [String: Any], stderr: String) {
        let result = try PreflightProcess.run(["capacity"] + onSlowPhone + arguments)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let answer = try JSONDecoder().decode(CapacityAnswer.self, from: result.stdout)
        // Every size was timed on the device clock (a point has device_ms only there).
        #expect(answer.device == SlowPhone.name)
        #expect(answer.points.allSatisfy { $0.deviceMs != nil })
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        return (answer, json, result.stderr)
    }

    /// The sizes either side of the first boundary: the largest that completed and the
    /// smallest that did not.
    private func bracket(_ answer: CapacityAnswer) throws -> (held: CapacityPoint, broke: CapacityPoint) {
        let limit = try #require(answer.limit)
        let broke = try #require(answer.points.first { $0.rows == limit.rows })
        let held = try #require(answer.points.last { $0.rows < limit.rows })
        return (held, broke)
    }

    @Test func boundaryIsConfirmedByDirectRuns() throws {
        let plan = try writePlan(Self.rewritePlan(), "rewrite.json")
        let options = watchdog + ["--launches", "2"]
        let (answer, json, stderr) = try capacity(["--plan", plan] + options)
        #expect(answer.table == "items")
        #expect(answer.fromVersion == 1)
        // One progress line per size tried.
        #expect(stderr.split(separator: "\n").filter { $0.hasPrefix("capacity: ") }.count == answer.points.count)
        let limit = try #require(answer.limit)
        let (held, broke) = try bracket(answer)
        #expect(limit.reason == .narrowed)
        // A rewrite's cost is linear in the rows: the prediction held, and its last pair of
        // runs is the bracket the answer reports.
        #expect(answer.method == .predictedAndConfirmed)
        let confirmations = try #require(answer.prediction?.confirmations)
        #expect(confirmations.suffix(2).map(\.rows) == [held.rows, broke.rows])
        #expect(confirmations.allSatisfy { $0.agrees })
        #expect(answer.wallMs > 0)
        #expect(
            limit.step == 2,
            "\(broke.rows) rows: \(broke.outcome) after \(broke.launches) launches, \(broke.elapsedMs) ms, steps \(broke.steps.map(\.version))")
        #expect(limit.outcomeBeyond != .completed)
        #expect(held.outcome == .completed)
        #expect(Double(broke.rows) <= Double(held.rows) * 1.1, "narrowed to within 10%")
        // Monotone: every size below the limit completed, and the sizes are in order.
        #expect(answer.points.map(\.rows) == answer.points.map(\.rows).sorted())
        #expect(answer.points.filter { $0.rows < limit.rows }.allSatisfy { $0.outcome == .completed })
        #expect(try #require(answer.fit.first { $0.version == 2 }?.msPerRow) > 0)

        // Confirmation by the real CLI, on files synthesized as the search made them, right
        // either side of the boundary: the device clock charges the same file and plan the
        // same work, so a direct run ends as the search's did, in the same device time.
        for point in [held, broke] {
            let database = directory.file("items-\(point.rows).db")
            let made = try PreflightProcess.run([
                "synthesize", "--plan", plan, "--version", "1", "--rows", "items=\(point.rows)", "--seed", "\(SynthesisRequest.rehearsalSeed)", "--out", database,
            ])
            #expect(made.status == 0, "stderr: \(made.stderr)")
            let run = try PreflightProcess.run(["run", "--db", database, "--plan", plan] + onSlowPhone + options)
            let report = try run.decodedReport
            #expect(report.options.clock == .device)
            #expect(report.outcome == point.outcome, "\(point.rows) rows")
            #expect(report.launches.compactMap(\.deviceMs).reduce(0, +) == point.deviceMs, "\(point.rows) rows")
        }

        // The answer's fields are exactly docs/CONTRACT.md §8's, with the device clock's device_ms.
        #expect(
            Set(json.keys) == [
                "capacity_version", "plan", "device", "runner", "from_version", "table", "points", "limit", "fit", "method",
                "prediction", "wall_ms",
            ])
        #expect(json["capacity_version"] as? Int == 1)
        let point = try #require((json["points"] as? [[String: Any]])?.first)
        #expect(Set(point.keys) == ["rows", "bytes", "outcome", "launches", "elapsed_ms", "device_ms", "peak_bytes", "steps", "cached"])
        let step = try #require((point["steps"] as? [[String: Any]])?.first)
        #expect(Set(step.keys) == ["version", "elapsed_ms", "device_ms", "peak_bytes"])
        let limitJSON = try #require(json["limit"] as? [String: Any])
        #expect(Set(limitJSON.keys) == ["rows", "bytes", "outcome_beyond", "step", "reason"])
        let fit = try #require((json["fit"] as? [[String: Any]])?.first)
        #expect(Set(fit.keys) == ["version", "ms_per_row", "bytes_per_row"])
    }

    /// Three rewrites: under `sqliteopenhelper` one transaction holds them all, so a kill
    /// keeps nothing and the app crash-loops as soon as the path outlasts the watchdog;
    /// under `per_step` each step commits, so the app still gets there after kills until a
    /// single step outlasts it (docs/CONTRACT.md §1's runner table, docs/FIDELITY.md).
    @Test func perStepAndSQLiteOpenHelperHaveDifferentBoundaries() throws {
        // The exhaustive search: a prediction does not run where the launches run out.
        let options = watchdog + ["--launches", "5", "--table", "items", "--bisect", "10"]
        let helper = try capacity(
            ["--plan", try writePlan(Self.rewritePlan(steps: 3, runner: "sqliteopenhelper"), "helper.json")] + options).answer
        let perStep = try capacity(["--plan", try writePlan(Self.rewritePlan(steps: 3), "per-step.json")] + options).answer
        #expect(helper.runner == .sqliteOpenHelper)
        #expect(perStep.runner == .perStep)
        #expect(helper.limit != nil)
        let perStepLimit = try #require(perStep.limit)
        #expect(perStepLimit.outcomeBeyond == .completedAfterKills)
        // A relaunch got there: the limit still names one of the rewrites as what broke.
        #expect((2...4).contains(perStepLimit.step ?? 0), "step \(String(describing: perStepLimit.step))")
        // Where each stops getting to the target at all. (Just above the first boundary a
        // relaunch may still fit in the watchdog under sqliteopenhelper too: the sizes that
        // matter are where the target is no longer reached.)
        let reaches: (CapacityPoint) -> Bool = { $0.outcome == .completed || $0.outcome == .completedAfterKills }
        let helperReached = try #require(helper.points.filter(reaches).map(\.rows).max())
        let perStepReached = try #require(perStep.points.filter(reaches).map(\.rows).max())
        // One transaction holds three rewrites that per_step can run a launch each: about
        // three times the rows before the target is out of reach (a little less: each
        // per_step rewrite commits, writing the table and its journal, which one transaction
        // does once). Runners treated alike would be within the search's 10% of each other.
        #expect(Double(perStepReached) > Double(helperReached) * 2, "per_step \(perStepReached), sqliteopenhelper \(helperReached)")
        #expect(perStep.points.contains { !reaches($0) }, "the search also narrowed where per_step stops reaching the target")
        // Beyond it, a kill under sqliteopenhelper keeps nothing: the app crash-loops.
        #expect(helper.points.first { !reaches($0) }?.outcome == .crashLoop)
    }

    @Test func textTableAndChart() throws {
        let plan = try writePlan(Self.rewritePlan(), "rewrite.json")
        let chart = directory.file("capacity.svg")
        let result = try PreflightProcess.run([
            "capacity", "--plan", plan, "--device", "android-30", "--max-rows", "4000", "--format", "text", "--chart", chart,
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let text = String(decoding: result.stdout, as: UTF8.self)
        #expect(text.contains("rows of items"))
        #expect(text.contains("      4,000"))
        #expect(text.contains("the migration completes in one launch up to 4,000 rows of items"))
        #expect(text.contains("the max rows asked for, on android-30 with the per_step runner"))
        let svg = try String(contentsOfFile: chart, encoding: .utf8)
        #expect(svg.contains("<svg id=\"capacity\""))
        // android-30's watchdog: 15 s of application start, on its device clock (the
        // profile has a speed model).
        #expect(svg.contains("class=\"capacity-deadline\""))
        #expect(svg.contains("watchdog 15.0 s"))
        #expect(svg.contains("class=\"capacity-step\" data-version=\"2\""))
        if Chromium.isAvailable {
            let dom = try Chromium.dumpDOM("file://" + chart)
            #expect(dom.contains("capacity-deadline"))
        }
    }

    /// A second search of the same plan takes every size it tried before from the synthesis
    /// cache, and answers the same sizes and outcomes.
    @Test func aSecondSearchTakesItsSizesFromTheSynthesisCache() throws {
        let plan = try writePlan(Self.rewritePlan(), "rewrite.json")
        let arguments = [
            "--plan", plan, "--device", "android-30", "--max-rows", "4000", "--synthesis-cache", directory.file("cache"),
            "--synthesis-cache-bytes", "100000000",
        ]
        let answers = try [1, 2].map { _ in
            let result = try PreflightProcess.run(["capacity"] + arguments)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            return try JSONDecoder().decode(CapacityAnswer.self, from: result.stdout)
        }
        #expect(answers[0].points.count > 1)
        #expect(answers[0].points.allSatisfy { $0.cached == false })
        #expect(answers[1].points.allSatisfy { $0.cached == true })
        #expect(answers[0].points.map(\.rows) == answers[1].points.map(\.rows))
        #expect(answers[0].points.map(\.bytes) == answers[1].points.map(\.bytes))
        #expect(answers[0].points.map(\.outcome) == answers[1].points.map(\.outcome))
    }

    @Test func usageErrors() throws {
        let plan = try writePlan(Self.rewritePlan(), "rewrite.json")
        let bad = try PreflightProcess.run(["capacity", "--plan", plan, "--max-rows", "many"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--max-rows must be a whole number"))
        let unknownTable = try PreflightProcess.run(["capacity", "--plan", plan, "--table", "nope", "--max-rows", "10"])
        #expect(unknownTable.status == 1)
        #expect(unknownTable.stderr.contains("nope"))
    }

    @Test func endpointOnARealServer() throws {
        var plans = Fixtures.plans
        plans["rewrite"] = Self.rewritePlan()
        let server = try ServerProcess(plans: plans, devices: Fixtures.devicesWithSlowPhone)
        let url = server.base + "/v1/capacity?plan=rewrite&max_rows=2000&device=\(SlowPhone.name)"
        let json = curl(url, ["-X", "POST"])
        #expect(json.status == 200, "\(json.text)")
        let answer = try JSONDecoder().decode(CapacityAnswer.self, from: json.body)
        #expect(answer.points.map(\.rows) == [1_000, 2_000])
        #expect(answer.points.allSatisfy { $0.deviceMs != nil })
        #expect(answer.limit == nil)
        #expect(answer.table == "items")

        let text = curl(url, ["-X", "POST", "-H", "Accept: text/plain"])
        #expect(text.headers["content-type"]?.hasPrefix("text/plain") == true)
        #expect(text.text.contains("completes in one launch up to 2,000 rows of items"))

        // A sample as the raw body: its version and its largest table decide the search.
        let sample = try Fixtures.notesDatabase(rows: 50, in: directory.path)
        let sampled = curl(
            server.base + "/v1/capacity?plan=notes&max_rows=1000&watchdog_ms=20000&device=\(SlowPhone.name)",
            ["--data-binary", "@" + sample, "-H", "Accept: text/html"])
        #expect(sampled.status == 200, "\(sampled.text)")
        #expect(sampled.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(sampled.text.contains("<svg id=\"capacity\""))
        #expect(sampled.text.contains("growing table notes"))
        #expect(sampled.text.contains("class=\"capacity-deadline\""))
        if Chromium.isAvailable {
            let page = directory.file("capacity.html")
            try sampled.body.write(to: URL(fileURLWithPath: page))
            let dom = try Chromium.dumpDOM("file://" + page)
            #expect(dom.contains("id=\"verdict\""))
            #expect(dom.contains("class=\"capacity-step\""))
        }

        let badOption = curl(server.base + "/v1/capacity?plan=rewrite&max_seconds=soon", ["-X", "POST"])
        #expect(badOption.status == 400)
        #expect(badOption.errorCode == "invalid_option")
        // Nothing is left in the job directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.jobDir).isEmpty)
    }
}
