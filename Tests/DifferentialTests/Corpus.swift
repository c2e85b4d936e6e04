import Foundation

/// The real-app migration chains in `Fixtures/corpus` (see its README.md) as differential
/// cases: each app's plan file, made into a plan Preflight accepts, with the same steps'
/// SQL for the oracle and the app's version-1 seed rows.
enum Corpus {
    /// The apps whose chains the corpus holds. Listed rather than found by listing the folder,
    /// so that a missing fixture fails its case instead of silently running fewer
    /// (`CorpusTests` checks the folder holds exactly these).
    static let apps = ["antennapod", "k9mail", "wikipedia-android", "duckduckgo-android", "fairemail", "siskin-im"]

    /// Steps that remove rows on purpose, which the corpus's format has no key for (its
    /// README: the seeds hold "rows that later steps delete or transform"). A plan author
    /// declares such a step with `"row_loss": "allowed"` (docs/CONTRACT.md §1), or Preflight ends
    /// the run `verification_failed`; the loader adds the key to these steps only.
    /// `CorpusTests` checks that this is exactly where plain SQLite loses rows, so a
    /// declaration can neither hide a loss nor go stale. `rows_lost` is compared with the
    /// oracle's either way.
    static let rowLossSteps: [String: [Int: String]] = [
        "duckduckgo-android": [
            3: "MIGRATION_2_TO_3 empties network_leaderboard (DELETE FROM `network_leaderboard`)",
            30: "MIGRATION_29_TO_30 copies bookmarks into a table with UNIQUE (url) ON CONFLICT REPLACE: duplicate urls collapse",
        ],
    ]

    /// The fixture folder, found from this file so that the tests read their own copy.
    static let directory: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/corpus", isDirectory: true)

    /// The case for `app`.
    ///
    /// The corpus files carry `source` and `notes`, which a plan does not have (a plan with
    /// an unknown key is rejected, docs/CONTRACT.md §1); they become the plan's free-text
    /// `description`. Every other key, the steps included, goes to Preflight unchanged.
    static func differentialCase(_ app: String) throws -> DifferentialCase {
        let planData = try Data(contentsOf: directory.appendingPathComponent("\(app).plan.json"))
        let seed = try String(contentsOf: directory.appendingPathComponent("\(app).seed.sql"), encoding: .utf8)
        guard var plan = try JSONSerialization.jsonObject(with: planData) as? [String: Any] else {
            throw CorpusError("\(app).plan.json is not a JSON object")
        }
        guard let steps = plan["steps"] as? [[String: Any]] else {
            throw CorpusError("\(app).plan.json has no list of steps")
        }

        var oracleSteps: [[String]] = []
        let rowLoss = rowLossSteps[app] ?? [:]
        var planSteps: [[String: Any]] = []
        for (index, var step) in steps.enumerated() {
            if rowLoss[index + 1] != nil { step["row_loss"] = "allowed" }
            planSteps.append(step)
            guard step["version"] as? Int == index + 1 else {
                throw CorpusError("\(app).plan.json: step \(index + 1) has version \(step["version"] ?? "none"); versions run 1, 2, ...")
            }
            // A `sql` step's text, as an array (the corpus's form) or one string.
            if let statements = step["sql"] as? [String] {
                oracleSteps.append(statements)
            } else if let script = step["sql"] as? String {
                oracleSteps.append([script])
            } else {
                throw CorpusError("\(app).plan.json: step \(index + 1) is not a sql step, and the corpus has only those")
            }
        }

        plan["steps"] = planSteps

        var description: [String] = []
        if let source = plan.removeValue(forKey: "source") { description.append("Source: \(source)") }
        if let notes = plan.removeValue(forKey: "notes") {
            let lines = notes as? [String] ?? ["\(notes)"]
            description.append("Notes: " + lines.joined(separator: " "))
        }
        if !description.isEmpty { plan["description"] = description.joined(separator: "\n") }

        return DifferentialCase(
            name: app, planDocument: try JSONSerialization.data(withJSONObject: plan, options: [.sortedKeys]),
            oracleSteps: oracleSteps, seedSQL: seed)
    }

    /// The apps that have a plan file in the folder.
    static func appsInFolder() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".plan.json") }
            .map { String($0.dropLast(".plan.json".count)) }
            .sorted()
    }
}

/// A corpus file is not in the form its README describes.
struct CorpusError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
