import CSQLite

/// A `CREATE [UNIQUE] INDEX [IF NOT EXISTS] [schema.]name ON table(...)` statement, read
/// with SQLite's tokenizer so that it can be written again under another name or on
/// another table, in the form SQLite stores in `sqlite_schema.sql`.
///
/// SQLite stores an index's statement as `CREATE INDEX ` or `CREATE UNIQUE INDEX `
/// followed by the text from the index's name to the statement's end, as written
/// (`sqlite3CreateIndex` in build.c): a schema prefix and `IF NOT EXISTS` are not kept. `storedSQL` gives
/// exactly that, so a rebuilt index's row reads as a fresh install's does.
struct IndexStatement {
    let unique: Bool
    /// The index's name and the indexed table's name, unquoted.
    let name: String
    let table: String
    private let tokenizer: SQLTokenizer
    private let nameRange: Range<Int>
    private let tableRange: Range<Int>
    private let end: Int

    /// Reads `sql`; a statement of another shape is a plan error, named with `context`.
    init(_ sql: String, context: String) throws(SQLiteError) {
        let tokenizer = SQLTokenizer(sql)
        let tokens = tokenizer.filter { !$0.isTrivia }
        let semicolon = tokens.firstIndex { tokenizer.matches($0, ";") }
        if let semicolon, tokens[(semicolon + 1)...].contains(where: { !tokenizer.matches($0, ";") }) {
            // A file's schema entry can hold more (SQLite runs only the first when it
            // reads it): never anything but the one statement is run.
            throw SQLiteError(code: SQLITE_ERROR, message: "\(context): more than one statement in \"\(sql)\"")
        }
        let words = Array(tokens[..<(semicolon ?? tokens.count)])
        func fail() -> SQLiteError {
            SQLiteError(
                code: SQLITE_ERROR,
                message: "\(context): expected CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table(...), got \"\(sql)\"")
        }
        var at = 0
        func take(_ spelling: String) -> Bool {
            guard at < words.count, tokenizer.matches(words[at], spelling) else { return false }
            at += 1
            return true
        }
        func isName(_ index: Int) -> Bool {
            index < words.count && [.identifier, .quotedIdentifier, .keyword, .string].contains(words[index].kind)
        }
        guard take("CREATE") else { throw fail() }
        let unique = take("UNIQUE")
        guard take("INDEX") else { throw fail() }
        if take("IF") { guard take("NOT"), take("EXISTS") else { throw fail() } }
        guard isName(at) else { throw fail() }
        if at + 2 < words.count, tokenizer.matches(words[at + 1], "."), isName(at + 2) { at += 2 }
        let nameToken = words[at]
        at += 1
        guard take("ON"), isName(at), at + 1 < words.count, tokenizer.matches(words[at + 1], "(") else { throw fail() }
        let tableToken = words[at]
        self.unique = unique
        self.name = tokenizer.unquoted(nameToken)
        self.table = tokenizer.unquoted(tableToken)
        self.tokenizer = tokenizer
        self.nameRange = nameToken.range
        self.tableRange = tableToken.range
        // SQLite keeps the text up to the statement's semicolon, or to the end of the
        // input: comments and spaces before either are part of it.
        self.end = semicolon.map { tokens[$0].range.lowerBound } ?? sql.utf8.count
    }

    /// The statement as `sqlite_schema` stores it, named `name` (quoted) on `table`
    /// (quoted) where they are given, as written where not.
    func storedSQL(name newName: String? = nil, table newTable: String? = nil) -> String {
        let head = unique ? "CREATE UNIQUE INDEX " : "CREATE INDEX "
        return head + (newName.map(SQLText.quote) ?? tokenizer.text(nameRange))
            + tokenizer.text(nameRange.upperBound..<tableRange.lowerBound)
            + (newTable.map(SQLText.quote) ?? tokenizer.text(tableRange))
            + tokenizer.text(tableRange.upperBound..<end)
    }
}
