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

    static func write<Value: Encodable>(_ value: Value) {
        guard var line = try? encoder.encode(value) else { return }
        line.append(UInt8(ascii: "\n"))
        _ = line.withUnsafeBytes { writeAll(1, $0) }
    }
}
