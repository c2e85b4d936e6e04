import Foundation
import PreflightService
import Testing
import TestSupport

/// Config/kubernetes/preflight.yaml as a cluster and a security scanner read it:
/// kubernetes-validate (the API's schemas, strict) and checkov (its Kubernetes checks, each
/// skip annotated with a reason), and the parts that must agree with the code.
@Suite(.serialized) struct ManifestTests {
    private let manifest = Repository.path("Config/kubernetes/preflight.yaml")

    /// The manifest's documents, parsed by PyYAML from the venv (checkov brings it).
    private func documents() throws -> [[String: Any]] {
        let dump = try TestTools.run(
            try TestTools.venv("python"),
            ["-c", "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))", manifest])
        try #require(dump.status == 0, "\(dump.output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [[String: Any]])
    }

    private func object(_ kind: String, in documents: [[String: Any]]) throws -> [String: Any] {
        try #require(documents.first { $0["kind"] as? String == kind }, "no \(kind) in the manifest")
    }

    @Test func kubernetesValidateAcceptsIt() throws {
        let check = try TestTools.run(try TestTools.venv("kubernetes-validate"), ["--strict", manifest])
        #expect(check.status == 0, "\(check.output)")
        for resource in ["deployment/preflight", "poddisruptionbudget/preflight", "networkpolicy/preflight", "namespace/preflight"] {
            #expect(check.output.contains("passed for resource \(resource)"), "\(check.output)")
        }
    }

    /// Once per test run: checkov takes about 10 s.
    @Test func checkovPassesWithEveryDocumentedSkip() throws {
        let check = try TestTools.run(
            try TestTools.venv("checkov"), ["-f", manifest, "--framework", "kubernetes", "--compact", "--quiet", "--skip-download"])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("Failed checks: 0,"), "\(check.output)")
        // Every skip is an annotation with a reason, and the header comment lists the same checks.
        let deployment = try object("Deployment", in: try documents())
        let annotations = (deployment["metadata"] as? [String: Any])?["annotations"] as? [String: String] ?? [:]
        let skips = annotations.filter { $0.key.hasPrefix("checkov.io/skip") }.map(\.value)
        #expect(check.output.contains("Skipped checks: \(skips.count)"), "\(check.output)")
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        for skip in skips {
            let parts = skip.split(separator: "=", maxSplits: 1)
            #expect(parts.count == 2 && parts[1].count > 20, "a skip without its reason: \(skip)")
            #expect(text.contains("#   \(parts[0]) ("), "\(parts[0]) is skipped but not explained at the top")
        }
    }

    /// Every image name written down (the manifest's comments, the CI recipes, the README and
    /// the documents in docs/) has the version of the code, so a release bump cannot leave one
    /// behind.
    @Test func everyImageTagIsTheVersion() throws {
        let tag = try Regex(#"preflight:([0-9]+\.[0-9]+\.[0-9]+)"#)
        let documents = try FileManager.default.contentsOfDirectory(atPath: Repository.path("docs"))
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        let recipes = ["Config/kubernetes/preflight.yaml", "docs/ci/github-actions.yml", "docs/ci/gitlab-ci.yml", "scripts/ci-preflight"]
        for path in recipes + ["README.md"] + documents {
            let text = try String(contentsOfFile: Repository.path(path), encoding: .utf8)
            let versions = text.matches(of: tag).compactMap { $0.output[1].substring.map(String.init) }
            #expect(!versions.isEmpty || !recipes.contains(path), "\(path) names no preflight image")
            #expect(versions.allSatisfy { $0 == Version.preflight }, "\(path): \(versions), not \(Version.preflight)")
        }
    }

    @Test func itMatchesTheCodeItDeploys() throws {
        let documents = try documents()
        let template = try #require(
            ((try object("Deployment", in: documents))["spec"] as? [String: Any])?["template"] as? [String: Any])
        let pod = try #require(template["spec"] as? [String: Any])
        #expect(pod["automountServiceAccountToken"] as? Bool == false)
        let container = try #require((pod["containers"] as? [[String: Any]])?.first)
        // The image tag is the version `preflight --version` prints: kept in sync here, not by hand.
        #expect(container["image"] as? String == "preflight:\(Version.preflight)")
        let containerPorts = (container["ports"] as? [[String: Any]])?.map { $0["containerPort"] as? Int }
        let configText = try #require(
            ((try object("ConfigMap", in: documents))["data"] as? [String: String])?["preflight.json"])
        let config = try #require(try JSONSerialization.jsonObject(with: Data(configText.utf8)) as? [String: Any])
        // The API port and the probe port, in that order.
        let configPorts = [config["port"] as? Int, config["probe_port"] as? Int]
        #expect(containerPorts == configPorts)
        for probe in ["readinessProbe", "livenessProbe"] {
            let port = ((container[probe] as? [String: Any])?["httpGet"] as? [String: Any])?["port"] as? String
            #expect(port == "probes", "\(probe) asks \(port ?? "nothing"), not the probe listener")
        }

        let policy = try #require((try object("NetworkPolicy", in: documents))["spec"] as? [String: Any])
        #expect(policy["policyTypes"] as? [String] == ["Ingress", "Egress"])
        #expect((policy["egress"] as? [Any])?.isEmpty == true, "the server opens no connection: no egress")
        let ingress = try #require(policy["ingress"] as? [[String: Any]])
        #expect(ingress.count == 1 && ingress[0]["from"] == nil)
        #expect((ingress[0]["ports"] as? [[String: Any]])?.map { $0["port"] as? Int } == configPorts)

        let budget = try #require((try object("PodDisruptionBudget", in: documents))["spec"] as? [String: Any])
        #expect(budget["minAvailable"] as? Int == 1)
        // Both select the Deployment's pods.
        let labels = try #require((template["metadata"] as? [String: Any])?["labels"] as? [String: String])
        for selector in [budget["selector"], policy["podSelector"]] {
            let matchLabels = try #require((selector as? [String: Any])?["matchLabels"] as? [String: String])
            #expect(matchLabels.allSatisfy { labels[$0.key] == $0.value })
        }
        // Every object but the Namespace is in it.
        for document in documents where document["kind"] as? String != "Namespace" {
            #expect((document["metadata"] as? [String: Any])?["namespace"] as? String == "preflight", "\(document["kind"] ?? "?")")
        }
    }
}
