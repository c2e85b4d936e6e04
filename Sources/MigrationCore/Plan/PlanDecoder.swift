/// Reads a plan document (docs/CONTRACT.md §1), rejecting anything that is not exactly a plan
/// with an error that names the step and the problem.
public enum PlanDecoder {
    public static func decode(_ bytes: [UInt8]) throws(PlanError) -> Plan {
        guard let document = JSONValue.parse(bytes) else {
            throw PlanError("the plan is not valid JSON")
        }
        guard let object = document.objectValue else {
            throw PlanError("the plan must be a JSON object, not \(document.typeName)")
        }
        var fields = Fields(object, context: "plan")
        let name = try fields.requiredString("name")
        let description = try fields.optionalString("description")
        let applicationID = try fields.optionalInteger("application_id").map { value throws(PlanError) -> Int32 in
            guard let id = Int32(exactly: value) ?? UInt32(exactly: value).map({ Int32(bitPattern: $0) }) else {
                throw PlanError("plan: \"application_id\" must fit in 32 bits, got \(value)")
            }
            return id
        }
        let runner: Runner
        switch try fields.optionalString("runner") {
        case nil: runner = .perStep
        case let name?:
            guard let named = Runner(rawValue: name) else {
                let names = Runner.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw PlanError("plan: \"runner\" must be one of \(names), got \"\(name)\"")
            }
            runner = named
        }
        let foreignKeys: Bool
        switch try fields.optionalString("foreign_keys") {
        // GRDB's connections enforce foreign keys unless the app turns them off.
        case nil: foreignKeys = runner == .grdb
        case "off": foreignKeys = false
        case "on": foreignKeys = true
        case let other?: throw PlanError("plan: \"foreign_keys\" must be \"on\" or \"off\", got \"\(other)\"")
        }
        let roomIdentityHash = try fields.optionalString("room_identity_hash")
        if roomIdentityHash != nil, runner != .room {
            throw PlanError(
                "plan: \"room_identity_hash\" is what Room writes to room_master_table; it needs \"runner\": \"room\", not \"\(runner.rawValue)\"")
        }
        for key in ["room_version", "room_identity_hashes", "room_destructive_fallback", "base_version"]
        where runner != .room && fields.has(key) {
            throw PlanError("plan: \"\(key)\" describes a Room app; it needs \"runner\": \"room\", not \"\(runner.rawValue)\"")
        }
        let baseVersion = try fields.optionalInteger("base_version") ?? 1
        guard (1...Int64(Int32.max)).contains(baseVersion) else {
            throw PlanError("plan: \"base_version\" must be a version from 1 up, got \(baseVersion)")
        }
        let roomVersion = try fields.optionalString("room_version").map { text throws(PlanError) -> RoomVersion in
            guard let version = RoomVersion(text) else {
                throw PlanError("plan: \"room_version\" must be an androidx.room release such as \"2.6.1\", got \"\(text)\"")
            }
            return version
        }
        let identityHashesValue = fields.take("room_identity_hashes")
        let fallback = try decodeDestructiveFallback(fields.take("room_destructive_fallback"))
        guard case .array(let stepValues)? = fields.take("steps") else {
            throw PlanError("plan: \"steps\" must be an array of steps")
        }
        let freshInstallValue = fields.take("fresh_install")
        try fields.rejectUnknown()

        var steps: [Step] = []
        var positionOfID: [String: Int] = [:]
        for (index, value) in stepValues.enumerated() {
            let step = try decodeStep(
                value, position: index + 1, runner: runner, baseVersion: Int(baseVersion), previous: steps)
            if let id = step.id {
                if let earlier = positionOfID[id] {
                    throw PlanError(
                        "step \(step.version) (\"\(step.name)\"): \"id\" \"\(id)\" is already the id of step \(earlier); each migration needs an identifier of its own")
                }
                positionOfID[id] = step.version
            }
            steps.append(step)
        }
        let newest = steps.last?.version ?? 0
        let freshInstall = try freshInstallValue.map { value throws(PlanError) in
            try decodeFreshInstall(value, newest: newest)
        }
        var room: RoomSettings?
        if runner == .room {
            let hashes = try decodeIdentityHashes(identityHashesValue, versions: Set(steps.map(\.version)))
            if let roomIdentityHash, let newestHash = hashes[newest], newestHash != roomIdentityHash {
                throw PlanError(
                    "plan: \"room_identity_hash\" is \"\(roomIdentityHash)\" but \"room_identity_hashes\" gives version \(newest) the hash \"\(newestHash)\"; the newest version has one identity hash")
            }
            room = RoomSettings(version: roomVersion ?? .newestRead, identityHashes: hashes, destructiveFallback: fallback)
        }
        return Plan(
            name: name, description: description, applicationID: applicationID, foreignKeys: foreignKeys,
            runner: runner, roomIdentityHash: roomIdentityHash ?? room?.identityHashes[newest], room: room,
            baseVersion: Int(baseVersion), steps: steps, freshInstall: freshInstall,
            sha256: SHA256.hex(bytes), document: bytes)
    }

    // MARK: - Room

    private static func decodeDestructiveFallback(_ value: JSONValue?) throws(PlanError) -> RoomDestructiveFallback {
        let problem = "plan: \"room_destructive_fallback\" must be \"off\", \"always\", \"on_downgrade\" or an array of versions (fallbackToDestructiveMigrationFrom)"
        switch value {
        case nil, .null?, .string("off")?: return .off
        case .string("always")?: return .always
        case .string("on_downgrade")?: return .onDowngrade
        case .array(let items)?:
            var versions: Set<Int> = []
            for item in items {
                guard let version = item.integerValue, (1...Int64(Int32.max)).contains(version) else {
                    throw PlanError("\(problem); \(item.canonicalText) is not a version from 1 up")
                }
                versions.insert(Int(version))
            }
            return .from(versions)
        case let other?: throw PlanError("\(problem), got \(other.canonicalText)")
        }
    }

    private static func decodeIdentityHashes(_ value: JSONValue?, versions: Set<Int>) throws(PlanError) -> [Int: String] {
        guard let value, value != .null else { return [:] }
        guard let object = value.objectValue else {
            throw PlanError("plan: \"room_identity_hashes\" must be an object from version to identity hash, not \(value.typeName)")
        }
        var hashes: [Int: String] = [:]
        for (key, hash) in object {
            guard let version = Int(key), versions.contains(version) else {
                throw PlanError("plan: \"room_identity_hashes\" has \"\(key)\", which is not a version any step reaches")
            }
            guard let text = hash.stringValue, !text.trimmingWhitespace().isEmpty else {
                throw PlanError("plan: \"room_identity_hashes\"[\"\(key)\"] must be a non-empty string")
            }
            hashes[version] = text
        }
        return hashes
    }

    // MARK: - Steps

    private static func decodeStep(
        _ value: JSONValue, position: Int, runner: Runner, baseVersion: Int, previous: [Step]
    ) throws(PlanError) -> Step {
        guard let object = value.objectValue else {
            throw PlanError("step \(position): must be an object, not \(value.typeName)")
        }
        var fields = Fields(object, context: "step \(position)")
        guard let version = try fields.optionalInteger("version") else {
            throw PlanError("step \(position): \"version\" is missing")
        }
        let fromVersion = try fields.optionalInteger("from_version")
        if fromVersion != nil, runner != .room {
            throw PlanError(
                "step \(position): \"from_version\" is Room's Migration(from, to) spanning versions; it needs \"runner\": \"room\", not \"\(runner.rawValue)\"")
        }
        let from = try stepStart(
            version: version, fromVersion: fromVersion, position: position, runner: runner, baseVersion: baseVersion,
            previous: previous)
        fields.context = "step \(version)"
        let name = try fields.optionalString("name") ?? "version \(version)"
        fields.context = "step \(version) (\"\(name)\")"
        let id = try fields.optionalString("id")
        if id == nil, runner == .grdb {
            throw PlanError(
                "\(fields.context): \"id\" is missing; runner grdb records each applied migration by its identifier (the name given to registerMigration), so every step needs one")
        }
        let rowLossAllowed: Bool
        switch try fields.optionalString("row_loss") {
        case nil: rowLossAllowed = false
        case "allowed": rowLossAllowed = true
        case let other?: throw PlanError("\(fields.context): \"row_loss\" can only be \"allowed\", got \"\(other)\"")
        }
        let needsReview = try decodeNeedsReview(fields.take("needs_review"), context: fields.context)
        let kinds = ["sql", "rebuild", "backfill"].filter { fields.has($0) }
        guard kinds.count == 1 else {
            let found = kinds.isEmpty ? "none" : kinds.map { "\"\($0)\"" }.joined(separator: " and ")
            throw PlanError("\(fields.context): needs exactly one of \"sql\", \"rebuild\" or \"backfill\"; found \(found)")
        }
        let context = fields.context
        if runner.commitsWholePath, kinds[0] != "sql" {
            throw PlanError(
                "\(context): a \(kinds[0]) commits a batch at a time, which runner \(runner.rawValue) cannot do: it runs every pending step inside one transaction that commits only at the end; write this step as \"sql\"")
        }
        let action: StepAction
        switch kinds[0] {
        // A Room migration may run nothing (an empty migrate(), a version with no tables yet).
        case "sql": action = .sql(try decodeSQL(fields.take("sql"), context: context, allowsNone: runner == .room))
        case "rebuild": action = .rebuild(try decodeRebuild(fields.take("rebuild"), context: context))
        default: action = .backfill(try decodeBackfill(fields.take("backfill"), context: context))
        }
        try fields.rejectUnknown()
        return Step(
            version: Int(version), fromVersion: from, id: id, name: name, rowLossAllowed: rowLossAllowed, action: action,
            definitionHash: SHA256.hex(Array(value.canonicalText.utf8)), needsReview: needsReview)
    }

    /// `"needs_review"`: what an import could not read, one string per place.
    private static func decodeNeedsReview(_ value: JSONValue?, context: String) throws(PlanError) -> [String] {
        guard let value, value != .null else { return [] }
        let problem = "\(context): \"needs_review\" must be an array of strings, each naming what a person must check"
        guard case .array(let items) = value else { throw PlanError(problem) }
        return try items.map { item throws(PlanError) in
            guard let text = item.stringValue, !text.trimmingWhitespace().isEmpty else { throw PlanError(problem) }
            return text
        }
    }

    /// The version step `position` migrates from, once its place in the plan is checked:
    /// outside Room, versions from the base up by one; under Room, the base step first, then
    /// steps in the order of their versions, each from a version between the base and its
    /// own, no two with the same pair.
    private static func stepStart(
        version: Int64, fromVersion: Int64?, position: Int, runner: Runner, baseVersion: Int, previous: [Step]
    ) throws(PlanError) -> Int {
        guard runner == .room else {
            guard version == Int64(position) else {
                throw PlanError(
                    "step \(position): \"version\" is \(version), but versions start at 1 and go up by one, so this one must be \(position)")
            }
            return Int(version) - 1
        }
        guard let last = previous.last else {
            guard version == Int64(baseVersion), fromVersion == nil else {
                throw PlanError(
                    "step 1: the first step creates the schema of the base version \(baseVersion) on an empty file, so its \"version\" must be \(baseVersion) and it has no \"from_version\"")
            }
            return 0
        }
        guard version <= Int64(Int32.max), version >= Int64(last.version) else {
            throw PlanError(
                "step \(position): \"version\" is \(version), after a step to version \(last.version); steps are listed in the order of their versions")
        }
        let from = fromVersion ?? version - 1
        guard from >= Int64(baseVersion), from < version else {
            throw PlanError(
                "step \(position) (to version \(version)): it migrates from version \(from), which must be at least the base version \(baseVersion) and below \(version)")
        }
        if previous.contains(where: { $0.version == Int(version) && $0.fromVersion == Int(from) }) {
            throw PlanError("step \(position): there is already a step from version \(from) to \(version)")
        }
        return Int(from)
    }

    private static func decodeSQL(_ value: JSONValue?, context: String, allowsNone: Bool = false) throws(PlanError) -> [String] {
        let scripts: [String]
        switch value {
        case .string(let text)?: scripts = [text]
        case .array(let items)?:
            scripts = try items.enumerated().map { offset, item throws(PlanError) in
                guard let text = item.stringValue else {
                    throw PlanError("\(context): \"sql\"[\(offset)] must be a string, not \(item.typeName)")
                }
                return text
            }
        default:
            throw PlanError("\(context): \"sql\" must be a string or an array of strings")
        }
        let statements = scripts.flatMap { SQLText.statements(in: $0) }
        guard !statements.isEmpty || allowsNone else { throw PlanError("\(context): \"sql\" has no statement") }
        for statement in statements {
            if let problem = StatementRules.problem(in: statement) {
                throw PlanError("\(context): \(problem) (in \"\(statement)\")")
            }
        }
        return statements
    }

    private static func decodeRebuild(_ value: JSONValue?, context: String) throws(PlanError) -> Rebuild {
        guard let object = value?.objectValue else { throw PlanError("\(context): \"rebuild\" must be an object") }
        var fields = Fields(object, context: "\(context), rebuild")
        let rebuild = Rebuild(
            table: try fields.requiredString("table"),
            columns: try fields.requiredFragment("columns"),
            select: try fields.requiredFragment("select"),
            filter: try fields.optionalFragment("where"),
            options: try fields.optionalString("options"),
            batchRows: try fields.batchRows(default: Rebuild.defaultBatchRows),
            indexes: try fields.optionalCreateStatements("indexes", keyword: "INDEX"),
            triggers: try fields.optionalCreateStatements("triggers", keyword: "TRIGGER"))
        if let options = rebuild.options {
            // Spliced in after the new table's column list: only these words, commas and
            // whitespace as SQLite reads them (a comment could swallow what follows).
            let tokenizer = SQLTokenizer(options)
            guard tokenizer.allSatisfy({ token in
                token.kind == .whitespace || tokenizer.matches(token, ",")
                    || ((token.kind == .keyword || token.kind == .identifier)
                        && ["WITHOUT", "ROWID", "STRICT"].contains { tokenizer.matches(token, $0) })
            }) else {
                throw PlanError("\(fields.context): \"options\" may hold WITHOUT ROWID and STRICT, got \"\(options)\"")
            }
        }
        try fields.rejectUnknown()
        return rebuild
    }

    private static func decodeBackfill(_ value: JSONValue?, context: String) throws(PlanError) -> Backfill {
        guard let object = value?.objectValue else { throw PlanError("\(context): \"backfill\" must be an object") }
        var fields = Fields(object, context: "\(context), backfill")
        let backfill = Backfill(
            table: try fields.requiredString("table"),
            set: try fields.requiredFragment("set"),
            filter: try fields.optionalFragment("where"),
            batchRows: try fields.batchRows(default: Backfill.defaultBatchRows))
        try fields.rejectUnknown()
        return backfill
    }

    private static func decodeFreshInstall(_ value: JSONValue, newest: Int) throws(PlanError) -> FreshInstall {
        guard let object = value.objectValue else { throw PlanError("plan: \"fresh_install\" must be an object") }
        var fields = Fields(object, context: "fresh_install")
        guard let version = try fields.optionalInteger("version") else {
            throw PlanError("fresh_install: \"version\" is missing")
        }
        guard version == Int64(newest) else {
            throw PlanError("fresh_install: \"version\" is \(version), but the plan's newest step is \(newest)")
        }
        let sqlValue = fields.take("sql")
        try fields.rejectUnknown()
        return FreshInstall(version: newest, sql: try decodeSQL(sqlValue, context: "fresh_install"))
    }
}

/// The keys of one JSON object, taken one by one so that whatever is left is unknown.
private struct Fields {
    var remaining: [String: JSONValue]
    var context: String

    init(_ object: [String: JSONValue], context: String) {
        self.remaining = object
        self.context = context
    }

    func has(_ key: String) -> Bool { remaining[key] != nil }

    mutating func take(_ key: String) -> JSONValue? { remaining.removeValue(forKey: key) }

    mutating func requiredString(_ key: String) throws(PlanError) -> String {
        guard let value = try optionalString(key) else { throw PlanError("\(context): \"\(key)\" is missing") }
        return value
    }

    mutating func optionalString(_ key: String) throws(PlanError) -> String? {
        guard let value = take(key), value != .null else { return nil }
        guard let text = value.stringValue else {
            throw PlanError("\(context): \"\(key)\" must be a string, not \(value.typeName)")
        }
        guard !text.trimmingWhitespace().isEmpty else { throw PlanError("\(context): \"\(key)\" is empty") }
        return text
    }

    /// A string that Preflight splices into a statement of its own (`FragmentRules`).
    mutating func requiredFragment(_ key: String) throws(PlanError) -> String {
        guard let fragment = try optionalFragment(key) else { throw PlanError("\(context): \"\(key)\" is missing") }
        return fragment
    }

    mutating func optionalFragment(_ key: String) throws(PlanError) -> String? {
        guard let fragment = try optionalString(key) else { return nil }
        if let problem = FragmentRules.problem(in: fragment) {
            throw PlanError("\(context): \"\(key)\" must be one fragment of SQL, but it \(problem)")
        }
        return fragment
    }

    mutating func optionalInteger(_ key: String) throws(PlanError) -> Int64? {
        guard let value = take(key), value != .null else { return nil }
        guard let number = value.integerValue else {
            throw PlanError("\(context): \"\(key)\" must be an integer, not \(value.typeName)")
        }
        return number
    }

    mutating func batchRows(default defaultValue: Int) throws(PlanError) -> Int {
        guard let rows = try optionalInteger("batch_rows") else { return defaultValue }
        guard (1...1_000_000).contains(rows) else {
            throw PlanError("\(context): \"batch_rows\" must be between 1 and 1000000, got \(rows)")
        }
        return Int(rows)
    }

    /// An array of `CREATE [UNIQUE] INDEX` / `CREATE [TEMP] TRIGGER` statements, one
    /// statement per entry (split as SQLite splits a script: a trigger's body is one).
    mutating func optionalCreateStatements(_ key: String, keyword: String) throws(PlanError) -> [String]? {
        guard let value = take(key), value != .null else { return nil }
        guard case .array(let items) = value else {
            throw PlanError("\(context): \"\(key)\" must be an array of CREATE \(keyword) statements")
        }
        return try items.enumerated().map { offset, item throws(PlanError) in
            let statements = item.stringValue.map(SQLText.statements(in:)) ?? []
            let words = statements.first.map { StatementRules.leadingWords(of: $0, count: 3) } ?? []
            guard words.first == "CREATE", words.dropFirst().prefix(2).contains(keyword) else {
                throw PlanError("\(context): every entry of \"\(key)\" must be a CREATE \(keyword) statement")
            }
            guard statements.count == 1 else {
                throw PlanError(
                    "\(context): \"\(key)\"[\(offset)] must be exactly one CREATE \(keyword) statement, but it holds \(statements.count) statements")
            }
            return item.stringValue ?? ""
        }
    }

    func rejectUnknown() throws(PlanError) {
        guard let key = remaining.keys.sorted().first else { return }
        throw PlanError("\(context): unknown key \"\(key)\"")
    }
}
