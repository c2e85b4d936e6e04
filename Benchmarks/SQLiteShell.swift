import Foundation

/// Runs the `sqlite3` command-line shell on `path` with `script` on its standard input,
/// as the benchmarks' baseline and fixture builder; throws unless it exits 0.
func runSQLiteShell(_ path: String, script: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [path]
    let input = Pipe()
    process.standardInput = input
    // What a query prints (the integrity_check's "ok") is not the benchmark's output.
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    input.fileHandleForWriting.write(Data(script.utf8))
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw SQLiteShellFailure(path: path, status: process.terminationStatus) }
}

struct SQLiteShellFailure: Error, CustomStringConvertible {
    var path: String
    var status: Int32
    var description: String { "sqlite3 exited with \(status) on \(path)" }
}
