/// One way a power cut at a crash point can leave the disk: which of the operations
/// pending there reached the medium, whole, torn or as garbage. Its `id` names it, so
/// that the state can be rebuilt alone from the run's log (`POINT:ID`); the operations are
/// numbered from 1 in the order they were made.
///
/// The states, after test6.c, ALICE and LazyFS (docs/FIDELITY.md "Power loss"):
///
///     all-lost          nothing pending reached the disk
///     none-lost         everything did: what a kill leaves
///     prefix-K          the first K operations did, the rest not
///     lost-FILE         every pending operation but those of FILE (main, journal, wal):
///                       the drive wrote the files out of order
///     only-FILE         those of FILE alone
///     omit-K            all but operation K (a deletion omitted: the file comes back;
///                       a creation omitted: the file vanishes, with its writes)
///     torn512-K         all, but write K reached the disk only to the end of its first
///     torn4096-K          512- or 4096-byte sector
///     trash512-K        all, but every sector write K touched holds garbage (neighbours
///     trash4096-K         included): only where the storage lacks powersafe overwrite
enum CrashState: Hashable, Sendable {
    case allLost
    case noneLost
    case prefix(Int)
    case fileLost(DatabaseFile)
    case fileOnly(DatabaseFile)
    case omitted(Int)
    case torn(Int, sector: Int)
    case trashed(Int, sector: Int)

    /// The sector sizes torn writes are rehearsed at.
    static let sectorSizes = [512, 4096]
    /// Beyond this many pending writes, a seeded sample of them is omitted or torn.
    static let sampledWrites = 8
    /// Prefixes at most, spread evenly.
    static let prefixes = 6
    /// Torn or trashed writes at most per point, a seeded sample.
    static let tornWrites = 2

    var id: String {
        switch self {
        case .allLost: return "all-lost"
        case .noneLost: return "none-lost"
        case .prefix(let count): return "prefix-\(count)"
        case .fileLost(let file): return "lost-\(file.name)"
        case .fileOnly(let file): return "only-\(file.name)"
        case .omitted(let number): return "omit-\(number)"
        case .torn(let number, let sector): return "torn\(sector)-\(number)"
        case .trashed(let number, let sector): return "trash\(sector)-\(number)"
        }
    }

    init?(id: String) {
        if id == "all-lost" { self = .allLost; return }
        if id == "none-lost" { self = .noneLost; return }
        guard let dash = id.lastIndex(of: "-") else { return nil }
        let (head, tail) = (String(id[..<dash]), String(id[id.index(after: dash)...]))
        if head == "lost", let file = DatabaseFile(name: tail) { self = .fileLost(file); return }
        if head == "only", let file = DatabaseFile(name: tail) { self = .fileOnly(file); return }
        guard let number = Int(tail), number >= 1 else { return nil }
        switch head {
        case "prefix": self = .prefix(number)
        case "omit": self = .omitted(number)
        default:
            for sector in Self.sectorSizes {
                if head == "torn\(sector)" { self = .torn(number, sector: sector); return }
                if head == "trash\(sector)" { self = .trashed(number, sector: sector); return }
            }
            return nil
        }
    }

    /// What becomes of pending operation `number` (from 1) of `count` in this state.
    enum Fate { case kept, lost, torn(sector: Int), trashed(sector: Int) }

    func fate(of number: Int, file: DatabaseFile) -> Fate {
        switch self {
        case .allLost: return .lost
        case .noneLost: return .kept
        case .prefix(let count): return number <= count ? .kept : .lost
        case .fileLost(let lost): return file == lost ? .lost : .kept
        case .fileOnly(let only): return file == only ? .kept : .lost
        case .omitted(let omitted): return number == omitted ? .lost : .kept
        case .torn(let torn, let sector): return number == torn ? .torn(sector: sector) : .kept
        case .trashed(let trashed, let sector): return number == trashed ? .trashed(sector: sector) : .kept
        }
    }

    /// The states a power cut at `point` can leave, bounded: every kind of the table
    /// above, with a seeded sample (the point's ordinal seeds it) where many operations are
    /// pending. A state that the pending operations cannot tell from another is left out.
    static func states(at point: DiskHistory.CrashPoint, durability: Durability) -> [CrashState] {
        let pending = point.pending.map(\.operation)
        guard !pending.isEmpty else { return [.noneLost] }
        var states: [CrashState] = [.allLost, .noneLost]
        if pending.count > 1 {
            let count = min(prefixes, pending.count - 1)
            states += Set((1...count).map { 1 + ($0 - 1) * (pending.count - 2) / max(1, count - 1) }).sorted().map { .prefix($0) }
        }
        let files = Set(pending.map(\.file)).sorted()
        if files.count > 1 { states += files.flatMap { [.fileLost($0), .fileOnly($0)] } }
        let numbered = Array(zip(1..., pending))
        // A creation or deletion omitted is a file that vanishes or comes back: always tried.
        states += numbered.filter { $0.1.changesDirectory }.map { .omitted($0.0) }
        let writes = numbered.filter { if case .write = $0.1.kind { return true } else { return false } }
        states += sample(writes.map(\.0), count: sampledWrites, seed: point.ordinal).map { .omitted($0) }
        if !durability.powersafeOverwrite {
            for number in sample(writes.map(\.0), count: tornWrites, seed: point.ordinal &* 31) {
                guard case .write(let offset, let bytes) = pending[number - 1].kind else { continue }
                for sector in sectorSizes {
                    // Torn only if the write goes past the end of its first sector.
                    if offset / sector != (offset + bytes.count - 1) / sector { states.append(.torn(number, sector: sector)) }
                    states.append(.trashed(number, sector: sector))
                }
            }
        }
        return states
    }

    /// `count` of `numbers`, the last always among them (the write in flight when the power
    /// went), the others drawn with `seed`; all of them when there are no more.
    private static func sample(_ numbers: [Int], count: Int, seed: Int) -> [Int] {
        guard numbers.count > count, let last = numbers.last else { return numbers }
        var chosen: Set<Int> = [last]
        var draw = UInt64(truncatingIfNeeded: seed)
        while chosen.count < count {
            draw = ValueExpression.splitMix(draw)
            chosen.insert(numbers[Int(draw % UInt64(numbers.count))])
        }
        return chosen.sorted()
    }
}
