/// Which size to try next: geometric steps up from a small size until one does not hold,
/// then bisection (on a log scale) until the largest size that held is within `precision`
/// (10% unless asked otherwise) below the smallest that did not. Decided from the sizes tried alone, so that it is the same
/// rule whatever a size cost to try.
///
/// The search narrows two boundaries in turn: where the migration stops completing in one
/// launch (`limit`), and, when beyond it the app still got there after kills
/// (`completed_after_kills`), where it stops getting there at all: under `per_step` a
/// killed launch keeps its finished steps, under `sqliteopenhelper` it keeps nothing, and
/// the second boundary is where that difference shows.
struct CapacitySearch {
    static let growth = 4
    /// docs/CONTRACT.md §8's 10%.
    static let defaultPrecision = 1.1

    let startRows: Int
    let maxRows: Int
    /// The boundary is narrowed until the sizes either side of it are this close (a ratio).
    let precision: Double
    private(set) var tried: [Int: Outcome] = [:]

    init(startRows: Int, maxRows: Int, precision: Double = defaultPrecision) {
        self.startRows = max(1, min(startRows, maxRows))
        self.maxRows = maxRows
        self.precision = precision
    }

    typealias Boundary = CapacityBoundary

    enum Decision: Equatable {
        case tryRows(Int)
        /// Every size up to `maxRows` held.
        case heldToMaxRows
        /// The smallest size tried did not hold.
        case brokeAtSmallest
        /// Narrowed to within `precision`.
        case narrowed
    }

    mutating func record(rows: Int, outcome: Outcome) { tried[rows] = outcome }

    /// The smallest size that did not hold, and the largest below it that did.
    func bracket(_ boundary: Boundary) -> (held: Int?, broke: Int?) {
        let broke = tried.filter { !boundary.holds($0.value) }.keys.min()
        let held = tried.filter { boundary.holds($0.value) && $0.key < (broke ?? Int.max) }.keys.max()
        return (held, broke)
    }

    func next(_ boundary: Boundary) -> Decision {
        let (held, broke) = bracket(boundary)
        guard let broke else {
            guard let held else { return .tryRows(startRows) }
            if held >= maxRows { return .heldToMaxRows }
            return .tryRows(min(maxRows, held * Self.growth))
        }
        guard let held else {
            return broke <= startRows ? .brokeAtSmallest : .tryRows(startRows)
        }
        if Double(broke) <= Double(held) * precision || broke - held <= 1 { return .narrowed }
        let middle = Int((Double(held) * Double(broke)).squareRoot().rounded())
        return .tryRows(min(broke - 1, max(held + 1, middle)))
    }

    /// The boundary to narrow now: the second only once the first is narrowed and the app
    /// still got there beyond it.
    func currentBoundary() -> Boundary {
        let first = bracket(.completes)
        guard next(.completes) == .narrowed || next(.completes) == .brokeAtSmallest, let broke = first.broke,
            tried[broke] == .completedAfterKills
        else { return .completes }
        return .reachesTarget
    }
}
