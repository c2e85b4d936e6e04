extension DiskHistory.CrashPoint {
    /// The disk `state` leaves at this point: the durable files, and each pending operation
    /// as the state decides.
    func disk(in state: CrashState, log: OperationLog) -> DiskImage {
        var image = durable
        for (index, entry) in pending.enumerated() {
            let operation = entry.operation
            switch state.fate(of: index + 1, file: operation.file) {
            case .kept: image.apply(operation, from: log)
            case .lost: continue
            case .torn(let sector):
                guard case .write(let offset, let bytes) = operation.kind else { image.apply(operation, from: log); continue }
                let end = min(offset + bytes.count, (offset / sector + 1) * sector)
                image.change(operation.file) { $0.overwrite(at: offset, with: log.bytes(bytes.lowerBound..<(bytes.lowerBound + end - offset))) }
            case .trashed(let sector):
                guard case .write(let offset, let bytes) = operation.kind else { image.apply(operation, from: log); continue }
                // Whole sectors, neighbours included, as storage without powersafe overwrite may
                // leave them; seeded by the point and the write, so that a replay sees the same bytes.
                let first = offset / sector * sector
                let end = offset + bytes.count
                var draw = UInt64(truncatingIfNeeded: ordinal &* 1_000_003 &+ index)
                image.change(operation.file) { content in
                    let last = max(end, min(content.count, (end + sector - 1) / sector * sector))
                    var garbage: [UInt8] = []
                    garbage.reserveCapacity(last - first)
                    while garbage.count < last - first {
                        draw = ValueExpression.splitMix(draw)
                        withUnsafeBytes(of: draw) { garbage += $0.prefix(last - first - garbage.count) }
                    }
                    content.overwrite(at: first, with: garbage)
                }
            }
        }
        return image
    }
}
