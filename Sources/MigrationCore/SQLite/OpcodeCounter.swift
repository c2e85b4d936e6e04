import CSQLite
import Foundation

/// The opcodes of SQLite's virtual machine a connection ran, by what they do: the kinds of
/// instruction whose costs differ most (a row rewrite decodes, rebuilds and writes records;
/// a scan mostly steps a cursor). Only a device engine counts them (scripts/build-engines
/// builds `scripts/engine-opcode-counter.c` into each); `SQLiteWork.opcodes` is nil on
/// Debian's SQLite. Their sum is the connection's `vmSteps` once its statements settle,
/// plus the statements SQLite runs of its own (a CREATE's update of the schema table).
public struct OpcodeWork: Sendable, Equatable {
    /// Decoding and building records: `Column`, `MakeRecord`, `RowData`, `ResultRow`, ...
    public var record: Int64 = 0
    /// Writing b-trees: `Insert`, `IdxInsert`, `Delete`, `IdxDelete`, `NewRowid`, sorter inserts.
    public var write: Int64 = 0
    /// Moving and positioning cursors: seeks, `Rewind`, `Next`, `Prev`, `Found`, `IdxGE`, ...
    public var cursor: Int64 = 0
    /// Everything else: registers, arithmetic, comparisons, jumps, function calls.
    public var other: Int64 = 0

    public init(record: Int64 = 0, write: Int64 = 0, cursor: Int64 = 0, other: Int64 = 0) {
        self.record = record
        self.write = write
        self.cursor = cursor
        self.other = other
    }

    public var total: Int64 { record + write + cursor + other }

    public static func + (left: OpcodeWork, right: OpcodeWork) -> OpcodeWork {
        OpcodeWork(
            record: left.record + right.record, write: left.write + right.write, cursor: left.cursor + right.cursor,
            other: left.other + right.other)
    }

    public static func - (left: OpcodeWork, right: OpcodeWork) -> OpcodeWork {
        OpcodeWork(
            record: left.record - right.record, write: left.write - right.write, cursor: left.cursor - right.cursor,
            other: left.other - right.other)
    }

    /// Which class each opcode belongs to, by its name (opcode numbers change between versions).
    static func kind(ofOpcode name: String) -> WritableKeyPath<OpcodeWork, Int64> {
        switch name {
        case "Column", "MakeRecord", "RowData", "ResultRow", "Affinity", "TypeCheck", "Offset", "IdxRowid", "Rowid":
            return \.record
        case "Insert", "IdxInsert", "Delete", "IdxDelete", "NewRowid", "SorterInsert", "RowCell", "Clear",
            "ResetSorter", "CreateBtree", "Destroy":
            return \.write
        case "SeekRowid", "NotExists", "SeekGE", "SeekGT", "SeekLE", "SeekLT", "SeekEnd", "SeekScan", "SeekHit",
            "IdxGE", "IdxGT", "IdxLE", "IdxLT", "Found", "NotFound", "NoConflict", "IfNoHope", "Rewind", "Last",
            "Next", "Prev", "SorterSort", "Sort", "SorterNext", "SorterData", "DeferredSeek", "FinishSeek",
            "NullRow":
            return \.cursor
        default:
            return \.other
        }
    }
}

/// The engine's opcode counter on one connection: 256 counters the engine adds to as the
/// connection's statements run. Nil where the SQLite has no counter.
final class OpcodeCounter {
    private typealias Count = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt64>?) -> Int32
    private typealias Name = @convention(c) (Int32) -> UnsafePointer<CChar>?
    private typealias Hook = (count: Count, classes: [WritableKeyPath<OpcodeWork, Int64>])

    /// The engine's two entry points in `library` (a `dlopen` handle; nil for the SQLite this
    /// process loaded, a worker's engine), and each opcode's class by its name in that engine.
    private static func hook(in library: UnsafeMutableRawPointer?) -> Hook? {
        guard let count = dlsym(library, "preflight_count_opcodes"), let name = dlsym(library, "preflight_opcode_name")
        else { return nil }
        let opcodeName = unsafeBitCast(name, to: Name.self)
        let classes = (0..<256).map { opcode in
            opcodeName(Int32(opcode)).map { OpcodeWork.kind(ofOpcode: String(cString: $0)) } ?? \OpcodeWork.other
        }
        return (unsafeBitCast(count, to: Count.self), classes)
    }

    /// The process's SQLite's, looked up once (RTLD_DEFAULT is the null handle); never
    /// changed after, so reading it from any thread is safe.
    nonisolated(unsafe) private static let processHook = hook(in: nil)

    private var handle: OpaquePointer?
    private let counts: UnsafeMutablePointer<UInt64>
    private let classes: [WritableKeyPath<OpcodeWork, Int64>]
    private let count: Count

    /// Counts `handle`'s opcodes, a connection of the SQLite in `library` (nil: the SQLite
    /// this process loaded).
    init?(handle: OpaquePointer, library: UnsafeMutableRawPointer? = nil) {
        guard let hook = library.map(Self.hook(in:)) ?? Self.processHook else { return nil }
        let counts = UnsafeMutablePointer<UInt64>.allocate(capacity: 256)
        counts.initialize(repeating: 0, count: 256)
        guard hook.count(handle, counts) == SQLITE_OK else {
            counts.deallocate()
            return nil
        }
        self.counts = counts
        self.handle = handle
        classes = hook.classes
        count = hook.count
    }

    deinit {
        stop()
        counts.deallocate()
    }

    /// The opcodes run so far, by class.
    var work: OpcodeWork {
        var work = OpcodeWork()
        for opcode in 0..<256 where counts[opcode] != 0 {
            work[keyPath: classes[opcode]] += Int64(counts[opcode])
        }
        return work
    }

    /// Stops counting (before the connection closes: the engine must not count into these
    /// counters for another connection); what was counted stays readable.
    func stop() {
        guard let handle else { return }
        _ = count(handle, nil)
        self.handle = nil
    }
}
