import Foundation
import MigrationCore
import Simulation

/// `preflight calibrate`: prints a device profile of this machine (docs/CONTRACT.md §7 `speed`),
/// fitted to a fixed workload timed here (`Calibration`), so that a run's modelled
/// `device_ms` can be checked against its measured time, and a team can fit a profile to
/// its own phone's timings the same way.
enum CalibrateCommand {
    static let syntax = CommandSyntax(
        command: "preflight calibrate",
        flags: [
            .init("rows", value: "N"), .init("rounds", value: "N"), .init("name", value: "NAME"), .init("out", value: "FILE"),
        ],
        usage: """
            usage: preflight calibrate [--rows N] [--rounds N] [--name NAME] [--out FILE]

            Runs a fixed workload (bulk inserts, a commit per row, a copy and a backfill in committed
            key ranges, index builds, a 12-step rebuild with an index and a trigger, a rewrite of every
            row, a scan, batched deletes, a drop; with a rollback journal and with WAL) on this
            machine, times each piece, and prints a device profile whose speed model explains those
            times: this machine, seen as a device. A few rehearsals of a plan with next to nothing to
            do time a launch's own cost (start_ms). Run it on a quiet machine. The table of measured
            and modelled times goes to stderr, with the rms error of the pieces and the costs the
            timings do not pin (a term that explains under 5% of every piece's time, or that the
            fit would set to 0), which keep the reference machine's value.

              --rows N      rows of the workload's table (default 100000; a quarter of it is run too)
              --rounds N    runs of the whole workload; each piece's median time is fitted (default 3)
              --name NAME   the profile's name (default this-machine)
              --out FILE    write the profile there instead of stdout

            exit status: 0 printed, 1 the workload failed, 2 bad usage
            """)

    static func main(_ arguments: [String], executable: String) -> Int32 {
        CommandLineAnswer.run(syntax, arguments) { parsed throws(UsageError) in
            try run(parsed, executable: executable)
        }
    }

    private static func run(_ arguments: Arguments, executable: String) throws(UsageError) -> Int32 {
        let rowsText = arguments.value("rows") ?? "100000"
        guard let rows = Int(rowsText), (1_000...10_000_000).contains(rows) else {
            throw UsageError("--rows must be a whole number from 1000 to 10000000, got \"\(rowsText)\"")
        }
        let roundsText = arguments.value("rounds") ?? "3"
        guard let rounds = Int(roundsText), (1...20).contains(rounds) else {
            throw UsageError("--rounds must be a whole number from 1 to 20, got \"\(roundsText)\"")
        }
        let name = arguments.value("name") ?? "this-machine"
        guard let directory = CommandLineAnswer.workingDirectory("preflight calibrate") else { return 1 }
        defer { try? FileManager.default.removeItem(atPath: directory.path) }
        let result: Calibration.Result
        do {
            result = try Calibration.run(directory: directory.path, rows: rows, rounds: rounds, executable: executable)
        } catch {
            printError("preflight calibrate: the workload failed: \(error)")
            return 1
        }
        var table = "piece                                          measured   modelled   error\n"
        for piece in result.pieces {
            let error = (piece.modelledMs - piece.measuredMs) / piece.measuredMs * 100
            table += piece.name.padding(toLength: 44, withPad: " ", startingAt: 0)
                + String(format: " %8.1f ms %8.1f ms %+6.1f%%\n", piece.measuredMs, piece.modelledMs, error)
        }
        table += String(format: "rms error of the pieces: %.1f%%\n", result.rmsError * 100)
        if !result.held.isEmpty {
            table += "not pinned by these timings, kept at the reference machine's: \(result.held.joined(separator: ", "))\n"
        }
        printError(table)
        // The job's copy of the upload was just written here, so its pages are in this
        // machine's page cache when a rehearsal's first launch starts.
        var speed = result.speed
        speed.firstLaunchCache = .warm
        let held = result.held.isEmpty ? "" : "; not pinned by its timings, kept at the reference machine's: \(result.held.joined(separator: ", "))"
        let profile = DeviceProfileDocument(
            name: name,
            description: "This machine as a device: its speed model fitted by `preflight calibrate --rows \(rows) --rounds \(rounds)` to a workload timed here (rms error of the pieces \(String(format: "%.1f", result.rmsError * 100))%\(held)); a rehearsal's first launch finds the copy of the upload in this machine's page cache",
            speed: speed)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(profile) else { return 1 }
        let text = String(decoding: data, as: UTF8.self) + "\n"
        if let out = arguments.value("out") {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: out))
            } catch {
                printError("preflight calibrate: cannot write \(out): \(error.localizedDescription)")
                return 1
            }
        } else {
            printOutput(text)
        }
        return 0
    }

    /// The profile as a file in `Config/devices` holds it (no watchdog of its own: give one
    /// with `--watchdog-ms`, or add `entry_point`).
    private struct DeviceProfileDocument: Encodable {
        var name: String
        var description: String
        var speed: SpeedModel
    }
}
