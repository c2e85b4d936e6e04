import MigrationCore

/// A work meter that keeps the counter a connection reports with, where a test reads the
/// connection's work.
final class CounterKeeper: WorkMeter {
    var counter: SQLiteWorkCounter?
    func counting(_ counter: SQLiteWorkCounter) { self.counter = counter }
    func sqliteWorked() {}
    func ownWorkStarted() {}
    func ownWorkEnded() {}
}
