import CSQLite

/// One SQLite value, as stored: what a cursor key or a row count is made of.
public enum SQLiteValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let bytes): return "x'" + bytes.map { hex($0) }.joined() + "'"
        }
    }

    public var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var textValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    // Codable as plain JSON: null, number, string, {"blob": "hex"}, or for a REAL that JSON
    // has no number for, {"real": "Infinity"} or {"real": "-Infinity"} (SQLite stores both;
    // a table may be keyed by them, and a rebuild's cursor must be able to hold them).
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .real(value)
        } else if let value = try? container.decode(String.self) {
            self = .text(value)
        } else {
            let wrapped = try container.decode([String: String].self)
            if let real = wrapped["real"], let value = Double(real), value.isInfinite {
                self = .real(value)
                return
            }
            guard let hexText = wrapped["blob"], let bytes = bytes(fromHex: hexText) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an SQLite value")
            }
            self = .blob(bytes)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .integer(let value): try container.encode(value)
        case .real(let value) where value.isInfinite: try container.encode(["real": value > 0 ? "Infinity" : "-Infinity"])
        case .real(let value): try container.encode(value)
        case .text(let value): try container.encode(value)
        case .blob(let bytes): try container.encode(["blob": bytes.map { hex($0) }.joined()])
        }
    }
}

private func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xf)]])
}

private func bytes(fromHex text: String) -> [UInt8]? {
    let characters = Array(text.utf8)
    guard characters.count % 2 == 0 else { return nil }
    var result: [UInt8] = []
    result.reserveCapacity(characters.count / 2)
    var index = 0
    while index < characters.count {
        guard let high = nibble(characters[index]), let low = nibble(characters[index + 1]) else { return nil }
        result.append(high << 4 | low)
        index += 2
    }
    return result
}

private func nibble(_ character: UInt8) -> UInt8? {
    switch character {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
    default: return nil
    }
}
