import Foundation

/// A Room app's plan whose history starts at version 24 and ships only even versions, each
/// step spanning two (`Migration(24, 26)`, `Migration(26, 28)`), with every version's identity
/// hash and the newest schema as the fresh install.
public enum ShelfRoomPlan {
    public static let json = """
        {"name": "shelf", "runner": "room", "base_version": 24,
         "room_identity_hashes": {"24": "hash24", "26": "hash26", "28": "hash28"},
         "steps": [
           {"version": 24, "sql": "CREATE TABLE book(id INTEGER PRIMARY KEY NOT NULL, title TEXT NOT NULL)"},
           {"version": 26, "from_version": 24, "sql": "ALTER TABLE book ADD COLUMN isbn TEXT DEFAULT NULL"},
           {"version": 28, "from_version": 26, "sql": "ALTER TABLE book ADD COLUMN pages INTEGER"}],
         "fresh_install": {"version": 28, "sql": ["CREATE TABLE book(id INTEGER PRIMARY KEY NOT NULL, title TEXT NOT NULL, isbn TEXT, pages INTEGER)"]}}
        """

    /// Writes the plan into `directory`; answers its path.
    public static func write(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("shelf.json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
