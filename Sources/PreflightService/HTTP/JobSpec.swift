import Simulation
import MigrationCore

/// What a migration request will run, as far as its headers tell: the options are
/// resolved once, as soon as all of them are known.
enum JobSpec: Sendable {
    /// A raw body: `plan=NAME` and the query's options say everything, so they are
    /// resolved before the body is read (a bad option costs the client no upload).
    case resolved(plan: Plan, options: RunOptions, device: DeviceProfile)
    /// `multipart/form-data`: its `plan` part may name the plan and its `options` part
    /// overrides the query, so the options are resolved once the body is in.
    case fromParts(registered: (name: String, plan: Plan)?, queryOptions: [String: String])
}
