import Foundation
import Simulation

/// The files of a `POST /v1/matrix` upload (docs/CONTRACT.md §11), written to the job directory as
/// they arrive: each `database` part under a name of its own (`upload-N`) with the filename
/// it came with, each `wal` part likewise (paired with the database part whose filename it
/// is, less `-wal`), and the `like` part (the sample).
///
/// Used by the one thread that reads the body, then by the job's; hence `@unchecked Sendable`.
final class MatrixParts: @unchecked Sendable {
    static let names: Set<String> = ["database", "wal", "like"]

    /// The most `database` parts one upload may hold (`max_matrix_files`).
    let maxFiles: Int
    private(set) var files: [(part: String, filename: String, path: String)] = []
    private(set) var samplePath: String?
    private var sink: FileSink?
    /// The part being written: a piece of another name or filename, or one that starts
    /// again at offset 0, is the next part.
    private var current: (name: String, filename: String?, bytes: UInt64)?

    init(maxFiles: Int) {
        self.maxFiles = maxFiles
    }

    func piece(
        _ name: String, filename: String?, data: UnsafeRawPointer?, size: Int, offset: UInt64, in directory: JobDirectory
    ) throws(HTTPError) {
        let startsAnother = current.map { $0.name != name || $0.filename != filename || (offset == 0 && $0.bytes > 0) } ?? true
        if startsAnother {
            try sink?.close()
            sink = nil
            let path: String
            if name == "like" {
                guard samplePath == nil else { throw .badRequest("the matrix takes one \"like\" part (the sample)") }
                path = directory.path + "/sample.db"
                samplePath = path
            } else {
                guard let filename, !filename.isEmpty else {
                    throw .badRequest(
                        "each \"\(name)\" part needs its filename (curl -F \"\(name)=@notes-v3.db\"): the row shows it, and a wal part is paired by it")
                }
                if name == "database", files.filter({ $0.part == "database" }).count >= maxFiles {
                    throw .badRequest("a matrix takes at most \(maxFiles) database parts (max_matrix_files)")
                }
                path = directory.path + "/upload-\(files.count + 1)"
                files.append((name, (filename as NSString).lastPathComponent, path))
            }
            sink = try FileSink(path: path)
            current = (name, filename, 0)
        }
        if let data, size > 0 { try sink?.write(data, count: size) }
        current?.bytes += UInt64(size)
    }

    func close() throws(HTTPError) {
        try sink?.close()
        sink = nil
    }

    /// Each database part with the wal part named after it; a wal part that no database
    /// part has is a fixture of its own, a row that says so.
    var fixtures: [MatrixFixture] {
        let databases = files.filter { $0.part == "database" }
        let wals = files.filter { $0.part == "wal" }
        var fixtures = databases.map { database in
            MatrixFixture(
                name: database.filename, database: database.path,
                wal: wals.first { $0.filename == database.filename + "-wal" }?.path)
        }
        for wal in wals where !databases.contains(where: { wal.filename == $0.filename + "-wal" }) {
            fixtures.append(MatrixFixture(name: wal.filename, database: nil, wal: wal.path))
        }
        return fixtures
    }
}
