import MigrationCore

/// Where a database durably stands, as the launch loop compares it: the version as the
/// plan's runner keeps it (under GRDB the position of the last applied step) and the
/// cursor of a chunked step in progress, whatever part of the step it belongs to (a
/// rebuild's copy or its purge after the version bump, a backfill). A launch killed with
/// the file at the point it opened it at made no durable progress (docs/CONTRACT.md §3
/// `crash_loop`: same version, same cursor).
struct DurablePoint: Codable, Sendable, Equatable {
    var version: Int
    /// Under GRDB, the identifier of the step at `version`.
    var id: String?
    /// The chunked step with work in progress, the part of it (`copy`, `purge`,
    /// `backfill`), its batches and its cursor.
    var pendingStep: Int?
    var phase: String?
    var batches: Int?
    var cursor: [SQLiteValue]?

    /// Where a launch found the file, from its `opened` event.
    init?(opened event: MigrationEvent) {
        guard event.event == .opened, let version = event.userVersion else { return nil }
        self.version = version
        id = event.id
        pendingStep = event.version
        phase = event.phase
        batches = event.batches
        cursor = event.cursor
    }

    /// Reads where the file open on `connection` stands, as a launch's `opened` event says it.
    init(_ connection: Connection, plan: Plan) throws(SQLiteError) {
        let standing = try Standing.read(connection, plan: plan)
        version = standing.version
        id = standing.id
        let pending = try ProgressStore(connection: connection).pending()
        pendingStep = pending?.step
        phase = pending?.phase
        batches = pending?.batches
        cursor = pending?.cursor
    }

    enum CodingKeys: String, CodingKey {
        case version, id, pendingStep = "pending_step", phase, batches, cursor
    }
}
