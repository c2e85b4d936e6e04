/// Why `preflight calibrate` could not measure this machine: its scratch files, the page
/// cache it must empty between pieces, or the rehearsal that times a launch's own cost.
/// (SQLite's own failures in the workload stay `SQLiteError`s.)
public struct CalibrationError: Error, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
