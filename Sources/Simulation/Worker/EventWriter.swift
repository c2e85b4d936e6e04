import Foundation
import MigrationCore

/// Writes JSON lines to standard output, one `write(2)` per line, unbuffered: the
/// parent must see every event that happened before a SIGKILL.
enum EventWriter {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// Writes `value` as one line. A value that does not encode, or a line that cannot be
    /// written, ends the worker at once (status 70): the parent judges a launch by its
    /// lines, and a line left out would make it judge a record with a hole in it.
    static func write<Value: Encodable>(_ value: Value) {
        var line: Data
        do {
            line = try encoder.encode(value)
        } catch {
            WorkerStderr.say("cannot encode an event line: \(error)")
            exit(70)
        }
        line.append(UInt8(ascii: "\n"))
        guard line.withUnsafeBytes({ writeAll(1, $0) }) else { exit(70) }
    }
}
