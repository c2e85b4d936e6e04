/// Why an app's migration files could not become a plan: names the file (or folder) and
/// the problem, and says what to do where there is something to do.
public struct PlanImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Machine-readable: always `plan_import`.
    public let code = "plan_import"
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
