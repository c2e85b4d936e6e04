/// Joins the partial answers of a sharded matrix (`--shard I/N`) into the answer the
/// unsharded matrix gives: every row with every device's cell, and the verdicts
/// (`schemas_agree`, `summary`) computed again over all of them. Shards of another matrix
/// (another plan, other inputs or options, by their hashes), a shard missing or given
/// twice, are refused with a message that names it.
public enum MatrixMerge {
    public static func merge(_ shards: [MatrixAnswer]) throws(MatrixMergeError) -> MatrixAnswer {
        guard let first = shards.first else { throw MatrixMergeError("no partial answer to merge") }
        guard let count = first.shard?.count else {
            throw MatrixMergeError("the first answer is a whole matrix, not a shard: only answers of --shard I/N are merged")
        }
        var seen = Set<Int>()
        for (position, answer) in shards.enumerated() {
            let name = "answer \(position + 1)"
            guard let shard = answer.shard else { throw MatrixMergeError("\(name) is a whole matrix, not a shard") }
            guard shard.count == count else {
                throw MatrixMergeError("\(name) is shard \(shard.text), but the first is one of \(count) shards")
            }
            guard seen.insert(shard.index).inserted else { throw MatrixMergeError("shard \(shard.text) is given twice") }
            if answer.identity.planSHA256 != first.identity.planSHA256 || answer.plan != first.plan {
                throw MatrixMergeError("shard \(shard.text) is of another plan (\(answer.plan), sha256 \(answer.identity.planSHA256))")
            }
            if answer.identity.inputs != first.identity.inputs {
                throw MatrixMergeError("shard \(shard.text) ran on other inputs (its fixtures' hashes differ)")
            }
            if answer.identity.optionsSHA256 != first.identity.optionsSHA256 || answer.devices != first.devices
                || answer.fromVersion != first.fromVersion || answer.targetVersion != first.targetVersion
            {
                throw MatrixMergeError("shard \(shard.text) ran with other options (devices, run options, from or size)")
            }
            guard answer.rows.count == first.rows.count else {
                throw MatrixMergeError("shard \(shard.text) has \(answer.rows.count) rows, the first \(first.rows.count)")
            }
        }
        let missing = (1...count).filter { !seen.contains($0) }
        if !missing.isEmpty {
            throw MatrixMergeError("shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(count)" }.joined(separator: ", ")) missing")
        }
        var rows = first.rows.map { row in
            var empty = row
            empty.cells = [:]
            return empty
        }
        for answer in shards {
            for (index, row) in answer.rows.enumerated() {
                guard row.fromVersion == rows[index].fromVersion || rows[index].fromVersion == nil || row.fromVersion == nil,
                    row.source == rows[index].source, row.file == rows[index].file, row.sha256 == rows[index].sha256
                else { throw MatrixMergeError("row \(index + 1) differs between shards") }
                rows[index].fromVersion = rows[index].fromVersion ?? row.fromVersion
                rows[index].bytes = rows[index].bytes ?? row.bytes
                rows[index].tables = rows[index].tables ?? row.tables
                // From the cache only when every shard that needed the file found it there.
                if let cached = row.cached { rows[index].cached = (rows[index].cached ?? true) && cached }
                for (device, cell) in row.cells {
                    guard rows[index].cells.updateValue(cell, forKey: device) == nil else {
                        throw MatrixMergeError("the cell of row \(index + 1) on \(device) is in two shards")
                    }
                }
            }
        }
        for (index, row) in rows.enumerated() {
            for device in first.devices where row.cells[device] == nil {
                throw MatrixMergeError("no shard has the cell of row \(index + 1) on \(device)")
            }
        }
        return MatrixAnswer(
            plan: first.plan, devices: first.devices, fromVersion: first.fromVersion, targetVersion: first.targetVersion,
            rows: rows, identity: first.identity, shard: nil)
    }
}

/// Why shards cannot be merged, in words that name the shard.
public struct MatrixMergeError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
