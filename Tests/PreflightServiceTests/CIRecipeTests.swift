import Foundation
import Testing
import TestSupport

/// The CI recipes (docs/ci.md) are real files: `scripts/ci-preflight` run here as a pipeline runs
/// it, on the numbered-SQL fixture, and the GitHub Actions and GitLab CI files parsed and
/// checked to call it and publish its JUnit XML. docs/ci.md links each file.
@Suite(.serialized) struct CIRecipeTests {
    private let directory = TemporaryDirectory("ci-recipe")
    private let recipe = Repository.path("scripts/ci-preflight")

    /// Runs the recipe in `directory`'s workspace with `environment` added; exit status and output.
    private func runRecipe(_ environment: [String: String]) throws -> (status: Int32, output: String) {
        let script = """
            cd "$WORKSPACE" && exec bash "$RECIPE"
            """
        return try TestTools.run(
            "/bin/bash", ["-c", script],
            environment: ["WORKSPACE": directory.path, "RECIPE": recipe, "PREFLIGHT": try preflightExecutable()]
                .merging(environment) { $1 })
    }

    private func makeWorkspace() throws {
        try FileManager.default.copyItem(
            atPath: Repository.path("Tests/PreflightServiceTests/Fixtures/PlanImport/sql-dir"), toPath: directory.file("migrations"))
        try FileManager.default.createDirectory(atPath: directory.file("fixtures"), withIntermediateDirectories: true)
        let made = run(
            "/usr/bin/sqlite3",
            [directory.file("fixtures/tasks-v1.db")],
            input: "CREATE TABLE task (id INTEGER PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0); PRAGMA user_version = 1;")
        try #require(made.status == 0)
    }

    @Test func theShellRecipePassesAGoodFixtureAndFailsABadOne() throws {
        try makeWorkspace()
        let environment = [
            "PREFLIGHT_IMPORT": "sql-dir", "PREFLIGHT_DEVICES": "ios-launch,android-anr",
            "PREFLIGHT_DEVICES_DIR": Repository.path("Config/devices"),
        ]
        let good = try runRecipe(environment)
        #expect(good.status == 0, "\(good.output)")
        #expect(good.output.contains("preflight: tasks-v1-ios-launch: completed\n"), "\(good.output)")
        #expect(good.output.contains("preflight: tasks-v1-android-anr: completed\n"), "\(good.output)")
        // The plan the folder means, written by `plan import` and kept with the results.
        let plan = try #require(FileManager.default.contents(atPath: directory.file("preflight-results/plan.json")))
        let steps = (try JSONSerialization.jsonObject(with: plan) as? [String: Any])?["steps"] as? [[String: Any]]
        #expect(steps?.map { $0["name"] as? String } == ["001_create_tasks.sql", "002_task_log.sql", "003_priority.sql"])
        for device in ["ios-launch", "android-anr"] {
            let junit = try String(contentsOfFile: directory.file("preflight-results/tasks-v1-\(device).xml"), encoding: .utf8)
            #expect(junit.contains(#"<property name="outcome" value="completed"/>"#))
            #expect(junit.contains(#"<property name="device" value="\#(device)"/>"#))
            let schema = try TestTools.run(
                "/usr/bin/xmllint", ["--noout", "--schema", JUnitTests.schema, directory.file("preflight-results/tasks-v1-\(device).xml")])
            #expect(schema.status == 0, "\(schema.output)")
        }

        // A fixture that is not a database: that run fails the step, and its JUnit says why.
        try "not a database".write(toFile: directory.file("fixtures/broken.db"), atomically: true, encoding: .utf8)
        let bad = try runRecipe(environment)
        #expect(bad.status == 1, "\(bad.output)")
        #expect(bad.output.contains("preflight: broken-ios-launch: invalid_database: failing the build\n"), "\(bad.output)")
        #expect(bad.output.contains("preflight: tasks-v1-ios-launch: completed\n"), "\(bad.output)")
        let failure = try String(contentsOfFile: directory.file("preflight-results/broken-ios-launch.xml"), encoding: .utf8)
        #expect(failure.contains(#"<failure type="invalid_database""#))

        // A plan that cannot be used: exit 2, before any run.
        let unusable = try runRecipe(environment.merging(["PREFLIGHT_PLAN": "no-such-folder"]) { $1 })
        #expect(unusable.status == 2, "\(unusable.output)")
    }

    /// `run --plan FOLDER` without the import step: the same rehearsal, imported in memory.
    @Test func theFolderIsAPlanToo() throws {
        try makeWorkspace()
        let result = try runRecipe(["PREFLIGHT_DEVICES": "default", "PREFLIGHT_DEVICES_DIR": Repository.path("Config/devices")])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("imported from the sql-dir migrations in migrations"), "\(result.output)")
        #expect(result.output.hasSuffix("preflight: tasks-v1-default: completed\n"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("preflight-results/plan.json")))
    }

    @Test func theCIFilesCallTheRecipeAndPublishItsJUnit() throws {
        let python = try TestTools.venv("python")
        let load = "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))"
        let github = try TestTools.run(python, ["-c", load, Repository.path("docs/ci/github-actions.yml")])
        try #require(github.status == 0, "\(github.output)")
        let workflow = try #require(try JSONSerialization.jsonObject(with: Data(github.output.utf8)) as? [String: Any])
        let steps = try #require(((workflow["jobs"] as? [String: Any])?["rehearse"] as? [String: Any])?["steps"] as? [[String: Any]])
        let rehearse = try #require(steps.first { ($0["run"] as? String)?.contains("ci/preflight.sh") == true })
        let env = rehearse["env"] as? [String: String] ?? [:]
        #expect(env["PREFLIGHT_IMPORT"] == "sqldelight")
        #expect(env["PREFLIGHT"]?.contains("--entrypoint preflight") == true)
        #expect(steps.contains { ($0["with"] as? [String: Any])?["report_paths"] as? String == "preflight-results/*.xml" && $0["if"] as? String == "always()" })

        let gitlab = try TestTools.run(python, ["-c", load, Repository.path("docs/ci/gitlab-ci.yml")])
        try #require(gitlab.status == 0, "\(gitlab.output)")
        let job = try #require(
            (try JSONSerialization.jsonObject(with: Data(gitlab.output.utf8)) as? [String: Any])?["preflight"] as? [String: Any])
        #expect((job["script"] as? [String])?.contains("bash ci/preflight.sh") == true)
        let artifacts = try #require(job["artifacts"] as? [String: Any])
        #expect(artifacts["when"] as? String == "always")
        #expect((artifacts["reports"] as? [String: Any])?["junit"] as? String == "preflight-results/*.xml")
        #expect((job["image"] as? [String: Any])?["entrypoint"] as? [String] == [""])
    }

    /// The CI doc links each recipe, as it is, rather than showing a copy that could drift.
    @Test func theCIDocLinksEachFile() throws {
        let doc = try String(contentsOfFile: Repository.path("docs/ci.md"), encoding: .utf8)
        for (path, link) in [("scripts/ci-preflight", "../scripts/ci-preflight"), ("docs/ci/github-actions.yml", "ci/github-actions.yml"), ("docs/ci/gitlab-ci.yml", "ci/gitlab-ci.yml")] {
            #expect(doc.contains("](\(link))"), "docs/ci.md does not link \(path)")
            #expect(FileManager.default.fileExists(atPath: Repository.path(path)), "\(path) is gone")
        }
    }
}
