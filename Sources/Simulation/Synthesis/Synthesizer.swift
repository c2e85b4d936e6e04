import CSQLite
import Foundation
import MigrationCore

/// Makes a database at a plan's version V full of made-up rows (docs/CONTRACT.md §8): the schema
/// as the plan's framework leaves a fresh install of version V (the `Migrator` on an empty
/// file, with V as its target: the steps from the base version to V, and under Room V's
/// identity hash in `room_master_table`; so plan SQL is confined as in every run), then each
/// named table filled inside SQLite, parents first.
///
///     let summary = try Synthesizer.synthesize(
///         SynthesisRequest(plan: plan, version: 3, rows: ["notes": 100_000], like: nil, seed: 1), to: "big.db")
public enum Synthesizer {
    /// How many times at most the rows a CHECK turned down are made again, each time from
    /// another start of the stream. A check that half the values meet needs about log2(N)
    /// attempts; one that an attempt and the next meet for no row is called unmeetable.
    static let maxAttempts = 64

    public static func synthesize(_ request: SynthesisRequest, to path: String) throws(SynthesisError) -> SynthesisSummary {
        let plan = request.plan
        guard plan.steps.contains(where: { $0.version == request.version }) else {
            throw .invalidRequest("version \(request.version) is not one of the plan's versions (\(plan.baseVersion)...\(plan.newestVersion))")
        }
        for (table, count) in request.rows where count < 0 {
            throw .invalidRequest("the row count for \(table) is \(count); give 0 or more")
        }
        // Built beside the target and renamed at the end: a failure leaves no half-made file.
        let building = DatabaseFiles(path + ".synthesizing")
        building.remove()
        guard FileManager.default.createFile(atPath: building.path, contents: Data()) else {
            throw SynthesisError(code: "io_error", message: "cannot create \(building.path)")
        }
        do throws(SynthesisError) {
            try buildSchema(request, at: building.path)
            let (tables, journalMode) = try fill(request, at: building.path)
            DatabaseFiles(path).remove()
            do {
                try FileManager.default.moveItem(atPath: building.path, toPath: path)
            } catch {
                throw SynthesisError(code: "io_error", message: "cannot move the new database to \(path): \(error.localizedDescription)")
            }
            return SynthesisSummary(tables: tables, bytes: fileSize(path) ?? 0, journalMode: journalMode)
        } catch {
            building.remove()
            throw error
        }
    }

    /// The plan's runner on the empty file with V as its target, as a fresh install of that
    /// version is made.
    private static func buildSchema(_ request: SynthesisRequest, at path: String) throws(SynthesisError) {
        // Unsynced commits: the file is ours until it is finished, and a crash loses nothing.
        let settings = MigrationSettings(
            target: request.version, spaceCheck: .off, connection: ConnectionSettings(synchronous: "OFF"))
        let ending = Migrator(plan: request.plan, settings: settings).migrate(databaseAt: path) { _ in }
        if case .stopped(_, let failure) = ending {
            let step = failure.step.map { "step \($0): " } ?? ""
            throw SynthesisError(
                code: "plan_failed", message: "the plan's steps \(request.plan.baseVersion)...\(request.version) do not run on an empty database: \(step)\(failure.message)")
        }
    }

    /// Fills the tables; answers the rows per table and the journal mode left.
    private static func fill(_ request: SynthesisRequest, at path: String) throws(SynthesisError) -> ([String: Int], String) {
        let (connection, schema) = try openForFilling(path)
        let counts = try rowCounts(request, schema)
        let fills = try tableFills(request, schema, counts: counts, connection)
        let pool = textPool(fills)
        for table in parentsFirst(schema) {
            guard let tableFill = fills[table.name.lowercased()], tableFill.rows > 0 else { continue }
            try run(tableFill, fills: fills, counts: counts, seed: request.seed, pool: pool, connection)
        }
        return try finish(request, schema, connection).get()
    }

    /// The file opened to be filled, and its schema.
    static func openForFilling(_ path: String) throws(SynthesisError) -> (Connection, SchemaShape) {
        do {
            let connection = try Connection(path: path)
            // While it is built the file is ours: no durable journal and no syncs (defensive
            // mode refuses journal_mode=OFF; MEMORY journals only the few pages that existed).
            // Foreign keys are made to hold by construction and checked once at the end.
            try connection.execute(
                "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF; PRAGMA cache_size = -65536")
            try PoolText.define(on: connection)
            return (connection, try SchemaShape.read(connection))
        } catch {
            throw .sqlite(error, while: "opening the new database")
        }
    }

    /// The rows asked per table, by lowercased name; an error for a table the schema lacks.
    static func rowCounts(_ request: SynthesisRequest, _ schema: SchemaShape) throws(SynthesisError) -> [String: Int] {
        var counts: [String: Int] = [:]
        for (name, count) in request.rows {
            guard let table = schema.table(name) else {
                throw .invalidRequest(
                    "the schema at version \(request.version) has no table \"\(name)\"; its tables: \(schema.tables.map(\.name).joined(separator: ", "))")
            }
            counts[table.name.lowercased()] = count
        }
        return counts
    }

    /// How each table is filled to `counts`, by lowercased name. `made`: the rows a synthesis
    /// put in each table already, which are not the plan's own.
    static func tableFills(
        _ request: SynthesisRequest, _ schema: SchemaShape, counts: [String: Int], made: [String: Int] = [:],
        _ connection: Connection
    ) throws(SynthesisError) -> [String: TableFill] {
        var fills: [String: TableFill] = [:]
        for (position, table) in schema.tables.enumerated() {
            let existing: Int64
            do {
                existing = try connection.integer(
                    "SELECT \(table.rowidName.map { "coalesce(max(\(SQLText.quote($0))), 0)" } ?? "count(*)") FROM \(SQLText.quote(table.name))")
            } catch {
                throw .sqlite(error, while: "reading \(table.name)")
            }
            fills[table.name.lowercased()] = try TableFill(
                table: table, rows: counts[table.name.lowercased()] ?? 0, counts: counts, sample: request.like,
                salt: position + 1, existingRows: existing - Int64(made[table.name.lowercased()] ?? 0))
        }
        return fills
    }

    /// One pool for every statement: a child's foreign key may cut its parent's key text.
    static func textPool(_ fills: [String: TableFill]) -> SQLiteValue {
        let length = ValueExpression.poolWindow + min(fills.values.map(longestValue).max() ?? 1, ValueExpression.maxLength)
        return .blob(ValueExpression.pool(length: length))
    }

    /// The last check, the journal mode, the counts.
    static func finish(
        _ request: SynthesisRequest, _ schema: SchemaShape, _ connection: Connection
    ) -> Result<([String: Int], String), SynthesisError> {
        do {
            let violations = try connection.integer("SELECT count(*) FROM pragma_foreign_key_check")
            guard violations == 0 else {
                return .failure(.unsatisfiable(
                    "\(violations) rows break foreign keys after the fill (PRAGMA foreign_key_check); this is a bug in Preflight's synthesizer"))
            }
            // Left as the database it imitates: a WAL sample's mode, else the rollback journal
            // that the plan's fresh install has (SQLite's default, DELETE).
            let journalMode = request.like?.isWAL == true ? "wal" : "delete"
            _ = try connection.scalar("PRAGMA journal_mode = \(journalMode.uppercased())")
            var tables: [String: Int] = [:]
            for table in schema.tables {
                tables[table.name] = Int(try connection.integer("SELECT count(*) FROM \(SQLText.quote(table.name))"))
            }
            return .success((tables, journalMode))
        } catch {
            return .failure(.sqlite(error, while: "finishing the database"))
        }
    }

    /// The tables with every parent before its children (foreign keys between tables
    /// that refer to each other in a ring keep creation order).
    static func parentsFirst(_ schema: SchemaShape) -> [SchemaShape.Table] {
        var placed: [String] = []
        var remaining = schema.tables
        while !remaining.isEmpty {
            let ready = remaining.firstIndex { table in
                table.foreignKeys.allSatisfy { key in
                    key.parent.caseInsensitiveCompare(table.name) == .orderedSame || placed.contains(key.parent.lowercased())
                        || schema.table(key.parent) == nil
                }
            } ?? 0
            placed.append(remaining[ready].name.lowercased())
            remaining.remove(at: ready)
        }
        return placed.compactMap { schema.table($0) }
    }

    /// One table's rows in one transaction: the whole counter first, then the rows its
    /// CHECKs turned down again from other starts of the stream. `after`: the rows the
    /// table holds already (a grown file), the counter starting at the next.
    static func run(
        _ fill: TableFill, fills: [String: TableFill], counts: [String: Int], seed: UInt64, pool: SQLiteValue,
        after: Int = 0, _ connection: Connection
    ) throws(SynthesisError) {
        let values = try fill.columnValues(fills: fills, counts: counts)
        let quoted = SQLText.quote(fill.table.name)
        let presence = fill.presence(values)
        // The pool is bound only where a value cuts text from it.
        let parameters = values.contains { $0.value.contains("?1") } ? [pool] : []
        let insert = { (start: Int64, retry: Bool) -> String in
            "INSERT OR IGNORE INTO \(quoted)(\(values.map { SQLText.quote($0.name) }.joined(separator: ", "))) "
                + fill.counter(start: start, after: after) + " SELECT \(values.map(\.value).joined(separator: ", ")) FROM preflight_counter"
                + (retry ? presence.map { " WHERE NOT \($0)" } ?? "" : "")
        }
        var shortfall: SynthesisError?
        do throws(SQLiteError) {
            try connection.execute("BEGIN IMMEDIATE")
            let before = try connection.integer("SELECT count(*) FROM \(quoted)")
            var made = 0
            var attempt = 0
            var fruitless = 0
            while attempt < maxAttempts {
                // Plan SQL is compiled into this statement (the table's CHECKs, its triggers):
                // it is prepared and run under the plan policy, as everywhere else.
                try connection.preparePlanStatement(insert(streamStart(seed: seed, table: fill.salt, attempt: attempt), attempt > 0))
                    .run(parameters)
                let total = Int(try connection.integer("SELECT count(*) FROM \(quoted)") - before)
                fruitless = total == made ? fruitless + 1 : 0
                made = total
                attempt += 1
                if made >= fill.rows - after || fill.table.checks.isEmpty || presence == nil || fruitless == 2 { break }
            }
            if made < fill.rows - after {
                shortfall = try diagnose(
                    fill, values: values, made: after + made, attempts: attempt, parameters: parameters, seed: seed, connection)
                connection.rollbackIfNeeded()
            } else {
                try connection.execute("COMMIT")
            }
        } catch {
            connection.rollbackIfNeeded()
            throw .sqlite(error, while: "filling \(fill.table.name)")
        }
        if let shortfall { throw shortfall }
    }

    /// Why rows are missing: the first CHECK that the last attempt's values break,
    /// named with its table and columns.
    private static func diagnose(
        _ fill: TableFill, values: [(name: String, value: String)], made: Int, attempts: Int, parameters: [SQLiteValue],
        seed: UInt64, _ connection: Connection
    ) throws(SQLiteError) -> SynthesisError {
        let candidates = "SELECT \(values.map { "\($0.value) AS \(SQLText.quote($0.name))" }.joined(separator: ", ")) FROM preflight_counter"
        let start = streamStart(seed: seed, table: fill.salt, attempt: max(0, attempts - 1))
        for check in fill.table.checks {
            let broken = try connection.preparePlanStatement(
                fill.counter(start: start) + " SELECT count(*) FROM (\(candidates)) WHERE NOT (\(check.expression))")
            let rows = try broken.rows(parameters)
            if let count = rows.first?.first?.integerValue, count > 0 {
                let columns = check.columns.isEmpty ? "" : ", column \(check.columns.map { "\"\($0)\"" }.joined(separator: ", "))"
                return .unsatisfiable(
                    "table \"\(fill.table.name)\"\(columns): no values Preflight makes meet CHECK (\(check.expression)); \(made) of \(fill.rows) rows were made after \(attempts) attempts")
            }
        }
        return .unsatisfiable(
            "table \"\(fill.table.name)\": only \(made) of \(fill.rows) rows could be inserted (a UNIQUE key or a trigger refused the others)")
    }

    /// Where the stream starts for a table and attempt: in 1..<2^31-1, from the seed.
    static func streamStart(seed: UInt64, table: Int, attempt: Int) -> Int64 {
        let mixed = ValueExpression.splitMix(seed ^ ValueExpression.splitMix(UInt64(table) << 32 | UInt64(attempt)))
        return Int64(mixed % UInt64(ValueExpression.modulus - 1)) + 1
    }

    /// The longest text or blob a table's values may cut from the pool.
    private static func longestValue(_ fill: TableFill) -> Int {
        fill.table.columns.map { column in
            let shape = fill.shapes[column.name.lowercased()] ?? ColumnShape.defaults(for: column)
            let lengths = ValueExpression.lengthRange(shape, ColumnFacts(column: column.name, checks: fill.table.checks).lengthBounds)
            return lengths.upperBound + 1
        }.max() ?? 1
    }
}
