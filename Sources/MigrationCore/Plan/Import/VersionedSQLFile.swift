/// A migration file named for the version it brings the database to: Flyway's
/// `V<version>__<description>.sql` (the version `1`, `1.1` or `1_1`), or a file whose name
/// starts with its version number (`001_init.sql`, `2.sql`, `10-add-tags.sql`).
struct VersionedSQLFile: Equatable {
    var version: AppVersion
    /// The file's name, which names the plan's step.
    var name: String

    init(version: AppVersion, name: String) {
        self.version = version
        self.name = name
    }

    /// Flyway's versioned migration, with its default prefix `V`, separator `__` and suffix
    /// `.sql`. Repeatable (`R__`) and undo (`U1__`) migrations are not versioned steps.
    init?(flywayName name: String) {
        guard name.hasPrefix("V"), name.hasSuffix(".sql"), let separator = name.range(of: "__") else { return nil }
        let versionText = name[name.index(after: name.startIndex)..<separator.lowerBound]
        guard let version = AppVersion(flyway: String(versionText)) else { return nil }
        self.version = version
        self.name = name
    }

    /// A `.sql` file whose name starts with its version number.
    init?(numberedName name: String) {
        guard name.lowercased().hasSuffix(".sql") else { return nil }
        let digits = name.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int(digits) else { return nil }
        version = AppVersion(parts: [number])
        self.name = name
    }

    /// Flyway's other kinds of file: repeatable (`R__name.sql`) and undo (`U2__name.sql`)
    /// migrations, which a plan of versioned steps cannot hold.
    static func isFlywayNonVersioned(_ name: String) -> Bool {
        guard name.hasSuffix(".sql"), let separator = name.range(of: "__") else { return false }
        if name.hasPrefix("R__") { return true }
        return name.hasPrefix("U") && AppVersion(flyway: String(name[name.index(after: name.startIndex)..<separator.lowerBound])) != nil
    }
}

/// A version as the app numbers it: a whole number (a `user_version`, a file's number) or
/// Flyway's dotted version (`1.1`), compared part by part, trailing zeros ignored (Flyway
/// reads `1.0` as `1`).
struct AppVersion: Comparable, Hashable, CustomStringConvertible {
    let parts: [Int]

    init(parts: [Int]) {
        var trimmed = parts
        while trimmed.count > 1, trimmed.last == 0 { trimmed.removeLast() }
        self.parts = trimmed
    }

    /// `1`, `1.1`, `1_1` (Flyway accepts `_` for `.`).
    init?(flyway text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        var numbers: [Int] = []
        for piece in pieces {
            guard !piece.isEmpty, piece.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(piece) else { return nil }
            numbers.append(number)
        }
        guard !numbers.isEmpty else { return nil }
        self.init(parts: numbers)
    }

    /// The version as a whole number, when it is one.
    var whole: Int? { parts.count == 1 ? parts[0] : nil }

    var description: String { parts.map(String.init).joined(separator: ".") }

    static func < (left: AppVersion, right: AppVersion) -> Bool {
        for index in 0..<max(left.parts.count, right.parts.count) {
            let (a, b) = (index < left.parts.count ? left.parts[index] : 0, index < right.parts.count ? right.parts[index] : 0)
            if a != b { return a < b }
        }
        return false
    }
}
