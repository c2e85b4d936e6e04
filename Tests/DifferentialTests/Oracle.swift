import Foundation
import TestSupport

/// The reference run: a `DifferentialCase` executed on plain SQLite, the way an app with no
/// migration framework would, and the way the corpus's `validate.sh` checks its fixtures.
///
/// Each step is `BEGIN IMMEDIATE; <stmts>; PRAGMA user_version = N; COMMIT`, statement by
/// statement, on a connection with SQLite's defaults (journal_mode DELETE, foreign_keys off,
/// which is also a plan's default). Nothing of MigrationCore runs here (see `PlainSQLite`).
enum Oracle {
    /// A file the oracle made, with its fingerprint.
    struct File {
        var path: String
        var fingerprint: DatabaseFingerprint
    }

    /// What the oracle left for one start.
    struct Run {
        /// Version 1 with the seed rows: Preflight's input for the `seeded` start; nil for `empty`.
        var versionOne: File?
        /// The database after the last step.
        var end: File
        /// For each step after which a table that existed before it has fewer rows, those
        /// tables and how many rows each lost (the user's tables, as
        /// `DatabaseFingerprint.userTableCounts` counts them). Steps that lose nothing are absent.
        var stepLosses: [Int: [String: Int64]] = [:]
    }

    /// Runs `testCase` from `start`, making its files in `directory`.
    ///
    /// - `seeded`: step 1 on an empty file, then the seed rows in one transaction (this is
    ///   the version-1 file, kept as `versionOne`), then steps 2...N on a copy of it.
    /// - `empty`: steps 1...N on an empty file, as a fresh install that replays the history.
    static func run(_ testCase: DifferentialCase, from start: Differential.Start, in directory: TemporaryDirectory) throws -> Run {
        guard !testCase.oracleSteps.isEmpty else {
            throw OracleError("the case \(testCase.name) has no steps; a plan starts at version 1")
        }
        let endPath = directory.file("oracle-end.db")
        switch start {
        case .empty:
            let db = try PlainSQLite(path: endPath, create: true)
            var losses = Losses()
            for (index, statements) in testCase.oracleSteps.enumerated() {
                try losses.measure(version: index + 1, on: db) { try apply(version: index + 1, statements: statements, on: db) }
            }
            return Run(
                versionOne: nil, end: File(path: endPath, fingerprint: try DatabaseFingerprint.read(db)),
                stepLosses: losses.byStep)
        case .seeded:
            let versionOnePath = directory.file("oracle-v1.db")
            let versionOne = try buildVersionOne(testCase, at: versionOnePath)
            // The v1 file was closed (journal_mode DELETE, no hot journal), so a byte copy is
            // the same database; the copy goes on, the original is Preflight's input.
            try FileManager.default.copyItem(atPath: versionOnePath, toPath: endPath)
            let db = try PlainSQLite(path: endPath)
            var losses = Losses()
            for (index, statements) in testCase.oracleSteps.enumerated().dropFirst() {
                try losses.measure(version: index + 1, on: db) { try apply(version: index + 1, statements: statements, on: db) }
            }
            return Run(
                versionOne: versionOne, end: File(path: endPath, fingerprint: try DatabaseFingerprint.read(db)),
                stepLosses: losses.byStep)
        }
    }

    /// Builds the version-1 file at `path`: step 1 (which sets user_version 1), then the
    /// case's seed rows, if any, in one transaction of their own.
    static func buildVersionOne(_ testCase: DifferentialCase, at path: String) throws -> File {
        guard let first = testCase.oracleSteps.first else {
            throw OracleError("the case \(testCase.name) has no step 1 to build version 1 with")
        }
        let fingerprint: DatabaseFingerprint
        do {
            let db = try PlainSQLite(path: path, create: true)
            try apply(version: 1, statements: first, on: db)
            if let seed = testCase.seedSQL {
                try transaction(on: db, doing: "seed rows") { try db.execute(seed) }
            }
            fingerprint = try DatabaseFingerprint.read(db)
        }  // The connection closes here, before anyone copies or reads the file.
        return File(path: path, fingerprint: fingerprint)
    }

    /// Row counts before and after each step, kept where a table lost rows: which steps of a
    /// chain remove rows is what a plan declares with `"row_loss": "allowed"`.
    private struct Losses {
        var byStep: [Int: [String: Int64]] = [:]

        mutating func measure(version: Int, on db: PlainSQLite, _ step: () throws -> Void) throws {
            let before = try DatabaseFingerprint.userTableCounts(db)
            try step()
            let after = try DatabaseFingerprint.userTableCounts(db)
            var lost: [String: Int64] = [:]
            for (table, count) in before {
                if let countAfter = after[table], countAfter < count { lost[table] = count - countAfter }
            }
            if !lost.isEmpty { byStep[version] = lost }
        }
    }

    /// One step: its statements and the version bump in one `BEGIN IMMEDIATE` transaction.
    private static func apply(version: Int, statements: [String], on db: PlainSQLite) throws {
        try transaction(on: db, doing: "step \(version)") {
            for statement in statements { try db.execute(statement) }
            try db.execute("PRAGMA user_version = \(version)")
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE ... COMMIT`; on an error, rolls back and throws
    /// an error that names what failed, so that a generated case that SQLite itself rejects
    /// is told apart from a disagreement with Preflight.
    private static func transaction(on db: PlainSQLite, doing what: String, _ body: () throws -> Void) throws {
        try db.execute("BEGIN IMMEDIATE")
        do {
            try body()
            try db.execute("COMMIT")
        } catch {
            if db.inTransaction {
                do { try db.execute("ROLLBACK") } catch {
                    // The error worth reporting is the one that made the step fail; a failed
                    // rollback only means SQLite already ended the transaction itself.
                }
            }
            throw OracleError("plain SQLite cannot run \(what) of the case: \(error)")
        }
    }
}

/// Plain SQLite refused the case itself: the case is wrong, not Preflight.
struct OracleError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
