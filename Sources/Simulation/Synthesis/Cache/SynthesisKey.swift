import CSQLite
import MigrationCore

/// What names a synthesized file in the `SynthesisCache`: the SHA-256 of a canonical text
/// of everything that shapes its bytes (docs/synthesis.md, "The synthesis cache"). Two
/// requests with the same key make the same file byte for byte; any input that changes
/// the file changes the key.
///
/// - the synthesizer's own `formatVersion`;
/// - the engine the synthesis runs on: the linked SQLite's version, source id and compile
///   options (its default page size, auto_vacuum and journal mode among them);
/// - what of the plan replays on the empty file: the runner, foreign keys, the
///   application id, Room's identity hash, the fresh-install script when it stands at or
///   below the version, and each step 1..V by its version, id and definition hash (a step
///   after V, or the plan's name, changes nothing);
/// - the version, the rows per table, the seed;
/// - the `--like` sample's SHA-256 (its WAL mode and shapes come from those bytes).
///
/// A plan's own `PRAGMA page_size`, `auto_vacuum` or `journal_mode` is in its steps.
public struct SynthesisKey: Sendable, Equatable, CustomStringConvertible {
    /// 64 hex digits.
    public let hex: String

    /// Raised whenever the synthesizer would write other bytes for the same inputs (another
    /// value stream, another fill order, other pragmas while filling).
    public static let formatVersion = 1

    public init(
        plan: Plan, version: Int, rows: [String: Int], seed: UInt64, sampleSHA256: String?,
        engine: String = SynthesisKey.linkedEngine, format: Int = SynthesisKey.formatVersion
    ) {
        var text = "preflight-synthesis \(format)\nengine \(engine)\n"
        text += "runner \(plan.runner.rawValue)\nforeign_keys \(plan.foreignKeys)\n"
        text += "application_id \(plan.applicationID.map(String.init) ?? "none")\n"
        text += "room_identity_hash \(plan.roomIdentityHash ?? "none")\n"
        if let fresh = plan.freshInstall, fresh.version <= version {
            text += "fresh_install \(fresh.version) \(SHA256.hex(Array(fresh.sql.joined(separator: "\u{0}").utf8)))\n"
        }
        for step in plan.steps where step.version <= version {
            text += "step \(step.version) \(step.id ?? "-") \(step.definitionHash)\n"
        }
        text += "version \(version)\nseed \(seed)\n"
        for (table, count) in rows.sorted(by: { $0.key < $1.key }) {
            text += "rows \(SHA256.hex(Array(table.utf8))) \(count)\n"
        }
        text += "like \(sampleSHA256 ?? "none")\n"
        hex = SHA256.hex(Array(text.utf8))
    }

    public var description: String { hex }

    /// The SQLite this process links, which its workers link too: version, source id and
    /// every compile option.
    public static let linkedEngine: String = {
        var options: [String] = []
        var index: Int32 = 0
        while let option = sqlite3_compileoption_get(index) {
            options.append(String(cString: option))
            index += 1
        }
        return "sqlite \(String(cString: sqlite3_libversion())) \(String(cString: sqlite3_sourceid())) [\(options.joined(separator: " "))]"
    }()
}
