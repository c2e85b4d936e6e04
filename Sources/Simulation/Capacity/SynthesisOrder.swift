import MigrationCore

/// What the capacity search hands a `sample` or `synthesize` worker, in the search
/// directory's `synthesis.json`: the plan and the sample are untrusted, so the SQL that
/// reads the sample and replays the plan runs in a sandboxed worker, never in the process
/// that asked (the server).
struct SynthesisOrder: Codable, Sendable {
    var plan: String
    var version: Int
    var rows: [String: Int]
    var seed: UInt64
    /// The sample database, when there is one (inside the search directory).
    var sample: String?
    /// Where the `synthesize` worker writes the database (inside the search directory).
    var out: String
    /// The rows the database at `out` holds already, made with the same seed: it is grown
    /// by appending where that makes the same file (`Synthesizer.grow`), else made anew.
    var grownFrom: [String: Int]? = nil

    static func path(in directory: JobDirectory) -> String { directory.path + "/synthesis.json" }

    enum CodingKeys: String, CodingKey {
        case plan, version, rows, seed, sample, out, grownFrom = "grown_from"
    }
}

/// The one line a `sample` or `synthesize` worker prints.
struct SynthesisLine: Codable, Sendable {
    /// `sample`: the sample's version and its tables' row counts.
    var userVersion: Int?
    var tableRows: [String: Int]?
    /// `synthesize`: the rows written per table, the file's size and its journal mode.
    var tables: [String: Int]?
    var bytes: Int64?
    var journalMode: String?
    /// Either task: why it could not.
    var errorCode: String?
    var errorMessage: String?

    enum CodingKeys: String, CodingKey {
        case userVersion = "user_version", tableRows = "table_rows", tables, bytes, journalMode = "journal_mode"
        case errorCode = "error_code", errorMessage = "error_message"
    }
}
