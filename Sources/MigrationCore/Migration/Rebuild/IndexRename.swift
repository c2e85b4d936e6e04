import CSQLite

/// An index given another name, its b-tree untouched.
///
/// SQLite has no `ALTER INDEX ... RENAME`, and `DROP INDEX` then `CREATE INDEX` is work
/// that grows with the table: the drop frees (and, with `secure_delete`, overwrites and
/// journals) every page of the old index, and the create sorts every row. A rebuild's
/// swap must stay bounded however large the table, so it renames instead: an index's name
/// lives only in its `sqlite_schema` row, never in the file's b-trees, which is the case
/// SQLite documents for editing `sqlite_schema` directly ("Making Other Kinds Of Table
/// Schema Changes", https://www.sqlite.org/lang_altertable.html#otheralter): the row is
/// rewritten with `writable_schema`, the schema cookie is incremented so that every
/// connection reloads it, and the schema is reloaded here at once.
struct IndexRename {
    /// The index's current name and the name it gets.
    let from: String
    let to: String
    /// Its statement under the new name, as `sqlite_schema` stores it (`IndexStatement.storedSQL`).
    let sql: String
}

extension Connection {
    /// Applies `renames` in order, inside the caller's write transaction (so they commit
    /// or roll back with it). Defensive mode, which forbids `writable_schema`, is lifted
    /// for these statements alone: they are Preflight's own, and no plan SQL runs meanwhile.
    func renameIndexes(_ renames: [IndexRename]) throws(SQLiteError) {
        guard !renames.isEmpty else { return }
        let schemaVersion = try integer("PRAGMA schema_version")
        preflight_db_config_flag(handle, SQLITE_DBCONFIG_DEFENSIVE, 0)
        defer { preflight_db_config_flag(handle, SQLITE_DBCONFIG_DEFENSIVE, 1) }
        try execute("PRAGMA writable_schema = ON")
        do throws(SQLiteError) {
            let update = try prepare("UPDATE sqlite_schema SET name = ?, sql = ? WHERE type = 'index' AND name = ?")
            for rename in renames {
                try update.run([.text(rename.to), .text(rename.sql), .text(rename.from)])
                guard changes == 1 else {
                    throw SQLiteError(code: SQLITE_ERROR, message: "no index \"\(rename.from)\" to rename to \"\(rename.to)\"")
                }
            }
            try execute("PRAGMA schema_version = \(schemaVersion + 1)")
        } catch {
            // The caller rolls the transaction back; the reload drops what was edited here.
            try? execute("PRAGMA writable_schema = RESET")
            throw error
        }
        // Off, and the in-memory schema read again from the rows just written.
        try execute("PRAGMA writable_schema = RESET")
    }
}
