import CSQLite
import Foundation
import MigrationCore

/// The SQLite a device's workers run on: an engine that `scripts/build-engines` built from
/// source with the device's platform options (`SQLiteBuild`), at the version nearest the
/// device's, or this binary's own SQLite where no engine fits (`host`).
///
/// A worker loads its engine in place of the SQLite it links: the launcher puts the
/// engine's folder first on the worker's `LD_LIBRARY_PATH` (`WorkerLauncher`), and the
/// dynamic loader finds `libsqlite3.so.0` there.
public struct SQLiteEngine: Sendable, Equatable {
    /// The folder name (`android-3.44.0`); "host" for the linked SQLite.
    public let name: String
    public let version: SQLiteVersion
    public let build: SQLiteBuild
    /// Where its source came from (`debian:bookworm:3.40.1`, `pypi:sqlean.py==0.21.8.5:sqlite`).
    public let source: String
    /// The folder holding its `libsqlite3.so.0`; nil for the host's.
    public let directory: String?

    /// The SQLite this process links (Debian's), with Debian's options.
    public static let host = SQLiteEngine(
        name: "host", version: SQLiteVersion(String(cString: sqlite3_libversion())) ?? SQLiteVersion(3, 0, 0),
        build: .host, source: "the system's libsqlite3", directory: nil)

    /// The engine `device` runs on: of the engines built with its platform's options, the
    /// oldest that is at least the device's version (the feature scanner then refuses what
    /// the device's own version lacks), else the newest; the host's where none is built or
    /// the device names no build.
    public static func forDevice(_ device: DeviceProfile, among engines: [SQLiteEngine]) -> SQLiteEngine {
        let candidates = engines.filter { $0.build == device.sqliteBuild && $0.build != .host }
            .sorted { $0.version < $1.version }
        guard let newest = candidates.last else { return .host }
        guard let wanted = device.sqliteVersion else { return newest }
        return candidates.first { $0.version >= wanted } ?? newest
    }

    /// The engines built under `root`: each folder with a `libsqlite3.so.0` and an
    /// `engine.json` (`{name, version, build, source}`, written by scripts/build-engines).
    public static func installed(in root: String) -> [SQLiteEngine] {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return folders.sorted().compactMap { folder in
            let directory = (root as NSString).appendingPathComponent(folder)
            guard FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("libsqlite3.so.0")),
                let bytes = FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent("engine.json")),
                let object = JSONValue.parse(Array(bytes))?.objectValue,
                let version = object["version"]?.stringValue.flatMap(SQLiteVersion.init),
                let build = object["build"]?.stringValue.flatMap(SQLiteBuild.init(rawValue:)),
                let source = object["source"]?.stringValue
            else { return nil }
            return SQLiteEngine(name: folder, version: version, build: build, source: source, directory: directory)
        }
    }

    /// The engines' folder for the binary at `executable`: `PREFLIGHT_ENGINES_DIR` when set,
    /// else the first of `engines` one or two folders above the binary (`.build/engines` for
    /// `.build/<triple>/debug/preflight`) and `lib/preflight/engines` beside its `bin`
    /// (the container's `/usr/local/lib/preflight/engines`) that exists.
    public static func root(forExecutable executable: String) -> String? {
        if let configured = ProcessInfo.processInfo.environment["PREFLIGHT_ENGINES_DIR"], !configured.isEmpty {
            return configured
        }
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [
            binary.deletingLastPathComponent().appendingPathComponent("engines"),
            binary.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("engines"),
            binary.deletingLastPathComponent().appendingPathComponent("lib/preflight/engines"),
        ]
        var isDirectory: ObjCBool = false
        return candidates.map(\.path).first { FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && isDirectory.boolValue }
    }

    /// The engines beside the binary at `executable`, read once per binary.
    public static func installed(forExecutable executable: String) -> [SQLiteEngine] {
        Catalog.shared.engines(forExecutable: executable)
    }

    /// What the report says of the SQLite a run used (`sqlite` in docs/CONTRACT.md §3).
    public func report(for device: DeviceProfile) -> SQLiteReport {
        SQLiteReport(device: device.sqliteVersion?.description, engine: version.description, options: build)
    }

    /// The engines read from disk, per binary: every job of a server reads the same folder.
    private final class Catalog: @unchecked Sendable {
        static let shared = Catalog()
        private let lock = NSLock()
        private var byExecutable: [String: [SQLiteEngine]] = [:]

        func engines(forExecutable executable: String) -> [SQLiteEngine] {
            lock.lock()
            defer { lock.unlock() }
            if let known = byExecutable[executable] { return known }
            let engines = SQLiteEngine.root(forExecutable: executable).map(SQLiteEngine.installed(in:)) ?? []
            byExecutable[executable] = engines
            return engines
        }
    }
}

/// The SQLite of a run, as the report names it: the device's own version, the engine's,
/// and the options it was built with, so that the distance between the two is never hidden.
public struct SQLiteReport: Sendable, Codable, Equatable {
    /// The profile's `sqlite_version`; null for a profile that names none (`default`).
    @Nullable public var device: String?
    /// The version of the SQLite the workers ran on (`sqlite_version()`).
    public var engine: String
    /// The compile options it was built with: `android`, `ios`, or `host` (this machine's SQLite).
    public var options: SQLiteBuild

    public init(device: String?, engine: String, options: SQLiteBuild) {
        self.device = device
        self.engine = engine
        self.options = options
    }
}
