/// Room's own table: `room_master_table(id INTEGER PRIMARY KEY, identity_hash TEXT)`, whose
/// row 42 holds the identity hash of the schema the app was built with. Room writes it at
/// the end of an upgrade, inside the upgrade's transaction (`RoomOpenHelper.updateIdentity`).
enum RoomMasterTable {
    static let table = "room_master_table"
    static let rowID = 42

    static func write(identityHash: String, _ connection: Connection) throws(SQLiteError) {
        // Room's own text (`RoomMasterTable.CREATE_QUERY`): it is what the file's schema keeps.
        try connection.execute("CREATE TABLE IF NOT EXISTS \(table) (id INTEGER PRIMARY KEY,identity_hash TEXT)")
        try connection.prepare("INSERT OR REPLACE INTO \(table) (id, identity_hash) VALUES (?, ?)")
            .run([.integer(Int64(rowID)), .text(identityHash)])
    }
}
