/// Why a plan was rejected, naming the step (when there is one) and the problem.
public struct PlanError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Machine-readable: always `invalid_plan`, so callers can map it to exit code 2 / HTTP 400.
    public let code = "invalid_plan"
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
