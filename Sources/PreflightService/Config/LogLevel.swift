/// How much the server writes on stderr (`log_level`): `info` is a line per request and
/// the start-up and shutdown lines; `debug` adds each job's progress; `error` only what
/// went wrong.
public enum LogLevel: String, Sendable, CaseIterable, Comparable {
    case debug, info, error

    public static func < (left: LogLevel, right: LogLevel) -> Bool {
        (allCases.firstIndex(of: left) ?? 0) < (allCases.firstIndex(of: right) ?? 0)
    }
}
