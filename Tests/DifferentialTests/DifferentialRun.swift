import Foundation
import TestSupport

/// The differential test: one case through the real `preflight run` and through the oracle,
/// and every way their end states disagree.
enum Differential {
    /// Where the run begins.
    enum Start: String, Sendable, CaseIterable {
        /// An upgrade: version 1 with the case's seed rows, so that steps 2...N go down the
        /// data paths.
        case seeded
        /// A fresh install that replays the whole history: a 0-byte file at version 0.
        case empty

        /// The user_version Preflight's input has.
        var version: Int { self == .seeded ? 1 : 0 }
    }

    /// Runs `testCase` through `preflight run` and through the oracle from `start`; returns every disagreement, each a sentence a person can act on (empty when they agree).
    /// With `device`, Preflight runs on that profile and the oracle on the profile's engine
    /// (`EngineOracle`, through the engine's own shell at `shell`).
    static func discrepancies(
        _ testCase: DifferentialCase, from start: Start, device: (profile: String, shell: String)? = nil
    ) throws -> [String] {
        let directory = TemporaryDirectory("differential")
        let oracle = try device.map { try EngineOracle.run(testCase, from: start, shell: $0.shell, in: directory) }
            ?? Oracle.run(testCase, from: start, in: directory)

        let planPath = directory.file("plan.json")
        try testCase.planDocument.write(to: URL(fileURLWithPath: planPath))
        let inputPath = directory.file("input.db")
        if let versionOne = oracle.versionOne {
            try FileManager.default.copyItem(atPath: versionOne.path, toPath: inputPath)
        } else {
            guard FileManager.default.createFile(atPath: inputPath, contents: Data()) else {
                throw OracleError("cannot create the empty input file \(inputPath)")
            }
        }
        let outPath = directory.file("out.db")
        let result = try PreflightProcess.run(
            ["run", "--db", inputPath, "--plan", planPath, "--out", outPath] + (device.map { ["--device", $0.profile] } ?? []))

        var comparison = Comparison(oracle: oracle, start: start, lastVersion: testCase.oracleSteps.count)
        try comparison.check(result, outPath: outPath)
        return comparison.discrepancies
    }
}

/// The checks of one run, collecting a sentence for each disagreement.
private struct Comparison {
    let oracle: Oracle.Run
    let start: Differential.Start
    let lastVersion: Int
    var discrepancies: [String] = []

    mutating func check(_ result: PreflightProcess.Result, outPath: String) throws {
        guard let report = (try? JSONSerialization.jsonObject(with: result.stdout)) as? [String: Any] else {
            // Not a check hidden by `try?`: a report that does not decode is the discrepancy.
            discrepancies.append(
                "preflight run printed no JSON report on stdout (exit status \(result.status)); stderr: \(tail(result.stderr))")
            return
        }
        let final = report["final"] as? [String: Any] ?? [:]

        let expected = oracle.end.fingerprint
        // Every step applies; a history that leaves rows breaking a foreign key is one that
        // Preflight's verification must flag, as `foreign_key_check` on the oracle's file does.
        let violations = expected.foreignKeyViolations
        let expectedOutcome = violations > 0 ? "verification_failed" : "completed"
        let outcome = report["outcome"] as? String
        if outcome != expectedOutcome || result.status != (violations > 0 ? 1 : 0) {
            discrepancies.append(
                "preflight run ended \(outcome ?? "without an outcome") with exit status \(result.status), where the oracle completed every step\(violations > 0 ? " leaving \(violations) foreign-key violations" : ""); failure: \(json(report["failure"])); stderr: \(tail(result.stderr))")
        }
        if final["foreign_key_violations"] as? Int != violations {
            discrepancies.append(
                "the report's final.foreign_key_violations is \(json(final["foreign_key_violations"])), the oracle's file has \(violations)")
        }

        let reportedVersion = final["user_version"] as? Int
        if reportedVersion != Int(expected.userVersion) {
            discrepancies.append(
                "the report's final.user_version is \(reportedVersion.map(String.init) ?? json(final["user_version"])), the oracle ends at \(expected.userVersion)")
        }

        guard FileManager.default.fileExists(atPath: outPath) else {
            discrepancies.append("preflight run wrote no --out file at \(outPath)")
            return
        }
        // Checked before SQLite opens the file: it would read a -wal (or roll back a hot
        // journal) beside it as part of the database, and so hide that --out alone, what a
        // user takes away, is not that database. Empty sidecars hold no pages and do not count.
        for suffix in ["-wal", "-journal"] where FileManager.default.fileExists(atPath: outPath + suffix) {
            let size = try FileManager.default.attributesOfItem(atPath: outPath + suffix)[.size] as? Int ?? 0
            if size > 0 {
                discrepancies.append(
                    "preflight run left \((outPath as NSString).lastPathComponent + suffix) (\(size) bytes) beside the --out file, which must be one self-contained file (docs/CONTRACT.md §4)")
            }
        }
        let actual = try DatabaseFingerprint.read(outPath)
        if actual.userVersion != expected.userVersion {
            discrepancies.append(
                "the --out file is at user_version \(actual.userVersion), the oracle's at \(expected.userVersion)")
            // A file left at another version differs in every later step's schema and rows;
            // those follow from the version and would bury it, so the comparison stops here.
            return
        }

        compareFiles(actual, expected, outPath: outPath)
        compareInputTables(report["input"] as? [String: Any] ?? [:])
        compareReportedTables(final)
        compareRowsLost(final)
        if final["schema_matches_fresh_install"] as? Bool != true {
            discrepancies.append(
                "final.schema_matches_fresh_install is \(json(final["schema_matches_fresh_install"])), though the oracle's upgrade and replay agree; schema_diff: \(json(final["schema_diff"]))")
        }
        compareSteps(report["steps"])
    }

    // MARK: - The --out file against the oracle's

    private mutating func compareFiles(_ actual: DatabaseFingerprint, _ expected: DatabaseFingerprint, outPath: String) {
        for entry in actual.preflightLeftovers {
            discrepancies.append(
                "Preflight's bookkeeping \(entry.label) is left in the --out file; no _preflight_ table, index or trigger may survive a run")
        }

        compareCounts(actual.rowCounts, expected.rowCounts, what: "in the --out file")

        let actualSchema = Dictionary(grouping: actual.schema, by: \.label)
        let expectedSchema = Dictionary(grouping: expected.schema, by: \.label)
        for label in Set(actualSchema.keys).union(expectedSchema.keys).sorted() {
            let mine = actualSchema[label] ?? [], theirs = expectedSchema[label] ?? []
            if mine == theirs { continue }
            if mine.isEmpty {
                discrepancies.append("the --out file lacks the oracle's \(label): \(theirs.map(describe))")
            } else if theirs.isEmpty {
                if !actual.preflightLeftovers.contains(where: { $0.label == label }) {
                    discrepancies.append("the --out file has \(label), which the oracle's file does not: \(mine.map(describe))")
                }
            } else {
                discrepancies.append(
                    "the schema of \(label) differs: the --out file has \(mine.map(describe)), the oracle \(theirs.map(describe))")
            }
        }

        for table in Set(actual.contentHashes.keys).intersection(expected.contentHashes.keys).sorted()
        where actual.contentHashes[table] != expected.contentHashes[table] {
            discrepancies.append("the rows of table \(table) differ: \(rowDifference(table, outPath: outPath))")
        }
    }

    /// Which rows only one side has, for a table whose content hashes differ: the sorted
    /// serialisations are read again from both files and compared as multisets.
    private func rowDifference(_ table: String, outPath: String) -> String {
        do {
            let mine = try DatabaseFingerprint.rows(of: table, in: PlainSQLite(path: outPath))
            let theirs = try DatabaseFingerprint.rows(of: table, in: PlainSQLite(path: oracle.end.path))
            var remaining = Dictionary(theirs.map { ($0, 1) }, uniquingKeysWith: +)
            var onlyMine: [[UInt8]] = []
            for row in mine {
                if let count = remaining[row], count > 0 { remaining[row] = count - 1 } else { onlyMine.append(row) }
            }
            let onlyTheirs = remaining.flatMap { row, count in Array(repeating: row, count: count) }
                .sorted { $0.lexicographicallyPrecedes($1) }
            func sample(_ rows: [[UInt8]]) -> String {
                rows.prefix(3).map { "(" + String(decoding: $0, as: UTF8.self) + ")" }.joined(separator: ", ")
                    + (rows.count > 3 ? ", ..." : "")
            }
            return "\(onlyMine.count) rows only in the --out file [\(sample(onlyMine))], \(onlyTheirs.count) only in the oracle's [\(sample(onlyTheirs))]"
        } catch {
            return "their hashes differ, and reading them again failed: \(error)"
        }
    }

    private func describe(_ entry: DatabaseFingerprint.SchemaEntry) -> String {
        "on \(entry.tableName): \(entry.sql ?? "(no SQL)")"
    }

    // MARK: - The report against the oracle

    /// `final.tables` names the tables a user counts, virtual tables under their own names
    /// and no shadow table, each with `SELECT count(*)` (docs/CONTRACT.md §3, "Tables";
    /// `DatabaseFingerprint.userTableCounts`).
    private mutating func compareReportedTables(_ final: [String: Any]) {
        guard let reported = final["tables"] as? [String: Int] else {
            discrepancies.append("the report's final.tables is not an object of row counts: \(json(final["tables"]))")
            return
        }
        compareCounts(
            reported.mapValues(Int64.init), oracle.end.fingerprint.userTables, what: "in the report's final.tables")
    }

    /// `input.tables` is what `rows_lost` is computed from, so it must be the version-1
    /// file's counts (nothing, for the empty file).
    private mutating func compareInputTables(_ input: [String: Any]) {
        guard let reported = input["tables"] as? [String: Int] else {
            discrepancies.append("the report's input.tables is not an object of row counts: \(json(input["tables"]))")
            return
        }
        compareCounts(
            reported.mapValues(Int64.init), oracle.versionOne?.fingerprint.userTables ?? [:],
            what: "in the report's input.tables", versus: "the oracle's version-1 file")
    }

    /// The oracle's `rows_lost`: every table counted at version 1 that still exists at the
    /// end with fewer rows, by how many. A table the plan dropped (or renamed away) is not
    /// a loss, as in Preflight's Verifier (Sources/MigrationCore/Verification/Verifier.swift,
    /// `rowsLost`: "A table that no longer exists is not counted"): the schema comparison
    /// judges it instead. For the `empty` start nothing existed, so nothing is lost.
    private var expectedRowsLost: [String: Int] {
        guard let before = oracle.versionOne?.fingerprint.userTables else { return [:] }
        let after = oracle.end.fingerprint.userTables
        var lost: [String: Int] = [:]
        for (table, count) in before {
            if let countAfter = after[table], countAfter < count { lost[table] = Int(count - countAfter) }
        }
        return lost
    }

    private mutating func compareRowsLost(_ final: [String: Any]) {
        guard let reported = final["rows_lost"] as? [String: Int] else {
            discrepancies.append("the report's final.rows_lost is not an object of counts: \(json(final["rows_lost"]))")
            return
        }
        let expected = expectedRowsLost
        for table in Set(reported.keys).union(expected.keys).sorted() where reported[table] != expected[table] {
            discrepancies.append(
                "final.rows_lost says table \(table) lost \(reported[table] ?? 0) rows; from version 1 to the end the oracle's lost \(expected[table] ?? 0)")
        }
    }

    /// Steps from the input's version + 1 to the last, each applied with an integer time.
    private mutating func compareSteps(_ value: Any?) {
        guard let steps = value as? [[String: Any]] else {
            discrepancies.append("the report's steps is not a list of objects: \(json(value))")
            return
        }
        let versions = steps.map { $0["version"] as? Int }
        let expected = Array((start.version + 1)..<(lastVersion + 1)).map(Optional.some)
        if versions != expected {
            discrepancies.append(
                "the report's steps are for versions \(versions.map { $0.map(String.init) ?? "?" }), not \(start.version + 1) to \(lastVersion)")
        }
        for step in steps {
            let version = step["version"].map { "\($0)" } ?? "?"
            let status = step["status"] as? String
            if status != "applied" {
                discrepancies.append("step \(version) is reported \(status ?? "without a status"), not applied, in a run the oracle completes")
            } else if !(step["elapsed_ms"] is Int) {
                discrepancies.append("applied step \(version) has elapsed_ms \(json(step["elapsed_ms"])), not an integer")
            }
        }
    }

    // MARK: - Helpers

    private mutating func compareCounts(
        _ actual: [String: Int64], _ expected: [String: Int64], what place: String, versus other: String = "the oracle's end file"
    ) {
        for table in Set(actual.keys).union(expected.keys).sorted() where actual[table] != expected[table] {
            switch (actual[table], expected[table]) {
            case (let mine?, let theirs?):
                discrepancies.append("table \(table) has \(mine) rows \(place), \(theirs) in \(other)")
            case (let mine?, nil):
                discrepancies.append("table \(table) (\(mine) rows) is \(place) but not in \(other)")
            case (nil, let theirs?):
                discrepancies.append("table \(table) (\(theirs) rows in \(other)) is missing \(place)")
            case (nil, nil):
                break
            }
        }
    }

    /// A report value as JSON text, for messages (a decoded `false` would print as 0).
    private func json(_ value: Any?) -> String {
        guard let value else { return "absent" }
        // Wrapped in an array, so that scalars serialise too; the brackets are then dropped.
        if JSONSerialization.isValidJSONObject([value]),
            let data = try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys])
        {
            return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
        }
        return "\(value)"
    }

    /// The end of a long stderr, where the error is.
    private func tail(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.count > 2000 ? "..." + trimmed.suffix(2000) : (trimmed.isEmpty ? "(empty)" : trimmed)
    }
}
