/// Estimates, before a step touches anything, how much the database's files (main,
/// journal, WAL, -shm, temp files) will grow at the step's worst instant: the free space
/// it needs (docs/CONTRACT.md §2 `space_check`). An upper bound, never below what the space VFS
/// measures, and not far above it.
///
/// The step is described in pages, transaction by transaction (SQLStepEstimate,
/// RebuildEstimate, BackfillEstimate): the existing pages it changes, the pages it adds,
/// frees and sorts, sized from dbstat and from one query over the rows it writes
/// (TableMeasure). PagerModel turns them into file growth as SQLite documents it: a
/// rollback journal holds the original of each page a transaction changes, a WAL a frame
/// per page written, a statement journal and a sorter are temp files. Nothing is written:
/// the queries are reads, and new schemas are tried in scratch in-memory databases.
///
/// Measured against the space VFS (`preflight run`, estimate / measured peak growth of
/// the step; notes table of 20,000 rows of ~95 bytes unless said; rollback journal, WAL,
/// and rollback journal without secure_delete, as the ios-launch profile opens it):
///
///     CREATE INDEX, 20,000 text keys             1.13  1.14  1.13
///     CREATE INDEX, 100,000 text keys (sorter)   1.08  1.10  1.08
///     UPDATE of every row, same size             1.01  1.01  1.01
///     UPDATE of every row, 22 bytes longer       1.06  1.06  1.06
///     INSERT ... SELECT copy (+ CREATE TABLE)    1.25  1.25  1.25
///     ALTER TABLE DROP COLUMN                    1.01  1.01  1.01
///     DELETE of half the rows                    1.01  1.01  1.01
///     DELETE of every row                        1.00  1.00  1.00
///     DROP TABLE                                 1.00  1.00  1.00
///     12-step rebuild by hand                    1.11  1.09  1.22
///     ADD COLUMN + CREATE INDEX on it            1.08  1.08  1.08
///     rebuild                                    1.05  1.07  1.06
///     rebuild, 100,000 rows                      1.06  1.01  1.07
///     rebuild with a 33% filter                  1.12  1.15  1.14
///     backfill, batches of 1,000                 1.22  1.17  1.22
///     backfill, batches of 50                    1.25  1.00  1.25
///
/// Over every step with growth of the notes plan (10,000 and 100,000 notes) and of the
/// six real-app chains of the corpus (seeded, both journal modes): never below; median
/// 1.06 and 1.00, at most 2.41 (a WAL step after one that left a large WAL, which the
/// estimate assumes it appends to) and 2.00 (a step of a few pages). The slack comes from
/// the fill factors (TableMeasure.Fill), the sample's error margins, record sizes taken at
/// their bounds and the tables an INSERT reads; exact figures (1.00) are journal or WAL
/// copies of b-trees whose pages are all counted.
///
/// Where a statement cannot be taken apart, a documented conservative bound stands in
/// (SQLStepEstimate); what is left out, and can make the estimate short:
/// - foreign-key actions of a connection with `foreign_keys` on;
/// - an INSERT whose SELECT yields more bytes than the tables it reads (a join that
///   multiplies rows, a recursive CTE, randomblob);
/// - a large table is sampled (4,096 rows): sizes that change sharply along the rowids
///   between the sampled rows are estimated from the sample.
struct SpaceEstimator {
    let connection: Connection

    init(connection: Connection) {
        self.connection = connection
    }

    /// The estimated peak growth in bytes, or nil when the step's table does not exist
    /// (the step will fail on its own, with a better message than the estimate could
    /// give), the file cannot be read, or the step is a chunked one that an earlier launch
    /// began. Best effort: it never fails and never changes the step.
    func estimate(_ step: Step) -> Int64? {
        // A chunked step resumed by a later launch was estimated (and let through) by the
        // launch that began it; its scans would only eat into this launch's watchdog budget.
        let files: PagerGeometry
        do {
            if try ProgressStore(connection: connection).pending()?.step == step.version { return nil }
            files = try PagerGeometry(connection)
        } catch {
            return nil
        }
        let measure = TableMeasure(connection: connection, files: files)
        var model = PagerModel(files: files)
        switch step.action {
        case .sql(let statements):
            var estimate = SQLStepEstimate(measure: measure)
            estimate.run(statements, in: &model)
        case .rebuild(let rebuild):
            guard RebuildEstimate(measure: measure, rebuild: rebuild).run(in: &model) else { return nil }
        case .backfill(let backfill):
            guard BackfillEstimate(measure: measure, backfill: backfill).run(in: &model) else { return nil }
        }
        return model.peakBytes
    }
}
