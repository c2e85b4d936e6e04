/// A Room app's Kotlin and Java sources as the importer reads them: the `@Database` classes
/// with their AutoMigrations, the hand-written `Migration`s, the AutoMigration specs, what
/// the database builder registers (`addMigrations`) and its destructive fallback.
///
/// Forms read: `Migration(a, b) { db -> ... }`, `object : Migration(a, b) { ... }` (named by
/// `val NAME =` when it is), Java's `new Migration(a, b) { ... }`, and classes that extend
/// `Migration` (`class M : Migration(1, 2)`, Java's `extends Migration` with `super(a, b)`).
/// Test source sets (`src/test`, `src/androidTest`, ...) hold migrations the app never runs
/// and are not read.
struct RoomSources {
    struct File {
        var path: String
        /// The path inside the folder imported, for notes.
        var name: String
        var tokens: SourceTokens
    }

    struct Database {
        /// `package.ClassName`, the name of its schema folder.
        var qualifiedName: String
        var simpleName: String
        /// `version = N`, when it is a constant.
        var version: Int?
        var autoMigrations: [AutoMigration]
        var file: File
        var line: Int
    }

    struct AutoMigration {
        var from: Int
        var to: Int
        /// The spec class's simple name.
        var spec: String?
        var line: Int
    }

    struct Migration {
        var from: Int
        var to: Int
        /// `MIGRATION_1_2` or the class's name; nil for one written inside `addMigrations(...)`.
        var name: String?
        var body: MigrationBody
        var file: File
        var line: Int
        /// Where its declaration starts, to tell whether an `addMigrations(...)` holds it.
        var tokenIndex: Int
    }

    struct Spec {
        var annotations: RoomAutoMigration.Spec
        /// What its `onPostMigrate` runs after the generated SQL.
        var postMigrate: MigrationBody?
        var file: File
    }

    /// One `addMigrations(...)` call: the names it lists (spread arrays resolved) and the
    /// tokens it spans, which may hold migrations written in place.
    struct Registration {
        var names: Set<String>
        var file: File
        var range: Range<Int>
        /// A name it lists that no migration or array carries.
        var unresolved: [String]
    }

    var files: [File] = []
    var constants: [String: String] = [:]
    var databases: [Database] = []
    var migrations: [Migration] = []
    var specs: [String: Spec] = [:]
    var registrations: [Registration] = []
    /// The builder's `fallbackToDestructiveMigration...`, nil when it has none.
    var destructiveFallback: PlanDocument.DestructiveFallback?

    static let testFolders: Set<String> = ["test", "androidTest", "testDebug", "testRelease", "androidUnitTest", "commonTest", "jvmTest", "sharedTest"]

    init(_ root: String) throws(PlanImportError) {
        for path in try ProjectFiles(root).all where path.hasSuffix(".kt") || path.hasSuffix(".java") {
            let relative = String(path.dropFirst(root.count + 1))
            let folders = relative.split(separator: "/").dropLast()
            if folders.contains(where: { Self.testFolders.contains(String($0)) }) { continue }
            let language: SourceTokens.Language = path.hasSuffix(".kt") ? .kotlin : .java
            files.append(File(path: path, name: relative, tokens: SourceTokens(try ProjectFiles.text(path), language: language)))
        }
        constants = StaticStrings.constants(in: files.map(\.tokens))
        var calls: [(File, Range<Int>)] = []
        for file in files { calls += read(file) }
        // Read once every migration is known: a call may list names from other files.
        registrations = calls.map { registration($0.0, $0.1) }
    }

    private func integer(_ tokens: SourceTokens, _ range: Range<Int>) -> Int? {
        StaticStrings(tokens: tokens, constants: constants).value(of: range).flatMap { Int($0) }
    }

    // MARK: - One file

    /// Reads the declarations of `file`; returns the ranges of its `addMigrations(...)` calls.
    private mutating func read(_ file: File) -> [(File, Range<Int>)] {
        var calls: [(File, Range<Int>)] = []
        let tokens = file.tokens
        var pendingSpec = RoomAutoMigration.Spec()
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            guard token.kind == .identifier else {
                index += 1
                continue
            }
            switch token.text {
            case "Database" where tokens.is(index - 1, "@") && tokens.is(index + 1, "("):
                if let database = database(file, at: index) { databases.append(database) }
            case "RenameColumn", "DeleteColumn", "RenameTable", "DeleteTable":
                if tokens.is(index + 1, "("), let close = tokens.closing(index + 1) {
                    annotate(&pendingSpec, token.text, tokens, (index + 2)..<close)
                    index = close
                }
            case "class", "object", "interface":
                if index + 1 < tokens.count, tokens[index + 1].kind == .identifier {
                    let name = tokens[index + 1].text
                    if pendingSpec != RoomAutoMigration.Spec() || isSpecClass(tokens, after: index) {
                        specs[name] = Spec(annotations: pendingSpec, postMigrate: postMigrate(file, after: index), file: file)
                    }
                    if let migration = migrationClass(file, name: name, at: index) { migrations.append(migration) }
                }
                pendingSpec = RoomAutoMigration.Spec()
            case "fun", "val", "var":
                pendingSpec = RoomAutoMigration.Spec()
            case "Migration" where tokens.is(index + 1, "(") && !tokens.is(index - 1, "class"):
                if let migration = migrationExpression(file, at: index) { migrations.append(migration) }
            case "addMigrations" where tokens.is(index + 1, "("):
                if let close = tokens.closing(index + 1) { calls.append((file, (index + 2)..<close)) }
            case "fallbackToDestructiveMigration", "fallbackToDestructiveMigrationOnDowngrade", "fallbackToDestructiveMigrationFrom":
                destructiveFallback = fallback(token.text, tokens, at: index)
            default:
                break
            }
            index += 1
        }
        return calls
    }

    /// `@Database(version = N, autoMigrations = [AutoMigration(from = a, to = b, spec = S::class), ...])`
    /// and the class it annotates.
    private func database(_ file: File, at index: Int) -> Database? {
        let tokens = file.tokens
        guard let close = tokens.closing(index + 1) else { return nil }
        let version = namedArguments(tokens, (index + 2)..<close)["version"].flatMap { integer(tokens, $0) }
        var autoMigrations: [AutoMigration] = []
        var position = index + 2
        while position < close {
            if tokens.is(position, "AutoMigration"), tokens.is(position + 1, "("), let end = tokens.closing(position + 1) {
                let arguments = namedArguments(tokens, (position + 2)..<end)
                if let from = arguments["from"].flatMap({ integer(tokens, $0) }), let to = arguments["to"].flatMap({ integer(tokens, $0) }) {
                    let spec = arguments["spec"].flatMap { range in
                        range.last { tokens[$0].kind == .identifier && tokens[$0].text != "class" }.map { tokens[$0].text }
                    }
                    autoMigrations.append(AutoMigration(from: from, to: to, spec: spec, line: tokens[position].line))
                }
                position = end
            }
            position += 1
        }
        var classIndex = close + 1
        // The class it annotates, past other annotations (`@TypeConverters(X::class)`).
        while classIndex + 1 < tokens.count,
            !(tokens.is(classIndex, "class") && tokens[classIndex + 1].kind == .identifier && !tokens.is(classIndex - 1, "::") && !tokens.is(classIndex - 1, "."))
        {
            classIndex += 1
        }
        guard classIndex + 1 < tokens.count else { return nil }
        let simpleName = tokens[classIndex + 1].text
        return Database(
            qualifiedName: packageName(tokens).map { $0 + "." + simpleName } ?? simpleName, simpleName: simpleName, version: version,
            autoMigrations: autoMigrations, file: file, line: tokens[index].line)
    }

    private func packageName(_ tokens: SourceTokens) -> String? {
        guard let start = (0..<tokens.count).first(where: { tokens.is($0, "package") }) else { return nil }
        var name = ""
        var index = start + 1
        while index < tokens.count, tokens[index].kind == .identifier || tokens.is(index, ".") {
            if index > start + 1, tokens[index].kind == .identifier, !tokens.is(index - 1, ".") { break }
            name += tokens[index].text
            index += 1
        }
        return name
    }

    /// `name = value, ...` inside an annotation's or a call's parentheses.
    private func namedArguments(_ tokens: SourceTokens, _ range: Range<Int>) -> [String: Range<Int>] {
        var arguments: [String: Range<Int>] = [:]
        for argument in tokens.arguments(in: range) where argument.count > 2 {
            let name = argument.lowerBound
            if tokens[name].kind == .identifier, tokens.is(name + 1, "=") { arguments[tokens[name].text] = (name + 2)..<argument.upperBound }
        }
        return arguments
    }

    /// The parameters of Room's spec annotations, in order, for arguments given by position
    /// (`@DeleteColumn("Status", "expanded")`).
    static let annotationParameters: [String: [String]] = [
        "RenameColumn": ["tableName", "fromColumnName", "toColumnName"], "DeleteColumn": ["tableName", "columnName"],
        "RenameTable": ["fromTableName", "toTableName"], "DeleteTable": ["tableName"],
    ]

    private func annotate(_ spec: inout RoomAutoMigration.Spec, _ kind: String, _ tokens: SourceTokens, _ range: Range<Int>) {
        let reader = StaticStrings(tokens: tokens, constants: constants)
        var ranges = namedArguments(tokens, range)
        if ranges.isEmpty {
            let positional = tokens.arguments(in: range)
            for (name, argument) in zip(Self.annotationParameters[kind] ?? [], positional) { ranges[name] = argument }
        }
        let values = ranges.compactMapValues { reader.value(of: $0) }
        switch kind {
        case "RenameColumn":
            if let table = values["tableName"], let from = values["fromColumnName"], let to = values["toColumnName"] {
                spec.renamedColumns.append((table, from, to))
            }
        case "DeleteColumn":
            if let table = values["tableName"], let column = values["columnName"] { spec.deletedColumns.append((table, column)) }
        case "RenameTable":
            if let from = values["fromTableName"], let to = values["toTableName"] { spec.renamedTables.append((from, to)) }
        default:
            if let table = values["tableName"] { spec.deletedTables.append(table) }
        }
    }

    /// `class X : AutoMigrationSpec` / `implements AutoMigrationSpec`, before its body.
    private func isSpecClass(_ tokens: SourceTokens, after index: Int) -> Bool {
        var position = index + 2
        while position < tokens.count, !tokens.is(position, "{"), !tokens.is(position, "class"), position < index + 40 {
            if tokens.is(position, "AutoMigrationSpec") { return true }
            position += 1
        }
        return false
    }

    private func postMigrate(_ file: File, after index: Int) -> MigrationBody? {
        let tokens = file.tokens
        var open = index + 2
        while open < tokens.count, !tokens.is(open, "{"), !tokens.is(open, "class"), open < index + 40 { open += 1 }
        guard tokens.is(open, "{"), let close = tokens.closing(open),
            ((open + 1)..<close).contains(where: { tokens.is($0, "onPostMigrate") && tokens.is($0 + 1, "(") })
        else { return nil }
        return MigrationBody.read(tokens, open: open, close: close, constants: constants, file: file.name)
    }

    // MARK: - Migrations

    /// `Migration(a, b)` followed by its body: `object : Migration(a, b) { ... }`, `new Migration(a, b) { ... }`,
    /// or room-ktx's `Migration(a, b) { db -> ... }`.
    private func migrationExpression(_ file: File, at index: Int) -> Migration? {
        let tokens = file.tokens
        guard let close = tokens.closing(index + 1), let (from, to) = versions(tokens, (index + 2)..<close) else { return nil }
        guard tokens.is(close + 1, "{"), let end = tokens.closing(close + 1) else { return nil }
        // `class X : Migration(a, b) {` and `object X : Migration(a, b) {` are read as classes.
        if tokens.is(index - 1, ":"), !tokens.is(index - 2, "object") { return nil }
        var start = index
        if tokens.is(index - 1, "new") || (tokens.is(index - 1, ":") && tokens.is(index - 2, "object")) {
            start = tokens.is(index - 1, "new") ? index - 1 : index - 2
        }
        let name = declaredName(tokens, before: start)
        return Migration(
            from: from, to: to, name: name,
            body: MigrationBody.read(tokens, open: close + 1, close: end, constants: constants, file: file.name),
            file: file, line: tokens[index].line, tokenIndex: start)
    }

    /// `class NAME ... : Migration(a, b) {` (Kotlin) or `class NAME extends Migration {` with `super(a, b)`.
    private func migrationClass(_ file: File, name: String, at index: Int) -> Migration? {
        let tokens = file.tokens
        var position = index + 2
        var versionsFound: (Int, Int)?
        var extendsMigration = false
        while position < tokens.count, !tokens.is(position, "{"), position < index + 60 {
            if tokens.is(position, "("), let close = tokens.closing(position) {
                if tokens.is(position - 1, "Migration"), !tokens.is(position - 2, "."), let found = versions(tokens, (position + 1)..<close) {
                    versionsFound = found
                    extendsMigration = true
                }
                position = close + 1
                continue
            }
            if tokens.is(position, "Migration"), tokens.is(position - 1, "extends") { extendsMigration = true }
            position += 1
        }
        guard extendsMigration, tokens.is(position, "{"), let end = tokens.closing(position) else { return nil }
        if versionsFound == nil {
            for call in position..<end where tokens.is(call, "super") && tokens.is(call + 1, "(") {
                if let close = tokens.closing(call + 1), let found = versions(tokens, (call + 2)..<close) {
                    versionsFound = found
                    break
                }
            }
        }
        guard let (from, to) = versionsFound else { return nil }
        return Migration(
            from: from, to: to, name: name,
            body: MigrationBody.read(tokens, open: position, close: end, constants: constants, file: file.name),
            file: file, line: tokens[index].line, tokenIndex: index)
    }

    private func versions(_ tokens: SourceTokens, _ range: Range<Int>) -> (Int, Int)? {
        let arguments = tokens.arguments(in: range)
        guard arguments.count == 2, let from = integer(tokens, arguments[0]), let to = integer(tokens, arguments[1]) else { return nil }
        return (from, to)
    }

    /// `val NAME =`, `val NAME: Migration =`, Java's `Migration NAME =` before `start`.
    private func declaredName(_ tokens: SourceTokens, before start: Int) -> String? {
        guard tokens.is(start - 1, "=") else { return nil }
        if tokens[start - 2].kind == .identifier, !tokens.is(start - 3, ":") { return tokens[start - 2].text }
        if tokens.is(start - 3, ":"), start >= 4 { return tokens[start - 4].text }
        return nil
    }

    // MARK: - The builder

    private func registration(_ file: File, _ range: Range<Int>) -> Registration {
        let tokens = file.tokens
        var names: Set<String> = []
        var unresolved: [String] = []
        var index = range.lowerBound
        while index < range.upperBound {
            if tokens[index].kind == .identifier, !tokens.is(index + 1, "."), !tokens.is(index - 1, "new"), !tokens.is(index - 1, ":") {
                let name = tokens[index].text
                if tokens.is(index - 1, "*") || !isMigrationName(name) {
                    // A spread array (`*ALL_MIGRATIONS`) or a list named by a val: its items.
                    if let items = arrayItems(named: name) {
                        names.formUnion(items)
                    } else if tokens.is(index - 1, "*") {
                        unresolved.append(name)
                    }
                } else {
                    names.insert(name)
                }
            }
            if tokens.is(index, "{"), let close = tokens.closing(index) {
                index = close  // a migration written in place: its body is not a list of names
            }
            index += 1
        }
        return Registration(names: names, file: file, range: range, unresolved: unresolved)
    }

    private func isMigrationName(_ name: String) -> Bool {
        migrations.contains { $0.name == name } || files.contains { file in
            (0..<file.tokens.count).contains { file.tokens.is($0, "class") && file.tokens.is($0 + 1, name) }
        }
    }

    /// The names in `val NAME = arrayOf(...)`/`listOf(...)` or Java's `NAME = {...}` / `new Migration[]{...}`.
    private func arrayItems(named name: String) -> [String]? {
        for file in files {
            let tokens = file.tokens
            for index in 0..<tokens.count where tokens.is(index, name) && (tokens.is(index + 1, "=") || (tokens.is(index + 1, ":") && tokens.is(index - 1, "val"))) {
                var open = index + 1
                while open < tokens.count, !tokens.is(open, "("), !tokens.is(open, "{"), open < index + 12 { open += 1 }
                guard open < tokens.count, let close = tokens.closing(open) else { continue }
                // Names and constructor calls (`Migration4To5()`); a qualifier is not an item.
                return ((open + 1)..<close).filter { tokens[$0].kind == .identifier && !tokens.is($0 + 1, ".") }
                    .map { tokens[$0].text }
            }
        }
        return nil
    }

    private func fallback(_ method: String, _ tokens: SourceTokens, at index: Int) -> PlanDocument.DestructiveFallback? {
        switch method {
        case "fallbackToDestructiveMigrationOnDowngrade": return .onDowngrade
        case "fallbackToDestructiveMigration": return .always
        default:
            guard tokens.is(index + 1, "("), let close = tokens.closing(index + 1) else { return nil }
            // `dropAllTables = true, 1, 2` (Room 2.7): the Boolean is not a version.
            let versions = tokens.arguments(in: (index + 2)..<close).compactMap { integer(tokens, $0) }
            return .from(versions)
        }
    }
}
