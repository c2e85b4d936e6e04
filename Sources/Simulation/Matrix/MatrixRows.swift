import Foundation
import MigrationCore

/// The rows of a matrix before anything runs: one per fixture, whatever it holds (a file
/// that cannot be a starting point is a row with its own outcome, never an error of the
/// matrix), one synthesized file per version from `from` to the target - 1 that no fixture
/// stands at (the versions the plan's steps reach: from its base version, and under Room
/// only those its steps end at), and the fresh install (an empty file, version 0).
///
/// Only header bytes and hashes are read here: SQLite opens the fixtures only in
/// sandboxed workers (the cells', and under GRDB the ones that read each fixture's
/// `grdb_migrations` before: `GRDBFixtureVersions`).
struct MatrixRows {
    /// A row and where its file comes from.
    struct Planned: Sendable {
        var row: MatrixRow
        var input: Input
    }

    enum Input: Sendable {
        /// A fixture, read where it lies.
        case fixture(JobInput)
        /// A `-wal` without its main file: nothing can open it.
        case walWithoutDatabase
        /// Synthesized at this version, once, for every device.
        case synthesized(Int)
        case freshInstall
    }

    let rows: [Planned]

    /// Plans the rows of `request`; a fixture that cannot be read at all is still a row.
    /// `recordedVersions`: under GRDB, the version of each fixture that a worker could
    /// read, by its main file's path.
    init(_ request: MatrixRequest, recordedVersions: [String: Int] = [:]) {
        var fixtureRows: [Planned] = []
        for fixture in request.fixtures {
            guard let database = fixture.database else {
                let hash = fixture.wal.flatMap { try? sha256OfFile($0) }.map { "+" + $0 }
                fixtureRows.append(Planned(
                    row: MatrixRow(
                        fromVersion: nil, source: .fixture, file: fixture.name, bytes: nil, tables: nil, sha256: hash),
                    input: .walWithoutDatabase))
                continue
            }
            // Hashed once, here: the row's identity in a merge, and every cell's input hash.
            // Unreadable, it stays nil, and each cell's own hash fails as a run's does.
            let input = JobInput(database: database, wal: fixture.wal, sha256: try? sha256OfFile(database))
            fixtureRows.append(Planned(
                row: MatrixRow(
                    fromVersion: Self.version(of: input, runner: request.plan.runner, recorded: recordedVersions[database]),
                    source: .fixture, file: fixture.name,
                    bytes: fileSize(database), tables: nil, sha256: Self.hash(input)),
                input: .fixture(input)))
        }
        let covered = Set(fixtureRows.compactMap(\.row.fromVersion))
        var made = [Planned(
            row: MatrixRow(fromVersion: 0, source: .freshInstall, file: nil, bytes: 0, tables: [:], sha256: nil),
            input: .freshInstall)]
        let reachable = Set(request.plan.steps.map(\.version))
        for version in request.fromVersion..<max(request.fromVersion, request.target)
        where reachable.contains(version) && !covered.contains(version) {
            made.append(Planned(
                row: MatrixRow(fromVersion: version, source: .synthesized, file: nil, bytes: nil, tables: nil, sha256: nil),
                input: .synthesized(version)))
        }
        // By version, a fixture before a file Preflight made, fixtures by name; the rows
        // whose version is unknown last.
        rows = (fixtureRows + made).sorted { a, b in
            (a.row.fromVersion ?? .max, a.row.source == .fixture ? 0 : 1, a.row.file ?? "")
                < (b.row.fromVersion ?? .max, b.row.source == .fixture ? 0 : 1, b.row.file ?? "")
        }
    }

    /// The version a fixture stands at, as its header says (`user_version`), or under
    /// GRDB as `recorded` (read from `grdb_migrations` by a worker); 0 for an empty file
    /// (a fresh install); nil for what is not a database.
    static func version(of input: JobInput, runner: Runner, recorded: Int?) -> Int? {
        switch DatabaseHeader.read(path: input.database, journal: nil, wal: input.existingWAL) {
        case .empty: return 0
        case .database(let header): return runner.keepsUserVersion ? Int(header.userVersion) : recorded
        case .invalid: return nil
        }
    }

    /// The fixture's hash, with its WAL's after a `+`: how a merge knows the inputs.
    static func hash(_ input: JobInput) -> String? {
        guard let main = input.sha256 else { return nil }
        guard let wal = input.existingWAL else { return main }
        return main + "+" + ((try? sha256OfFile(wal)) ?? "unreadable")
    }
}
