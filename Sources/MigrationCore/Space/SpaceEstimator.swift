/// Estimates, before a step touches anything, how much the database's files (main,
/// journal, WAL, -shm, temp files) will grow at the step's worst instant: the free space
/// it needs (CONTRACT §2 `space_check`).
///
/// It measures what the step will write (dbstat for the b-trees it touches, one query over
/// the rows it writes, sampled for large tables: SpaceProbe) and plays the step's
/// transactions through a model of SQLite's pager (SpaceSimulation). Nothing is written:
/// the queries are reads, the size functions are registered for the estimate only, and
/// new table definitions are tried in scratch in-memory databases.
///
/// Measured against the space VFS (`preflight run`, estimate / measured peak growth of the
/// step; table of 100,000 rows of ~95 bytes unless said; rollback journal, WAL):
///
///     CREATE INDEX, 10,000 text keys            1.07   1.02 *
///     CREATE INDEX, 100,000 text keys (sorter)  1.30   1.10 *
///     UPDATE of every row, same size            1.00   1.00
///     UPDATE of every row, 2 bytes longer       1.08   1.14
///     INSERT ... SELECT copy (+ CREATE TABLE)   1.08   1.08
///     ALTER TABLE DROP COLUMN                   1.00   1.00
///     12-step rebuild by hand, 2 indexes        1.00   1.06
///     ADD COLUMN + CREATE INDEX on it           1.33   1.06 *
///     rebuild, 2 indexes                        1.07   1.20
///     rebuild, no index                         1.10   1.07
///     rebuild with a 50% filter                 1.12   1.20
///     backfill (a new ~27-byte column)          1.33   1.15 *
///     backfill of an indexed column             1.43   1.27 *
///
/// \* WAL: against the run's peak growth. The pages a WAL transaction appends reach the
/// main file only at a checkpoint, at a later commit or when the database is closed,
/// while the WAL still holds them; the estimate counts that growth in the step that
/// wrote the pages, so it is up to 2.1x the step's own window (10,000 keys) when the
/// checkpoint comes after the step.
///
/// No safety margin is added on top; the slack in the figures comes from the fill factors
/// (PageFill), the sample's error margins, the sorter's per-record allowance and the WAL
/// model's assumption that the first transaction appends after every frame of an
/// existing WAL. The tight cases (1.00) are exact journal or WAL copies of a table whose
/// pages are all counted, interior pages included.
///
/// Known gaps, where the estimate can be short:
/// - statements of a `sql` step that cannot be prepared even against the step's schema
///   as it will be (StepSchema) are left out;
/// - what triggers and foreign-key actions write is not counted;
/// - a large table is sampled: data whose sizes change sharply along the rowid range
///   between the 64 sampled runs is estimated from the runs.
struct SpaceEstimator {
    let connection: Connection

    /// The estimated peak growth in bytes, or nil when the step's table does not exist
    /// (the step will fail on its own), its data cannot be read, or the step is a chunked
    /// one that an earlier launch began.
    func estimate(_ step: Step) throws(SQLiteError) -> Int64? {
        do {
            // A chunked step resumed by a later launch was estimated (and let through) by
            // the launch that began it; its scans would only eat into this launch's
            // watchdog budget.
            if let pending = try ProgressStore(connection: connection).pending(), pending.step == step.version {
                return nil
            }
            let geometry = try DatabaseGeometry(connection)
            let probe = SpaceProbe(connection: connection, geometry: geometry)
            var simulation = SpaceSimulation(geometry: geometry)
            switch step.action {
            case .sql(let statements):
                _ = SQLStepLoad(probe: probe).run(statements, in: &simulation)
            case .rebuild(let rebuild):
                guard try RebuildLoad(probe: probe, rebuild: rebuild).run(in: &simulation) else { return nil }
            case .backfill(let backfill):
                guard try BackfillLoad(probe: probe, backfill: backfill).run(in: &simulation) else { return nil }
            }
            return simulation.peakBytes
        } catch {
            // Whatever keeps the estimate from reading the data will fail the step itself,
            // with a better message than the estimate could give.
            return nil
        }
    }
}
