import Foundation
import Testing
import TestSupport
import PreflightService

/// What plans and databases say never drives the terminal: escape sequences in step and
/// plan names, SQLite's messages and statements reach the summary and the CLI's messages
/// without their control characters.
@Suite struct TerminalSafetyTests {
    @Test func controlCharactersAreRemoved() {
        let hostile = "a\u{1b}[31mred\u{1b}]0;title\u{07}\n\tb\u{9b}2Jc\u{7f}\u{0}d"
        #expect(TerminalText.message(hostile) == "a[31mred]0;title\n\tb2Jcd")
        #expect(TerminalText.field(hostile) == "a[31mred]0;title  b2Jcd")
        #expect(TerminalText.field("plain text, ünïcode ✓") == "plain text, ünïcode ✓")
    }

    /// No C0 control but the newline, no DEL, no C1 control.
    private func controls(in text: String) -> [UInt32] {
        text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }.map(\.value)
    }

    @Test func aHostilePlanAndDatabaseReachTheTerminalHarmless() throws {
        let directory = TemporaryDirectory("terminal")
        let plan = directory.file("plan.json")
        // JSON escapes: the plan file itself holds no raw control character.
        try Data(#"""
            {"name": "evil\u001b]0;pwned\u0007", "steps": [
              {"version": 1, "name": "create\u001b[2J\u009b31m", "sql": "CREATE TABLE \"t\u001b[5m\"(x)"},
              {"version": 2, "name": "read\u001b]52;c;ZXZpbA==\u0007", "sql": "INSERT INTO \"t\u001b[5m\" SELECT * FROM \"gone\u001b[2J\""}]}
            """#.utf8).write(to: URL(fileURLWithPath: plan))
        let empty = directory.file("empty.db")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        let result = try PreflightProcess.run(["run", "--db", empty, "--plan", plan, "--format", "text"])
        #expect(result.status == 1)
        // The failure is there, with SQLite's message naming the table, minus its escapes.
        #expect(result.stdoutText.contains("no such table: gone[2J"), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("plan evil]0;pwned -> v2"))
        #expect(controls(in: result.stdoutText).isEmpty, "\(controls(in: result.stdoutText))")
        #expect(result.stderr.contains("launch 1: step 1 \"create[2J31m\" applied"), "\(result.stderr)")
        #expect(controls(in: result.stderr).isEmpty, "\(controls(in: result.stderr))")

        try Data(#"{"name": "bad", "steps": [{"version": 1, "name": "shrink\u001b[2J", "sql": "VACUUM"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: plan))
        let invalid = try PreflightProcess.run(["run", "--db", empty, "--plan", plan])
        #expect(invalid.status == 2)
        #expect(invalid.stderr.contains("shrink[2J"), "\(invalid.stderr)")
        #expect(controls(in: invalid.stderr).isEmpty)
    }
}
