import Foundation

/// Runs the `sqlite3` command-line shell on `path` with `script` on its standard input,
/// as the benchmarks' baseline and fixture builder; throws unless it exits 0. The script
/// is written to a file beside `path` first; the seconds answered are the shell's alone.
@discardableResult
func runSQLiteShell(_ path: String, script: String) throws -> Double {
    let scriptFile = path + ".sql"
    try script.write(toFile: scriptFile, atomically: false, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: scriptFile) }
    return try Program("/usr/bin/sqlite3", [path], input: scriptFile).run().seconds
}
