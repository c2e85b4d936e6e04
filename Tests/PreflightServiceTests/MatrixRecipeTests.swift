import Foundation
import PreflightService
import Simulation
import Testing
import TestSupport

/// The matrix past one machine and in CI, as real files run for real: the Kubernetes
/// Indexed Job (validated by kubernetes-validate and checkov, and its shard and merge scripts
/// run here by bash as the pods would run them), `scripts/ci-preflight`'s matrix on a corpus
/// app (every version synthesized) and in shards, and the GitHub Actions recipe's shards.
@Suite(.serialized) struct MatrixRecipeTests {
    private let manifest = Repository.path("Config/kubernetes/preflight-matrix.yaml")
    private let directory = TemporaryDirectory("matrix-recipe")

    private func yaml(_ path: String, all: Bool) throws -> Any {
        let load = all
            ? "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))"
            : "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))"
        let dump = try TestTools.run(try TestTools.venv("python"), ["-c", load, path])
        try #require(dump.status == 0, "\(dump.output)")
        return try JSONSerialization.jsonObject(with: Data(dump.output.utf8))
    }

    private func job(_ name: String, in documents: [[String: Any]]) throws -> [String: Any] {
        try #require(documents.first {
            $0["kind"] as? String == "Job" && ($0["metadata"] as? [String: Any])?["name"] as? String == name
        }, "no Job \(name)")
    }

    private func container(of job: [String: Any]) throws -> [String: Any] {
        let template = ((job["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"] as? [String: Any]
        return try #require((template?["containers"] as? [[String: Any]])?.first)
    }

    private func env(_ container: [String: Any]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (container["env"] as? [[String: Any]] ?? []).compactMap { item in
            (item["name"] as? String).map { ($0, item["value"] as? String ?? "") }
        })
    }

    @Test func theIndexedJobPassesKubernetesValidateAndCheckov() throws {
        let validate = try TestTools.run(try TestTools.venv("kubernetes-validate"), ["--strict", manifest])
        #expect(validate.status == 0, "\(validate.output)")
        for resource in ["job/preflight-matrix", "job/preflight-matrix-merge", "persistentvolumeclaim/preflight-matrix", "networkpolicy/preflight-matrix"] {
            #expect(validate.output.contains("passed for resource \(resource)"), "\(validate.output)")
        }
        let check = try TestTools.run(
            try TestTools.venv("checkov"), ["-f", manifest, "--framework", "kubernetes", "--compact", "--quiet", "--skip-download"])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("Failed checks: 0,"), "\(check.output)")
        let documents = try #require(try yaml(manifest, all: true) as? [[String: Any]])
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        var skipped = 0
        for name in ["preflight-matrix", "preflight-matrix-merge"] {
            let annotations = ((try job(name, in: documents))["metadata"] as? [String: Any])?["annotations"] as? [String: String] ?? [:]
            for skip in annotations.filter({ $0.key.hasPrefix("checkov.io/skip") }).map(\.value) {
                skipped += 1
                let parts = skip.split(separator: "=", maxSplits: 1)
                #expect(parts.count == 2 && parts[1].count > 20, "a skip without its reason: \(skip)")
                #expect(text.contains("#   \(parts[0]) ("), "\(parts[0]) is skipped but not explained at the top")
            }
        }
        #expect(check.output.contains("Skipped checks: \(skipped)"), "\(check.output)")
        let shards = try job("preflight-matrix", in: documents)
        let spec = try #require(shards["spec"] as? [String: Any])
        #expect(spec["completionMode"] as? String == "Indexed")
        for name in ["preflight-matrix", "preflight-matrix-merge"] {
            let container = try container(of: try job(name, in: documents))
            #expect(container["image"] as? String == "preflight:\(Version.preflight)")
            #expect(env(container)["SHARDS"] == String(spec["completions"] as? Int ?? 0), "\(name): SHARDS is the completions")
        }
    }

    /// The pods' own scripts, run by bash as each pod would (JOB_COMPLETION_INDEX 0, 1, 2,
    /// then the merge), with the claim's /matrix in a temporary folder and a small size: the
    /// merged answer is the unsharded matrix's, cell for cell.
    @Test func theShardAndMergeScriptsGiveTheUnshardedAnswer() throws {
        let documents = try #require(try yaml(manifest, all: true) as? [[String: Any]])
        let shard = try container(of: try job("preflight-matrix", in: documents))
        let merge = try container(of: try job("preflight-matrix-merge", in: documents))
        let claim = directory.file("matrix")
        try FileManager.default.createDirectory(atPath: claim + "/fixtures", withIntermediateDirectories: true)
        try NotesHistory.database(version: 3, rows: 20, at: claim + "/fixtures/notes-v3.db")
        var arguments = try #require(env(shard)["MATRIX_ARGS"])
        arguments = arguments.replacingOccurrences(of: "notes=200000", with: "notes=20").replacingOccurrences(of: "/matrix/", with: claim + "/")
        let binaries = (try preflightExecutable() as NSString).deletingLastPathComponent
        func script(_ container: [String: Any]) throws -> String {
            try #require((container["args"] as? [String])?.first).replacingOccurrences(of: "/matrix/", with: claim + "/")
        }
        let environment = [
            "PATH": binaries + ":/usr/bin:/bin", "SHARDS": "3", "MATRIX_ARGS": arguments, "TMPDIR": directory.path,
        ]
        for index in 0..<3 {
            let run = try TestTools.run(
                "/bin/bash", ["-c", try script(shard)],
                environment: environment.merging(["JOB_COMPLETION_INDEX": "\(index)"]) { $1 })
            #expect(run.status == 0, "shard \(index + 1): \(run.output)")
        }
        let merged = try TestTools.run("/bin/bash", ["-c", try script(merge)], environment: environment)
        let whole = try MatrixCommandTests.answer(
            try PreflightProcess.run(["matrix"] + arguments.split(separator: " ").map(String.init)))
        #expect(merged.status == (whole.allCompleted ? 0 : 1), "\(merged.output)")
        let answer = try JSONDecoder().decode(
            MatrixAnswer.self, from: try Data(contentsOf: URL(fileURLWithPath: claim + "/results/matrix.json")))
        #expect(answer.rows.map(\.fromVersion) == whole.rows.map(\.fromVersion))
        #expect(answer.cells.map(\.cell.outcome) == whole.cells.map(\.cell.outcome))
        #expect(answer.cells.map(\.cell.deviceMs) == whole.cells.map(\.cell.deviceMs))
        let junit = try String(contentsOfFile: claim + "/results/matrix.xml", encoding: .utf8)
        #expect(junit.components(separatedBy: "<testcase ").count - 1 == whole.cells.count)
    }

    /// `scripts/ci-preflight` with PREFLIGHT_MATRIX: a corpus app's whole matrix (all its
    /// versions synthesized, a small size) in one command and one JUnit file; then the same in
    /// three shards and a merge, as the GitHub Actions recipe runs them.
    @Test func theCIRecipeRunsACorpusAppsMatrix() throws {
        let workspace = directory.file("workspace")
        try FileManager.default.createDirectory(atPath: workspace + "/fixtures", withIntermediateDirectories: true)
        let corpus = try Data(contentsOf: URL(fileURLWithPath: Repository.path("Tests/DifferentialTests/Fixtures/corpus/wikipedia-android.plan.json")))
        var plan = try #require(try JSONSerialization.jsonObject(with: corpus) as? [String: Any])
        plan["source"] = nil
        plan["notes"] = nil
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: workspace + "/plan.json"))
        let steps = (plan["steps"] as? [Any])?.count ?? 0
        func recipe(_ environment: [String: String]) throws -> (status: Int32, output: String) {
            try TestTools.run(
                "/bin/bash", ["-c", "cd \"$WORKSPACE\" && exec bash \"$RECIPE\""],
                environment: [
                    "WORKSPACE": workspace, "RECIPE": Repository.path("scripts/ci-preflight"), "PREFLIGHT": try preflightExecutable(),
                    "PREFLIGHT_PLAN": "plan.json", "PREFLIGHT_MATRIX": "1", "PREFLIGHT_DEVICES": "ios-launch,android-low-end",
                    "PREFLIGHT_DEVICES_DIR": Repository.path("Config/devices"), "PREFLIGHT_ROWS": "HistoryEntry=50",
                ].merging(environment) { $1 })
        }
        let whole = try recipe([:])
        #expect(whole.status == 0, "\(whole.output)")
        #expect(whole.output.contains("preflight: matrix: every cell completed"), "\(whole.output)")
        let junit = try String(contentsOfFile: workspace + "/preflight-results/matrix.xml", encoding: .utf8)
        #expect(junit.components(separatedBy: "<testcase ").count - 1 == steps * 2, "v0 to v\(steps - 1) on two devices")
        let schema = try TestTools.run("/usr/bin/xmllint", ["--noout", "--schema", JUnitTests.schema, workspace + "/preflight-results/matrix.xml"])
        #expect(schema.status == 0, "\(schema.output)")

        let workflow = try #require(try yaml(Repository.path("docs/ci/github-actions-matrix.yml"), all: false) as? [String: Any])
        let jobs = try #require(workflow["jobs"] as? [String: Any])
        let shardJob = try #require(jobs["shard"] as? [String: Any])
        let shardList = try #require(((shardJob["strategy"] as? [String: Any])?["matrix"] as? [String: Any])?["shard"] as? [Int])
        let shardStep = try #require((shardJob["steps"] as? [[String: Any]])?.first { $0["run"] as? String == "bash ci/preflight.sh" })
        #expect((shardStep["env"] as? [String: String])?["PREFLIGHT_SHARD"] == "${{ matrix.shard }}/\(shardList.count)")
        let mergeJob = try #require(jobs["merge"] as? [String: Any])
        #expect(mergeJob["needs"] as? String == "shard")
        let mergeSteps = try #require(mergeJob["steps"] as? [[String: Any]])
        #expect(mergeSteps.contains { ($0["env"] as? [String: String])?["PREFLIGHT_MERGE"] == "shards" })
        #expect(mergeSteps.contains { ($0["with"] as? [String: Any])?["report_paths"] as? String == "preflight-results/matrix.xml" })

        // The recipe's shards, as the workflow's shard jobs run them, then its merge job.
        try FileManager.default.createDirectory(atPath: workspace + "/shards", withIntermediateDirectories: true)
        for index in shardList {
            let shard = try recipe(["PREFLIGHT_SHARD": "\(index)/\(shardList.count)"])
            #expect(shard.status == 0, "\(shard.output)")
            try FileManager.default.moveItem(
                atPath: workspace + "/preflight-results/matrix-shard-\(index).json", toPath: workspace + "/shards/shard-\(index).json")
        }
        let merged = try recipe(["PREFLIGHT_MERGE": "shards"])
        #expect(merged.status == 0, "\(merged.output)")
        let mergedJUnit = try String(contentsOfFile: workspace + "/preflight-results/matrix.xml", encoding: .utf8)
        func names(_ xml: String) -> [String] {
            xml.components(separatedBy: "name=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
                .filter { $0.hasPrefix("from ") }
        }
        #expect(names(mergedJUnit) == names(junit))
    }
}
