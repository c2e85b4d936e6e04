import MigrationCore

extension MigrationEvent {
    /// The version this event says is committed, for the operation log's marks: where the
    /// launch found the file (`opened`), a step that committed with its version, or the
    /// version a whole-path or autocommitting runner wrote at its end. A crash state that
    /// opens below the last mark took a committed step back.
    func committedVersion(under runner: Runner) -> Int? {
        switch event {
        case .opened, .versionCommitted: return userVersion
        case .stepFinished: return runner.commitsEachStep ? version : nil
        default: return nil
        }
    }
}
