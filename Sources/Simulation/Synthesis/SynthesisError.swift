import MigrationCore

/// Why a synthetic database could not be made: a code for programs, a message for people.
public struct SynthesisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `invalid_request` (a version, table or row count that cannot be asked for),
    /// `invalid_sample` (the `--like` file cannot be read), `plan_failed` (steps 1..V do
    /// not run on an empty file), `unsatisfiable` (a constraint the values cannot meet),
    /// `sqlite_error` (SQLite failed while filling), `io_error` (the file cannot be
    /// created or moved into place).
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// Bad input rather than a failure while filling: the command line's exit status 2.
    public var isBadInput: Bool { ["invalid_request", "invalid_sample", "plan_failed"].contains(code) }

    public var description: String { message }

    static func invalidRequest(_ message: String) -> SynthesisError { SynthesisError(code: "invalid_request", message: message) }
    static func unsatisfiable(_ message: String) -> SynthesisError { SynthesisError(code: "unsatisfiable", message: message) }

    static func sqlite(_ error: SQLiteError, while doing: String) -> SynthesisError {
        SynthesisError(code: "sqlite_error", message: "SQLite failed while \(doing): \(error)")
    }
}
