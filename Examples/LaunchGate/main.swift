// launch-gate: an app's launch gate, built on MigrationCore's public API alone.
//
// It demonstrates that MigrationCore is embeddable: at launch the app hands its database
// and its migration plan to a `Migrator`, which refuses a newer or foreign file, refuses a
// step that would not fit in the free space (`space_check: estimate` with a `SpaceMeter`
// that asks the file system), and runs the pending steps in small committed batches. A
// launch killed in the middle (the OS watchdog) leaves the file consistent at a completed
// version, and the next launch resumes from the last committed batch.
//
//     launch-gate --db FILE --plan PLAN.json [--free-bytes N]
//
// Exit status: 0 when the database is at the plan's newest version, 1 when the migration
// stopped short of it (the reason on stderr), 2 for bad usage.
import Foundation
import MigrationCore

let usage = "usage: launch-gate --db FILE --plan PLAN.json [--free-bytes N]"

func exit(_ status: Int32, saying message: String) -> Never {
    FileHandle.standardError.write(Data("launch-gate: \(message)\n".utf8))
    exit(status)
}

// MARK: - Arguments

// `--name value` pairs; an app would have its path and its bundled plan at hand instead.
var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    guard ["--db", "--plan", "--free-bytes"].contains(name), let value = arguments.popFirst() else {
        exit(2, saying: "unexpected argument \"\(name)\"\n\(usage)")
    }
    options[name] = value
}
guard let databasePath = options["--db"], let planPath = options["--plan"] else { exit(2, saying: usage) }
let freeBytes = options["--free-bytes"].map { text in
    guard let bytes = Int64(text), bytes >= 0 else { exit(2, saying: "--free-bytes must be a number of bytes, got \"\(text)\"") }
    return bytes
}

let plan: Plan
do {
    guard let document = FileManager.default.contents(atPath: planPath) else { exit(2, saying: "cannot read the plan \(planPath)") }
    plan = try PlanDecoder.decode([UInt8](document))
} catch {
    exit(2, saying: "invalid plan \(planPath): \(error.message)")
}

// MARK: - The gate

// The first launch after install has no database yet: an empty file is a fresh install,
// which the plan builds from step 1.
if !FileManager.default.fileExists(atPath: databasePath),
    !FileManager.default.createFile(atPath: databasePath, contents: nil)
{
    exit(1, saying: "cannot create the database \(databasePath)")
}
let migrator = Migrator(
    plan: plan, settings: MigrationSettings(spaceCheck: .estimate),
    spaceMeter: DeviceSpaceMeter(databasePath: databasePath, fixedFreeBytes: freeBytes))
let ending = migrator.migrate(databaseAt: databasePath) { event in
    // One write per line, unbuffered: each line is out before the next batch, so whoever
    // watches (a log, a pipe) sees how far a launch got, even one that is killed.
    if let line = progressLine(event, plan: plan) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
}
switch ending {
case .reached:
    exit(0)
case .stopped(let stop, let failure):
    exit(1, saying: "\(stop.rawValue): \(failure.message)")
}
