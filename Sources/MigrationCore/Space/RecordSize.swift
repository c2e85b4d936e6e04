import CSQLite

/// Sizes of SQLite records and b-tree cells, as the file format lays them out
/// (https://www.sqlite.org/fileformat2.html, sections 1.6 and 2.1), and the SQL functions
/// that let one read-only query add them up over the rows a step will write.
///
///     preflight_record_size(v1, v2, ...)        bytes of the record holding v1, v2, ...
///     preflight_cell_size(kind, rowid, v1, ...)  bytes the record's cell takes in its
///                                                b-tree: the cell, its pointer, and whole
///                                                overflow pages; kind 0 is a table b-tree
///                                                (with `rowid`), 1 an index or WITHOUT
///                                                ROWID b-tree (`rowid` ignored)
///
/// The functions exist only while a `RecordSizeFunctions` value is alive.
enum RecordSize {
    /// Bytes of a varint holding `value` (1 to 9).
    static func varintLength(_ value: Int64) -> Int64 {
        var unsigned = UInt64(bitPattern: value)
        var length: Int64 = 1
        while unsigned > 0x7f && length < 9 {
            unsigned >>= 7
            length += 1
        }
        return length
    }

    /// Body bytes of an integer's serial type (schema format 4: 0 and 1 take none).
    static func integerBodyLength(_ value: Int64) -> Int64 {
        switch value {
        case 0...1: return 0
        case -128...127: return 1
        case -32_768...32_767: return 2
        case -8_388_608...8_388_607: return 3
        case -2_147_483_648...2_147_483_647: return 4
        case -140_737_488_355_328...140_737_488_355_327: return 6
        default: return 8
        }
    }

    /// Header and body bytes of a text or blob of `length` bytes.
    static func stringLength(_ length: Int64) -> (header: Int64, body: Int64) {
        (varintLength(length * 2 + 13), length)
    }

    /// Bytes a cell with a `payload`-byte record takes, overflow pages included whole.
    /// `indexFormat`: index b-trees (and WITHOUT ROWID tables) spill sooner than tables.
    static func cellLength(payload: Int64, rowid: Int64?, usable: Int64, indexFormat: Bool) -> Int64 {
        let maxLocal = indexFormat ? (usable - 12) * 64 / 255 - 23 : usable - 35
        let minLocal = (usable - 12) * 32 / 255 - 23
        var local = payload
        var overflowPages: Int64 = 0
        if payload > maxLocal {
            let spill = minLocal + (payload - minLocal) % (usable - 4)
            local = spill <= maxLocal ? spill : minLocal
            overflowPages = (payload - local + usable - 5) / (usable - 4)
        }
        let header = varintLength(payload) + (indexFormat ? 0 : varintLength(rowid ?? Int64(UInt32.max)))
        return 2 + header + local + (overflowPages > 0 ? 4 : 0) + overflowPages * usable
    }

    /// Pages a b-tree of cells totalling `cellBytes` takes when its leaves are filled to
    /// `fill`, with its interior pages (each leaf needs a divider cell one level up: about
    /// 12 bytes in a table b-tree, a whole key in an index b-tree).
    static func pages(cellBytes: Int64, cells: Int64, usable: Int64, fill: Double, indexFormat: Bool) -> Int64 {
        guard cells > 0 else { return 0 }
        let leafCapacity = Double(usable - 8) * fill
        let leaves = (Double(cellBytes) / leafCapacity).rounded(.up)
        let divider = indexFormat ? Double(cellBytes) / Double(cells) + 4 : 12
        let perInterior = max(2, (Double(usable - 12) * fill) / divider)
        var interior = 0.0
        var level = leaves
        while level > 1 {
            level = (level / perInterior).rounded(.up)
            interior += level
        }
        return Int64(leaves + interior)
    }
}

/// Registers the size functions on a connection for as long as this value lives.
///
/// Registered on the migrating connection itself (the sizes of the data are there),
/// under `preflight_` names; they are removed again when the measurement ends.
final class RecordSizeFunctions {
    private let connection: Connection
    static let recordSize = "preflight_record_size"
    static let cellSize = "preflight_cell_size"

    init(connection: Connection, usable: Int64, utf16: Bool) throws(SQLiteError) {
        self.connection = connection
        // The usable page size and the text encoding ride in the user-data pointer.
        let context = UnsafeMutableRawPointer(bitPattern: Int(usable) << 1 | (utf16 ? 1 : 0))
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        try SQLiteError.check(
            sqlite3_create_function_v2(connection.handle, Self.recordSize, -1, flags, context, recordSizeFunction, nil, nil, nil),
            connection.handle)
        try SQLiteError.check(
            sqlite3_create_function_v2(connection.handle, Self.cellSize, -1, flags, context, cellSizeFunction, nil, nil, nil),
            connection.handle)
    }

    deinit {
        for name in [Self.recordSize, Self.cellSize] {
            sqlite3_create_function_v2(connection.handle, name, -1, SQLITE_UTF8, nil, nil, nil, nil, nil)
        }
    }
}

/// Record bytes of `values[first...]`.
private func recordLength(_ values: UnsafeMutablePointer<OpaquePointer?>, from first: Int, count: Int, utf16: Bool) -> Int64 {
    var header: Int64 = 0
    var body: Int64 = 0
    for index in first..<count {
        let value = values[index]
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            header += 1
            body += RecordSize.integerBodyLength(sqlite3_value_int64(value))
        case SQLITE_FLOAT:
            header += 1
            body += 8
        case SQLITE_TEXT, SQLITE_BLOB:
            let bytes = Int64(utf16 && sqlite3_value_type(value) == SQLITE_TEXT ? sqlite3_value_bytes16(value) : sqlite3_value_bytes(value))
            let length = RecordSize.stringLength(bytes)
            header += length.header
            body += length.body
        default:
            header += 1
        }
    }
    // The header starts with its own length, a varint.
    let headerLength = header + RecordSize.varintLength(header + 1)
    return headerLength + body
}

private func unpackContext(_ context: OpaquePointer?) -> (usable: Int64, utf16: Bool) {
    let bits = Int(bitPattern: sqlite3_user_data(context))
    return (Int64(bits >> 1), bits & 1 == 1)
}

private func recordSizeFunction(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let values else { return sqlite3_result_int64(context, 0) }
    sqlite3_result_int64(context, recordLength(values, from: 0, count: Int(count), utf16: unpackContext(context).utf16))
}

private func cellSizeFunction(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let values, count >= 2 else { return sqlite3_result_int64(context, 0) }
    let (usable, utf16) = unpackContext(context)
    let indexFormat = sqlite3_value_int64(values[0]) != 0
    let rowid: Int64? = sqlite3_value_type(values[1]) == SQLITE_INTEGER ? sqlite3_value_int64(values[1]) : nil
    let payload = recordLength(values, from: 2, count: Int(count), utf16: utf16)
    sqlite3_result_int64(
        context, RecordSize.cellLength(payload: payload, rowid: rowid, usable: usable, indexFormat: indexFormat))
}
