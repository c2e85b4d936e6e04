/// `preflight plan import --from room DIR`: a Room app's module (or a folder holding it) as
/// a plan for runner room (docs/plans.md, "Importing a Room app").
///
/// The plan starts at the oldest exported schema (`base_version`, its step that schema's
/// `createSql`), holds every migration the app registers (`from_version` where one spans
/// versions) and every `@AutoMigration` as the SQL Room's compiler writes for it
/// (`RoomAutoMigration`), each version's identity hash, the builder's destructive fallback
/// and the newest schema as the fresh install. What the importer cannot read statically
/// is written into the step as `needs_review` and said on stderr.
struct RoomProject {
    let root: String
    /// `--database CLASS`: the simple or qualified name of the `@Database` class.
    let database: String?

    func plan(name: String?) throws(PlanImportError) -> ImportedPlan {
        let folder = try schemaFolder()
        let schemas = try RoomSchemas(databaseFolder: folder)
        guard let oldest = schemas.schemas.first, let newest = schemas.schemas.last else {
            throw PlanImportError("\(folder) holds no Room schema (<version>.json)")
        }
        let sources = try RoomSources(root)
        let className = schemas.databaseName
        guard let declaration = sources.databases.first(where: { $0.qualifiedName == className })
            ?? sources.databases.first(where: { className.hasSuffix("." + $0.simpleName) || $0.simpleName == className })
        else {
            throw PlanImportError(
                "no @Database class \(className) in the Kotlin and Java sources under \(root)"
                    + (sources.databases.isEmpty ? "" : " (they declare \(sources.databases.map(\.qualifiedName).joined(separator: ", ")))")
                    + ": the importer needs its source to know its AutoMigrations and migrations")
        }
        if let version = declaration.version, version != newest.version {
            throw PlanImportError(
                "\(declaration.file.name):\(declaration.line): @Database says version \(version), but the newest exported schema is \(ProjectFiles.name(newest.file)); build the app once to export it")
        }
        var notes: [String] = []
        var steps: [PlanDocument.Step] = [
            PlanDocument.Step(
                version: oldest.version, name: "\(ProjectFiles.name(oldest.file)) (the oldest exported schema)", statements: oldest.createStatements)
        ]
        var pairs: Set<[Int]> = []
        var handWritten = 0
        var automatic = 0
        for migration in registered(sources, declaration, notes: &notes).reversed() {
            let place = "\(migration.file.name):\(migration.line)"
            let label = (migration.name ?? "Migration(\(migration.from), \(migration.to))") + " (\(place))"
            guard migration.from < migration.to else {
                notes.append("\(label) migrates down, from \(migration.from) to \(migration.to): a plan rehearses upgrades; left out")
                continue
            }
            guard migration.from >= oldest.version, migration.to <= newest.version else {
                notes.append(
                    "\(label) is outside the exported schemas (\(oldest.version) to \(newest.version)): no file at version \(migration.from) can be built from them; left out")
                continue
            }
            // Room keeps one migration per pair; the one registered last wins.
            guard pairs.insert([migration.from, migration.to]).inserted else {
                notes.append("\(label) is replaced by a later migration from \(migration.from) to \(migration.to), as Room replaces it")
                continue
            }
            notes += migration.body.notes
            steps.append(step(migration.from, migration.to, label, migration.body))
            handWritten += 1
        }
        for auto in declaration.autoMigrations {
            let label = "AutoMigration(from = \(auto.from), to = \(auto.to)\(auto.spec.map { ", spec = \($0)" } ?? "")) (\(declaration.file.name):\(auto.line))"
            // Room adds an AutoMigration only where the app registers no migration of its own.
            guard !pairs.contains([auto.from, auto.to]) else {
                notes.append("\(label) is not used: the app registers its own migration from \(auto.from) to \(auto.to), which Room runs instead")
                continue
            }
            guard let from = schemas.schema(version: auto.from), let to = schemas.schema(version: auto.to) else {
                throw PlanImportError("\(label) needs the exported schemas \(auto.from).json and \(auto.to).json, as Room's compiler does")
            }
            var annotations = RoomAutoMigration.Spec()
            var postMigrate: MigrationBody?
            if let specName = auto.spec {
                guard let spec = sources.specs[specName] else {
                    throw PlanImportError("\(label): no AutoMigrationSpec class \(specName) in the sources")
                }
                annotations = spec.annotations
                postMigrate = spec.postMigrate
            }
            var body = MigrationBody()
            do throws(PlanImportError) {
                body.statements = try RoomAutoMigration(from: from.bundle, to: to.bundle, spec: annotations).statements()
            } catch {
                throw PlanImportError("\(label): \(error.message)")
            }
            if let postMigrate {
                body.statements += postMigrate.statements
                body.reviews += postMigrate.reviews
                notes += postMigrate.notes
            }
            pairs.insert([auto.from, auto.to])
            steps.append(step(auto.from, auto.to, label, body))
            automatic += 1
        }
        steps.sort { ($0.version, $0.fromVersion ?? $0.version - 1) < ($1.version, $1.fromVersion ?? $1.version - 1) }
        for step in steps {
            for review in step.needsReview { notes.append("step \(step.version) (\(step.name)) needs review: \(review)") }
        }
        let planName = name ?? declaration.simpleName
        let description =
            "Imported by 'preflight plan import --from room' from \(ProjectFiles.name(root)): \(declaration.qualifiedName), "
            + "\(handWritten) hand-written migration\(handWritten == 1 ? "" : "s") and \(automatic) AutoMigration\(automatic == 1 ? "" : "s") "
            + "over the exported schemas \(oldest.version) to \(newest.version); the fresh install and the identity hashes are Room's."
        let document = PlanDocument(
            name: planName, description: description, runner: Runner.room.rawValue,
            room: PlanDocument.Room(
                identityHash: newest.identityHash,
                // The versions a step reaches: a file at another one cannot be built from the plan.
                identityHashes: Dictionary(
                    schemas.schemas.filter { schema in steps.contains { $0.version == schema.version } }.map { ($0.version, $0.identityHash) }
                ) { first, _ in first },
                destructiveFallback: sources.destructiveFallback, baseVersion: oldest.version),
            steps: steps, freshInstall: newest.createStatements)
        return ImportedPlan(name: planName, document: Array(document.text.utf8), notes: notes)
    }

    private func step(_ from: Int, _ to: Int, _ label: String, _ body: MigrationBody) -> PlanDocument.Step {
        PlanDocument.Step(
            version: to, fromVersion: to - from == 1 ? nil : from, name: label, needsReview: body.reviews, statements: body.statements)
    }

    /// The folder of the database's schemas: `schemas/<database class>/` somewhere under the root.
    private func schemaFolder() throws(PlanImportError) -> String {
        let folders = Set(try ProjectFiles(root).all.filter(RoomSchemas.isSchemaFile).map(ProjectFiles.folder))
            .filter { ProjectFiles.name(ProjectFiles.folder($0)) == "schemas" || ProjectFiles.folder($0) == root }
        guard !folders.isEmpty else {
            throw PlanImportError(
                "\(root) holds no Room schemas (schemas/<database class>/<version>.json): export them with room.schemaLocation (or the annotation processor's room.schemaLocation) and build once")
        }
        let chosen = database.map { wanted in
            folders.filter { ProjectFiles.name($0) == wanted || ProjectFiles.name($0).hasSuffix("." + wanted) }
        } ?? folders
        guard chosen.count == 1, let folder = chosen.first else {
            let names = folders.map(ProjectFiles.name).sorted().joined(separator: ", ")
            throw PlanImportError(
                chosen.isEmpty
                    ? "\(root) has no schemas of a database \(database ?? ""); it has \(names)"
                    : "\(root) holds the schemas of several Room databases (\(names)); name one with --database CLASS")
        }
        return folder
    }

    /// The migrations the app registers for this database: those its `addMigrations(...)`
    /// calls name or hold, in the order they were found; every one found when the sources
    /// have no such call, with a note.
    private func registered(_ sources: RoomSources, _ database: RoomSources.Database, notes: inout [String]) -> [RoomSources.Migration] {
        // With several databases, only the files that name this one's class are its own.
        let own: (RoomSources.File) -> Bool = { file in
            sources.databases.count == 1
                || (0..<file.tokens.count).contains { file.tokens[$0].kind == .identifier && file.tokens[$0].text == database.simpleName }
        }
        let candidates = sources.migrations.filter { own($0.file) }
        let registrations = sources.registrations.filter { own($0.file) }
        guard !registrations.isEmpty else {
            if !candidates.isEmpty {
                notes.append("no addMigrations(...) call in the sources: every Migration found is taken as registered")
            }
            return candidates
        }
        let unresolved = registrations.flatMap(\.unresolved)
        if !unresolved.isEmpty {
            notes.append("addMigrations(...) lists \(unresolved.joined(separator: ", ")), which the importer cannot resolve: every Migration found is taken as registered")
            return candidates
        }
        let names = registrations.reduce(into: Set<String>()) { $0.formUnion($1.names) }
        return candidates.filter { migration in
            let isListed = migration.name.map(names.contains) ?? false
            let isInPlace = registrations.contains { $0.file.path == migration.file.path && $0.range.contains(migration.tokenIndex) }
            if !isListed && !isInPlace {
                notes.append("\(migration.name ?? "Migration(\(migration.from), \(migration.to))") (\(migration.file.name):\(migration.line)) is not registered with addMigrations(...); left out, as Room never runs it")
            }
            return isListed || isInPlace
        }
    }
}
