import Foundation
import Simulation
import Testing
import TestSupport

/// docs/CONTRACT.md holds the one table of outcomes; what a summary prints after an outcome
/// (`Outcome.meaning`) is the start of that outcome's meaning there, and its exit status is
/// the one `preflight run` answers with.
@Suite struct OutcomeTableTests {
    struct Row {
        var outcome: String
        var meaning: String
        var exit: String
    }

    /// The table's rows, read from the contract as a person reads it.
    static func rows() throws -> [Row] {
        let contract = try String(contentsOfFile: Repository.path("docs/CONTRACT.md"), encoding: .utf8)
        let lines = contract.components(separatedBy: "\n")
        let header = try #require(lines.firstIndex(of: "| outcome | meaning | database left | exit |"))
        return lines[(header + 2)...].prefix { $0.hasPrefix("| `") }.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            return Row(outcome: cells[1].trimmingCharacters(in: ["`"]), meaning: cells[2], exit: cells[4])
        }
    }

    @Test func everyOutcomeIsARowOfTheContractsTableAndEveryRowAnOutcome() throws {
        let rows = try Self.rows()
        #expect(rows.map(\.outcome) == Outcome.allCases.map(\.rawValue))
        for (row, outcome) in zip(rows, Outcome.allCases) {
            #expect(row.meaning.hasPrefix(outcome.meaning), "\(outcome.rawValue): \"\(outcome.meaning)\" is not how the contract's meaning starts: \(row.meaning)")
            #expect(row.exit == (outcome == .completed ? "0" : "1"), "\(outcome.rawValue)")
        }
    }
}
