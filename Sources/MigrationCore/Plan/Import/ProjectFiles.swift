import Foundation

/// The files of an app's project folder that an import looks at: every regular file under
/// it, in path order (so that an import is the same on every machine), without build
/// output, tool caches and hidden folders, which hold copies of the sources.
struct ProjectFiles {
    /// Folders that hold generated copies, never the app's own migrations.
    static let skippedFolders: Set<String> = ["build", "node_modules", "target", "out"]

    let root: String
    /// Every file, as `root/relative/path`, in order of the relative path.
    let all: [String]

    init(_ root: String) throws(PlanImportError) {
        guard Self.isDirectory(root) else {
            throw PlanImportError("\(root) is not a directory")
        }
        self.root = root
        var files: [String] = []
        var pending = [""]
        while let relative = pending.popLast() {
            let folder = relative.isEmpty ? root : root + "/" + relative
            let entries: [String]
            do {
                entries = try FileManager.default.contentsOfDirectory(atPath: folder)
            } catch {
                throw PlanImportError("cannot list \(folder): \(error.localizedDescription)")
            }
            for entry in entries where !entry.hasPrefix(".") {
                let path = relative.isEmpty ? entry : relative + "/" + entry
                // A link to a folder is not followed: it may lead back up the tree.
                let type: FileAttributeType?
                do {
                    type = try FileManager.default.attributesOfItem(atPath: root + "/" + path)[.type] as? FileAttributeType
                } catch {
                    throw PlanImportError("cannot read \(root)/\(path): \(error.localizedDescription)")
                }
                switch type {
                case .typeDirectory?:
                    if !Self.skippedFolders.contains(entry) { pending.append(path) }
                case .typeSymbolicLink?:
                    if !Self.isDirectory(root + "/" + path) { files.append(path) }
                default:
                    files.append(path)
                }
            }
        }
        all = files.sorted().map { root + "/" + $0 }
    }

    /// The files directly in the root folder.
    var topLevel: [String] { all.filter { !$0.dropFirst(root.count + 1).contains("/") } }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The last component of a path.
    static func name(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// The folder a path is in.
    static func folder(_ path: String) -> String {
        (path as NSString).deletingLastPathComponent
    }

    /// The file's text; an import reads SQL and JSON, which are UTF-8.
    static func text(_ path: String) throws(PlanImportError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PlanImportError("cannot read \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw PlanImportError("\(path) is not UTF-8 text")
        }
        return text
    }
}
