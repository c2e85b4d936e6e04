import CSQLite
import MigrationCore

/// The text a synthesized row's value cuts from the pool (`ValueExpression`), computed by one
/// SQL function call, `preflight_pool_text(pool, draw, low, lengths)`: where every text of
/// a fill was two `substr`s, a concatenation, a cast and the draw's arithmetic again for each,
/// which made the SQL's evaluation a large share of a fill.
///
/// Two pieces, so that a column has as many different texts as it asks for (poolWindow²
/// starts, not poolWindow). It makes the very bytes that SQL made, so a file is the same
/// whichever made it: a length of `low`, plus `draw / 7 % lengths` when there is more than
/// one; its first half from `draw % poolWindow` in the pool, the rest from
/// `draw / poolWindow % poolWindow`; cut short at the pool's end, as `substr` is; text, as
/// `||` makes of two blobs.
enum PoolText {
    static let functionName = "preflight_pool_text"

    /// Defines the function on a connection that fills tables.
    static func define(on connection: Connection) throws(SQLiteError) {
        try connection.defineFunction(functionName, argumentCount: 4, poolText)
    }

    /// The call, for a draw (SQL) and the lengths of its texts; `?1` is the pool.
    static func call(draw: String, lengths: ClosedRange<Int>) -> String {
        "\(functionName)(?1, \(draw), \(lengths.lowerBound), \(lengths.count))"
    }
}

/// The function's body: a C function, as SQLite calls it for every row.
private func poolText(context: OpaquePointer?, argumentCount: Int32, arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    guard argumentCount == 4, let arguments else { return sqlite3_result_error(context, "preflight_pool_text takes 4 arguments", -1) }
    let poolBytes = Int64(sqlite3_value_bytes(arguments[0]))
    let draw = sqlite3_value_int64(arguments[1])
    let low = sqlite3_value_int64(arguments[2])
    let lengths = sqlite3_value_int64(arguments[3])
    guard let pool = sqlite3_value_blob(arguments[0])?.assumingMemoryBound(to: UInt8.self), draw >= 0, low >= 0, lengths >= 1 else {
        return sqlite3_result_error(context, "preflight_pool_text needs a pool, a draw of 0 or more, and lengths", -1)
    }
    let window = Int64(ValueExpression.poolWindow)
    let length = lengths == 1 ? low : low + draw / 7 % lengths
    let first = length / 2
    // Each piece as substr cuts it: from its start to at most the pool's end.
    let firstStart = draw % window, secondStart = draw / window % window
    let firstCount = max(0, min(first, poolBytes - firstStart))
    let secondCount = max(0, min(length - first, poolBytes - secondStart))
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(max(firstCount + secondCount, 1))) { buffer in
        guard let base = buffer.baseAddress else { return }
        base.update(from: pool + Int(firstStart), count: Int(firstCount))
        (base + Int(firstCount)).update(from: pool + Int(secondStart), count: Int(secondCount))
        sqlite3_result_text64(context, base, UInt64(firstCount + secondCount), preflight_transient(), UInt8(SQLITE_UTF8))
    }
}
